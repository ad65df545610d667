# SPDX-License-Identifier: MIT
# Off-CPU time a thread spends runnable but not running (issue 23, section 4): a workload pinned
# to one CPU beside a CPU hog pinned to the same CPU is preempted; the report's Off-CPU Time
# section gives that time, more than 0 and at most the run's wall time; a sleeping workload's
# wait is its sleep.
. "$(dirname "$0")/lib.sh"

build_workload annotate_div annotate_div -O2 -g ||
    { fail preempt_build "cannot build tests/workloads/annotate_div.c"; exit 0; }
if ! command -v taskset >/dev/null; then
    skip offcpu_preempted "taskset (util-linux) is not installed"
    exit 0
fi
cpu=$(taskset -pc $$ | awk -F': ' '{ split($2, a, "[,-]"); print a[1] }')
# The hog: a shell busy loop on the same CPU, ended by its pid.
taskset -c "$cpu" sh -c 'while :; do :; done' &
hog=$!
t0=$(date +%s%N)
out=$("$PROSPECT" record --off-cpu -g -o "$TEST_TMP/pre.data" -- taskset -c "$cpu" "$WL/annotate_div" 20000000 2>&1)
rc=$?
t1=$(date +%s%N)
kill "$hog"
wait "$hog" 2>/dev/null
if [ $rc -ne 0 ]; then
    if grep -qi "permission\|not supported\|tracepoint" <<<"$out"; then
        skip offcpu_preempted "record --off-cpu cannot trace sched_switch here: $(head -1 <<<"$out")"
    else
        fail offcpu_preempted "prospect record --off-cpu failed: $(head -3 <<<"$out")"
    fi
    exit 0
fi
"$PROSPECT" report -i "$TEST_TMP/pre.data" >"$TEST_TMP/pre.txt" 2>"$TEST_TMP/pre.err"
line=$(grep 'runnable, not running:' "$TEST_TMP/pre.txt")
ns=$(sed -n 's/.*runnable, not running: \([0-9.]*\) s.*/\1/p' <<<"$line")
wall=$(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.4f", (b - a) / 1e9 }')
if [ -z "$ns" ]; then
    fail offcpu_preempted_time_shown "no 'runnable, not running' line: $(grep -A3 'Off-CPU Time' "$TEST_TMP/pre.txt" | head -4)"
else
    # One thread: preempted at most for the whole run.
    check offcpu_preempted_time_positive_and_within_wall \
        awk -v n="$ns" -v w="$wall" 'BEGIN { exit !(n > 0 && n <= w) }'
    echo "# preempted: $ns s runnable, not running, of a $wall s run"
fi

# A known sleep: its wait is the sleep (at least it, at most the run).
t0=$(date +%s%N)
"$PROSPECT" record --off-cpu -g -o "$TEST_TMP/sl.data" -- sleep 0.3 >/dev/null 2>&1
t1=$(date +%s%N)
"$PROSPECT" report -i "$TEST_TMP/sl.data" >"$TEST_TMP/sl.txt" 2>/dev/null
s=$(sed -n 's/.*blocked in: \([0-9.]*\) s in.*/\1/p' "$TEST_TMP/sl.txt")
wall=$(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.4f", (b - a) / 1e9 }')
check offcpu_sleep_is_the_wait awk -v n="${s:-0}" -v w="$wall" 'BEGIN { exit !(n >= 0.3 && n <= w) }'
