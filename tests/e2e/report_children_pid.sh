# SPDX-License-Identifier: MIT
# --children --sort pid,... (issue 23, section 2), against perf report --children --sort pid,sym
# on perf's file of two runs of one program (two processes, one command name: the comm key
# would join them, the pid key keeps them apart). perf's pid key is per thread: these
# processes have one thread each. Prospect's tid key is perf's pid key: compared on a file of
# two threads.
. "$(dirname "$0")/lib.sh"

build_workload callgraph callgraph -O0 -fno-omit-frame-pointer ||
    { fail pid_build "cannot build tests/workloads/callgraph.c"; exit 0; }
if ! command -v perf >/dev/null || ! perf record -q -o "$TEST_TMP/probe.data" -- true >/dev/null 2>&1; then
    skip report_children_pid "perf is not installed or cannot record here"
    exit 0
fi
D=$TEST_TMP/two.data
precord -g -o "$D" -- sh -c "'$WL/callgraph' 400; '$WL/callgraph' 400" ||
    { fail pid_perf_record "perf record -g failed"; exit 0; }

# rows FILE: "pid:comm|[x] sym|children|self" of the rows of 1% or more.
rows() { grep -v '^#' "$1" | awk '$1 ~ /%$/ && $1 + 0 >= 1 && $3 ~ /^[0-9]+:/ {
    s = $0; sub(/^ *[^ ]+ +[^ ]+ +[^ ]+ +/, "", s); print $3 "|" s "|" $1 + 0 "|" $2 + 0 }' | sort; }
# same A B: the same keys, each share within 0.2 point (a sample in leaf's prologue gets its
# caller back in Prospect's chain, the frameless-leaf fix of docs/callgraph.md).
same() { paste -d'|' "$1" "$2" | awk -F'|' '{ n++ } $1 != $5 || $2 != $6 ||
    ($3 - $7) ^ 2 > 0.04 || ($4 - $8) ^ 2 > 0.04 { bad = 1 } END { exit bad || n < 6 }'; }

for keys in pid,sym pid,dso,sym; do
    perf report -i "$D" --stdio --children --sort $keys -g none 2>/dev/null >"$TEST_TMP/perf.$keys"
    "$PROSPECT" report -i "$D" --children --sort $keys -g none >"$TEST_TMP/ours.$keys" 2>&1
    rows "$TEST_TMP/perf.$keys" >"$TEST_TMP/p"
    rows "$TEST_TMP/ours.$keys" >"$TEST_TMP/o"
    check "children_sort_${keys//,/_}_as_perf" same "$TEST_TMP/p" "$TEST_TMP/o"
done
# Two processes: every workload row is there twice, under two pids.
check children_pid_two_processes [ "$(grep -c '\] via_a$' "$TEST_TMP/ours.pid,sym")" = 2 ]
check children_pid_header grep -q '^# Children      Self  Pid:Command  *Symbol$' "$TEST_TMP/ours.pid,sym"
# The trees under pid rows are the rows' own (the default -g graph).
"$PROSPECT" report -i "$D" --children --sort pid,sym >"$TEST_TMP/trees" 2>&1
check children_pid_trees grep -q -- '---main' "$TEST_TMP/trees"
"$PROSPECT" report -i "$D" --children --sort pid,comm,sym >/dev/null 2>&1
check children_pid_with_comm_is_usage_error [ $? -eq 2 ]

# The tid key: rows per thread, as perf's pid key (per thread) shows them, on perf's and
# Prospect's files of two threads of equal work (tests/workloads/cg_shapes.c threads).
build_workload cg_shapes cg_shapes -O0 -fno-omit-frame-pointer -pthread ||
    { fail tid_build "cannot build tests/workloads/cg_shapes.c"; exit 0; }
precord -g -o "$TEST_TMP/thr.perf.data" -- "$WL/cg_shapes" threads 1 ||
    { fail tid_perf_record "perf record -g failed"; exit 0; }
"$PROSPECT" record -g -o "$TEST_TMP/thr.p.data" -- "$WL/cg_shapes" threads 1 >/dev/null 2>&1 ||
    { fail tid_record "prospect record -g failed"; exit 0; }
for f in perf p; do
    T=$TEST_TMP/thr.$f.data
    for keys in sym dso,sym; do
        perf report -i "$T" --stdio --children --sort pid,$keys -g none 2>/dev/null \
            >"$TEST_TMP/perf.tid.$keys"
        "$PROSPECT" report -i "$T" --children --sort tid,$keys -g none >"$TEST_TMP/ours.tid.$keys" 2>&1
        rows "$TEST_TMP/perf.tid.$keys" >"$TEST_TMP/p"
        rows "$TEST_TMP/ours.tid.$keys" >"$TEST_TMP/o"
        check "children_sort_tid_${keys//,/_}_as_perf_pid_${f}_file" same "$TEST_TMP/p" "$TEST_TMP/o"
    done
    # Two threads: work is a row of each, about half the samples each.
    check "children_tid_two_threads_$f" awk '$NF == "work" && $1 + 0 > 30 { n++ }
        END { exit n != 2 }' "$TEST_TMP/ours.tid.sym"
done
# The trees under tid rows are the thread's own chains: thread_a's row, one thread's, calls work.
"$PROSPECT" report -i "$TEST_TMP/thr.p.data" --children --sort tid,sym -S thread_a \
    >"$TEST_TMP/tidtree" 2>&1
check children_tid_tree_one_thread [ "$(grep -c '\] thread_a$' "$TEST_TMP/tidtree")" = 1 ]
calls_work() { grep -A1 -- '---thread_a' "$1" | grep -q 'work$'; }
check children_tid_trees calls_work "$TEST_TMP/tidtree"
"$PROSPECT" report -i "$D" --children --sort tid,comm,sym >/dev/null 2>&1
check children_tid_with_comm_is_usage_error [ $? -eq 2 ]
"$PROSPECT" report -i "$D" --flat --sort tid,sym >/dev/null 2>&1
check flat_tid_stands_alone [ $? -eq 2 ]
