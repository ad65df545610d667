# SPDX-License-Identifier: MIT
# Call graphs of the shapes programs have (issue 10, section 4): deep recursion and perf's
# --max-stack, threads, fork+exec, the run -g report, off-CPU waits (record/run --off-cpu).
# Workload: tests/workloads/cg_shapes.c, -O0 -fno-omit-frame-pointer (every frame chained).
. "$(dirname "$0")/lib.sh"

build_workload cg_shapes cg_shapes -O0 -fno-omit-frame-pointer -g -pthread ||
    { fail cg_shapes_build "cannot build tests/workloads/cg_shapes.c"; exit 0; }
CS=$WL/cg_shapes
in_range() { awk -v v="${1:-x}" -v lo="$2" -v hi="$3" 'BEGIN { exit !(v != "x" && v >= lo && v <= hi) }'; }
# share FILE SYMBOL [OPTIONS]: the Children percentage of SYMBOL in our table.
share() {
    "$PROSPECT" report -i "$1" --children -g none --sort sym "${@:3}" |
        awk -v s="$2" '$NF == s { sub("%", "", $1); print $1; exit }'
}
# weight FOLDED REGEX: the sum of the counts of the folded lines matching REGEX.
weight() { awk -v re="$2" '$0 ~ re { n += $NF } END { printf "%.0f\n", n }' "$1"; }

# Deep recursion: d0 > d1 > d2 > d3 > d0 ... 41 frames deep (+ main, libc) under work().
if ! "$PROSPECT" record -g -o "$TEST_TMP/deep.data" -- "$CS" deep 20000 40 fixed >/dev/null 2>&1; then
    fail record_deep "prospect record -g failed"
else
    "$PROSPECT" report -i "$TEST_TMP/deep.data" --format folded > "$TEST_TMP/deep.folded"
    # Every d-function is on the stack ten times per sample and counts once: ~100%, not 1000%.
    bad=""
    for f in d0 d1 d2 d3; do
        in_range "$(share "$TEST_TMP/deep.data" $f)" 90 100 || bad="$bad $f=$(share "$TEST_TMP/deep.data" $f)"
    done
    check deep_recursion_counts_once_per_sample [ -z "$bad" ]
    # The folded line of work holds the 41 recursive frames in order, main outermost.
    check deep_stack_whole_in_folded [ -n "$(awk '/;main;d0;d1;d2;d3;.*;work [0-9]+$/ {
        n = split($1, f, ";"); d = 0; for (i = 1; i <= n; i++) d += f[i] ~ /^d[0-3]$/
        if (d == 41) { print; exit } }' "$TEST_TMP/deep.folded")" ]
    # --max-stack 5: the Children table keeps the 5 outermost frames (libc, main, d0, d1, d2)
    # and the sampled function, as perf report does (checked against it below).
    d3=$(share "$TEST_TMP/deep.data" d3 --max-stack 5); d2=$(share "$TEST_TMP/deep.data" d2 --max-stack 5)
    check max_stack_children_outermost [ "$(awk -v v="${d3:-0}" 'BEGIN { print (v < 10) }')" = 1 -a \
        -n "$(in_range "$d2" 90 100 && echo y)" ]
    "$PROSPECT" report -i "$TEST_TMP/deep.data" --format folded --max-stack 5 > "$TEST_TMP/deep5.folded"
    check max_stack_folded_innermost [ -z "$(awk -F';' 'NF > 6' "$TEST_TMP/deep5.folded")" -a \
        -n "$(grep -E '^cg_shapes;d[0-3];d[0-3];d[0-3];d[0-3];work [0-9]+$' "$TEST_TMP/deep5.folded")" ]
    out=$("$PROSPECT" report -i "$TEST_TMP/deep.data" --max-stack 0 --children -g none 2>&1)
    check max_stack_zero_is_usage_error [ $? -eq 2 -a -n "$(grep "invalid --max-stack" <<<"$out")" ]
    # The caller tree of work stops indenting and prints the depth past 31 levels.
    check deep_callers_tree_shows_depth grep -q '([0-9][0-9]) d[0-3]$' \
        <("$PROSPECT" report -i "$TEST_TMP/deep.data" --callers work)
fi

# perf report reads Prospect's file: every row of 1% or more of its Children table (dso,sym)
# is ours within 1 point, whole and with --max-stack 5 and 12. perf names ld.so's _start by
# its return address, _dl_start_user (callgraph.sh says why).
agree() {   # agree NAME FILE [--max-stack N]
    local name=$1 data=$2 bad
    perf report -i "$data" --children --stdio --sort dso,sym -g none -t '|' --percent-limit 0 "${@:3}" \
        2>/dev/null | grep -v '^#' | grep . | awk -F'|' '{ for (i = 1; i <= NF; i++) gsub(/^ +| +$/, "", $i)
        sub("%", "", $1); if ($4 == "[.] _dl_start_user" && $3 ~ /^ld-linux/) $4 = "[.] _start"
        print $3 "|" $4 "|" $1 }' > "$TEST_TMP/$name.perf"
    "$PROSPECT" report -i "$data" --children -g none --sort dso,sym --wide "${@:3}" | grep -v '^#' |
        awk '{ c = $1; sub("%", "", c); s = $0; for (i = 0; i < 3; i++) sub(/^ *[^ ]+/, "", s)
               sub(/^ +/, "", s); print $3 "|" s "|" c }' > "$TEST_TMP/$name.ours"
    bad=$(awk -F'|' 'NR == FNR { ours[$1 "|" $2] = $3; next }
        $3 >= 1 { k = $1 "|" $2; d = ours[k] - $3; if (d < 0) d = -d
                  if (!(k in ours) || d > 1) printf "%s perf %s%% ours %s%%; ", k, $3, ours[k] }' \
        "$TEST_TMP/$name.ours" "$TEST_TMP/$name.perf")
    if [ "$(awk -F'|' '$3 >= 1' "$TEST_TMP/$name.perf" | wc -l)" -lt 3 ]; then
        fail "$name" "perf printed fewer than 3 rows of 1% or more"
    else
        check "$name" [ -z "$bad" ] || echo "  $bad"
    fi
}
if command -v perf >/dev/null && [ -s "$TEST_TMP/deep.data" ]; then
    agree deep_children_match_perf "$TEST_TMP/deep.data"
    agree deep_max_stack_5_matches_perf "$TEST_TMP/deep.data" --max-stack 5
    agree deep_max_stack_12_matches_perf "$TEST_TMP/deep.data" --max-stack 12
else
    skip deep_children_match_perf "perf is not installed"
fi

# Threads: thread_a and thread_b do the same work; each thread's samples are its CPU time, so
# each holds half of them whatever else runs (1000 Hz, ~800 samples: 40-60 is > 5 sigma).
if "$PROSPECT" record -g -o "$TEST_TMP/thr.data" -- "$CS" threads >/dev/null 2>&1; then
    a=$(share "$TEST_TMP/thr.data" thread_a); b=$(share "$TEST_TMP/thr.data" thread_b)
    check threads_each_half [ -n "$(in_range "$a" 40 60 && in_range "$b" 40 60 && echo y)" ]
    "$PROSPECT" report -i "$TEST_TMP/thr.data" --format folded > "$TEST_TMP/thr.folded"
    check threads_stacks_start_at_thread_start [ -n "$(grep -E '^cg_shapes;(.*;)?start_thread;run_a;thread_a;work [0-9]+$' "$TEST_TMP/thr.folded")" -a \
        -n "$(grep -E '^cg_shapes;(.*;)?start_thread;run_b;thread_b;work [0-9]+$' "$TEST_TMP/thr.folded")" ]
else
    fail record_threads "prospect record -g failed"
fi

# fork+exec: the child's stacks are under the child's command name, the parent's under its own.
cp "$CS" "$WL/cg_child"
if "$PROSPECT" record -g -o "$TEST_TMP/fork.data" -- "$CS" fork 300 "$WL/cg_child" >/dev/null 2>&1; then
    "$PROSPECT" report -i "$TEST_TMP/fork.data" --format folded > "$TEST_TMP/fork.folded"
    check fork_exec_child_under_its_comm [ "$(weight "$TEST_TMP/fork.folded" '^cg_child;.*;child_work;work ')" -gt 0 -a \
        "$(weight "$TEST_TMP/fork.folded" '^cg_shapes;.*;child_work;')" -eq 0 ]
    check fork_exec_parent_under_its_comm [ "$(weight "$TEST_TMP/fork.folded" '^cg_shapes;.*;parent_work;work ')" -gt 0 -a \
        "$(weight "$TEST_TMP/fork.folded" '^cg_child;.*;parent_work;')" -eq 0 ]
    check fork_exec_children_rows_per_command [ -n "$("$PROSPECT" report -i "$TEST_TMP/fork.data" --children -g none |
        awk '$3 == "cg_child" && $NF == "child_work"')" ]
else
    fail record_fork "prospect record -g failed"
fi

# run -g: the Prospect report has a call-graph part per detailed process, within 100 columns.
build_workload callgraph callgraph -O0 -fno-omit-frame-pointer ||
    { fail callgraph_build "cannot build tests/workloads/callgraph.c"; exit 0; }
"$PROSPECT" run -g -o "$TEST_TMP/run.txt" -- "$WL/callgraph" 1500 >/dev/null 2>&1
check run_g_exit_status [ $? -eq 0 ]
row() { awk -v s="$2" '/Call graph:/ { on = 1 } on && $NF == s && $1 ~ /%$/ { sub("%", "", $1); print $1; exit }' "$1"; }
check run_g_children_rows [ -n "$(in_range "$(row "$TEST_TMP/run.txt" via_a)" 50 70 &&
    in_range "$(row "$TEST_TMP/run.txt" via_b)" 30 50 && in_range "$(row "$TEST_TMP/run.txt" main)" 95 100 && echo y)" ]
check run_g_call_paths grep -qE '^ +[0-9.]+%  .*main > via_a > leaf$' "$TEST_TMP/run.txt"
"$PROSPECT" run -g -o "$TEST_TMP/run_deep.txt" -- "$CS" deep 10000 40 fixed >/dev/null 2>&1
check run_g_deep_paths_fit_100_columns [ -n "$(grep -E '^ +[0-9.]+%  .* > \.\.\. [0-9]+ \.\.\. > .*work$' "$TEST_TMP/run_deep.txt")" -a \
    -z "$(awk 'length($0) > 100' "$TEST_TMP/run.txt" "$TEST_TMP/run_deep.txt")" ]
# run -g on C++ functions with names hundreds of characters long: the Children rows too stay
# within 100 columns.
if g++ -O0 -fno-omit-frame-pointer -o "$WL/longnames" "$(dirname "$0")/../workloads/longnames.cpp" 2>/dev/null; then
    "$PROSPECT" run -g -o "$TEST_TMP/run_long.txt" -- "$WL/longnames" 20000000 >/dev/null 2>&1
    check run_g_long_names_fit_100_columns [ -n "$(grep -F 'very_long_namespace' "$TEST_TMP/run_long.txt")" -a \
        -z "$(awk 'length($0) > 100' "$TEST_TMP/run_long.txt")" ]
else
    skip run_g_long_names_fit_100_columns "g++ cannot build tests/workloads/longnames.cpp"
fi
out=$("$PROSPECT" run -- "$WL/callgraph" 10 2>&1)
check run_without_g_has_no_call_graph [ -z "$(grep "Call graph:" <<<"$out")" ]

# Inline frames (perf's --inline): -O2 code whose hot loop is inner() inlined in middle()
# inlined in outer(). addr2line -i (binutils) is the oracle for the sampled addresses.
build_workload cg_inline cg_inline -O2 -g -fno-omit-frame-pointer ||
    { fail cg_inline_build "cannot build tests/workloads/cg_inline.c"; exit 0; }
if "$PROSPECT" record -g -o "$TEST_TMP/inl.data" -- "$WL/cg_inline" 300 >/dev/null 2>&1; then
    "$PROSPECT" report -i "$TEST_TMP/inl.data" --children -g none --inline --sort sym > "$TEST_TMP/inl.txt"
    self=$(awk '$NF == "(inlined)" && $(NF-1) == "inner" { sub("%", "", $2); print $2 }' "$TEST_TMP/inl.txt")
    # middle's own code (one sink++ a round) may take a rare sample: under 1%, not exactly 0
    check inline_hot_loop_in_inner_inlined [ -n "$(in_range "$self" 90 100 && echo y)" -a \
        -n "$(awk '$NF == "(inlined)" && $(NF-1) == "middle" && $2 + 0 < 1' "$TEST_TMP/inl.txt")" ]
    check inline_rows_only_with_option [ -z "$("$PROSPECT" report -i "$TEST_TMP/inl.data" --children -g none |
        grep -F '(inlined)')" ]
    "$PROSPECT" report -i "$TEST_TMP/inl.data" --format folded --inline > "$TEST_TMP/inl.folded"
    # The flame graph colours inlined frames apart (aqua: low red, green = blue, high).
    "$PROSPECT" report -i "$TEST_TMP/inl.data" --inline --format svg -o "$TEST_TMP/inl.svg"
    check inline_svg_frames_aqua [ -n "$(grep -o '<title>inner ([^<]*</title><rect [^>]*fill="rgb([0-9]*,[0-9]*,[0-9]*)"' \
        "$TEST_TMP/inl.svg" | sed 's/.*rgb(//; s/)"//' | awk -F, '$1 < 120 && $2 >= 180 && $2 == $3')" ]
    # The chain of the hottest stack against addr2line -i on the hottest sampled ip.
    ip=""
    # (perf script's chain lines give the address in the file; the first of a sample is its ip)
    command -v perf >/dev/null && ip=$(perf script -i "$TEST_TMP/inl.data" -F ip,sym 2>/dev/null |
        awk '!/^\t/ { first = 1; next } first { c[$1]++; first = 0 }
             END { for (a in c) if (c[a] > m) { m = c[a]; b = a } print b }')
    if [ -z "$ip" ] || ! command -v addr2line >/dev/null; then
        skip inline_chain_matches_addr2line "perf script or addr2line is not installed"
    else
        want=$(addr2line -i -f -e "$WL/cg_inline" "0x$ip" |
            awk 'NR % 2 { f[++n] = $1 } END { for (i = n; i >= 1; i--) printf "%s%s", f[i], (i > 1 ? ";" : "") }')
        # addr2line names outer itself; the symbol table names gcc's clone outer.constprop.0.
        got=$(sort -k2 -n "$TEST_TMP/inl.folded" | tail -1 | awk '{ print $1 }' |
            sed -E 's/.*;(outer[^;]*;)/\1/; s/^outer[^;]*;/outer;/')
        check inline_chain_matches_addr2line [ "$want" = "outer;middle;inner" -a "$got" = "$want" ]
    fi
    # --callees outer, when the stacks hold gcc's clone of it: the error names the clone.
    clone=$(grep -o ';outer\.[a-z_.0-9]*;' "$TEST_TMP/inl.folded" | head -1 | tr -d ';')
    if [ -z "$clone" ]; then
        skip callees_names_gcc_clone "this gcc did not clone outer"
    else
        out=$("$PROSPECT" report -i "$TEST_TMP/inl.data" --callees outer 2>&1)
        check callees_names_gcc_clone [ $? -eq 1 -a -n "$(grep -F "its gcc clone '$clone' is there" <<<"$out")" ]
    fi
else
    fail record_inline "prospect record -g failed"
fi

# --inline on a file without samples: no output, no undefined behaviour (the UBSan binary
# stopped at a memcpy from NULL).
if command -v perf >/dev/null && precord -g -e page-faults -c 1000000000 -o "$TEST_TMP/nos.data" -- true; then
    out=$("$PROSPECT" report -i "$TEST_TMP/nos.data" --inline --format folded 2>&1)
    check inline_without_samples_clean [ $? -eq 0 -a -z "$(grep -E 'runtime error|Sanitizer' <<<"$out")" ]
else
    skip inline_without_samples_clean "perf cannot record a file without samples here"
fi

# A fault on a function's first instruction: the user frame under the kernel's fault frames is
# the user ip the kernel was entered at, so it names that function (target), not the end of
# the one before it (before, never called), as perf report names it.
if ! build_workload cg_codefault cg_codefault -O1 -fno-omit-frame-pointer; then
    fail cg_codefault_build "cannot build tests/workloads/cg_codefault.c"
elif ! "$PROSPECT" record -g -F 2000 -o "$TEST_TMP/fault.data" -- "$WL/cg_codefault" 100000 \
        >/dev/null 2>&1; then
    fail record_codefault "prospect record -g failed"
else
    "$PROSPECT" report -i "$TEST_TMP/fault.data" --format folded > "$TEST_TMP/fault.folded"
    check codefault_frame_is_the_faulting_function [ \
        "$(weight "$TEST_TMP/fault.folded" ';target;asm_exc_page_fault_')" -gt 0 -a \
        -z "$(grep ';before;' "$TEST_TMP/fault.folded")" -a -z "$(share "$TEST_TMP/fault.data" before)" ]
    if command -v perf >/dev/null; then
        agree codefault_children_match_perf "$TEST_TMP/fault.data"
    fi
fi

# Off-CPU: a thread naps 200 ms in nap() (a nanosleep) and spins 200 ms of CPU in spin().
if [ ! -d /sys/kernel/tracing/events/sched ] && ! "$PROSPECT" list 2>/dev/null | grep -q sched:sched_switch; then
    skip offcpu "no sched:sched_switch tracepoint here (tracefs)"
    exit 0
fi
out=$("$PROSPECT" record --off-cpu -g -o "$TEST_TMP/off.data" -- "$CS" napspin 2>&1)
if [ $? -ne 0 ]; then
    fail record_off_cpu "prospect record --off-cpu -g failed: $out"
    exit 0
fi
"$PROSPECT" report -i "$TEST_TMP/off.data" --off-cpu --format folded > "$TEST_TMP/off.folded"
# The napping thread's waits (its stacks go through napspin): nanosleep sleeps at least 200 ms,
# so nap's weight is >= 2e8 ns; its other voluntary waits are short (page faults at start):
# nap must hold at least 90% of the thread's off-CPU time. Preemptions (the machine is busy)
# are not waits, so spin gets none of it however loaded the machine is.
nap=$(weight "$TEST_TMP/off.folded" ';napspin;nap;'); all=$(weight "$TEST_TMP/off.folded" ';napspin;')
check offcpu_nap_holds_the_threads_waits [ "$nap" -ge 200000000 -a \
    "$(awk -v n="$nap" -v a="$all" 'BEGIN { print (a > 0 && n / a >= 0.9) }')" = 1 ]
check offcpu_spin_has_no_wait [ "$(weight "$TEST_TMP/off.folded" ';napspin;spin;')" -lt \
    "$(awk -v a="$all" 'BEGIN { printf "%d", a / 20 }')" ]
check offcpu_folded_kernel_frames_marked grep -q ';napspin;nap;.*schedule_\[k\] [0-9]*$' "$TEST_TMP/off.folded"
# The main thread waits in pthread_join (a futex) while the other one runs.
check offcpu_main_thread_waits_in_join [ "$(weight "$TEST_TMP/off.folded" 'futex')" -ge 200000000 ]
# On CPU the same thread is in spin, not in nap.
"$PROSPECT" report -i "$TEST_TMP/off.data" --format folded > "$TEST_TMP/on.folded" 2>"$TEST_TMP/on.err"
on=$(weight "$TEST_TMP/on.folded" ';napspin;'); spin=$(weight "$TEST_TMP/on.folded" ';napspin;spin;')
check oncpu_napspin_in_spin [ "$on" -gt 0 -a "$(awk -v s="$spin" -v a="$on" 'BEGIN { print (s / a >= 0.9) }')" = 1 -a \
    "$(weight "$TEST_TMP/on.folded" ';napspin;nap;')" -le 2 ]
check oncpu_report_names_off_cpu_option grep -q "off-CPU waits too (sched:sched_switch): --off-cpu" "$TEST_TMP/on.err"
# Children of the waits: nap's share of every wait's time.
n=$(share "$TEST_TMP/off.data" nap --off-cpu)
check offcpu_children_share_of_nap [ -n "$n" -a "$(awk -v n="$n" -v a="$nap" -v t="$(weight "$TEST_TMP/off.folded" .)" \
    'BEGIN { d = n - 100 * a / t; print (d < 0.02 && d > -0.02) }')" = 1 ]
# README's `report --off-cpu` alone: the Children/Self table of the waits, not a usage error.
"$PROSPECT" report -i "$TEST_TMP/off.data" --off-cpu >"$TEST_TMP/offalone.txt" 2>"$TEST_TMP/offalone.err"
check offcpu_alone_status [ $? = 0 ]
check offcpu_alone_is_children grep -q "^# Children      Self" "$TEST_TMP/offalone.txt"
check offcpu_alone_weighs_waits grep -q "^# Samples: .* of event 'off-CPU time in ns" "$TEST_TMP/offalone.txt"
check offcpu_alone_nap_row grep -Eq "^ +[0-9.]+% +[0-9.]+% .* cg_shapes +\\[\\.\\] nap$" "$TEST_TMP/offalone.txt"
# The flame graph, speedscope and pprof files of the waits weigh the ns waited, as folded does
# (a wait of 200 ms is not as wide as one of 20 us): nap's ns in each equal its folded weight.
"$PROSPECT" report -i "$TEST_TMP/off.data" --off-cpu --format svg -o "$TEST_TMP/off.svg" 2>/dev/null
check offcpu_svg_weighs_ns [ "$(sed -n 's/.*<title>nap (\([0-9]*\) ns, .*/\1/p' "$TEST_TMP/off.svg" |
    awk '{ n += $1 } END { print n + 0 }')" = "$nap" ]
"$PROSPECT" report -i "$TEST_TMP/off.data" --off-cpu --format speedscope -o "$TEST_TMP/off.json" 2>/dev/null
check offcpu_speedscope_weighs_ns [ "$(python3 - "$TEST_TMP/off.json" <<'EOF2'
import json, sys
d = json.load(open(sys.argv[1]))
nap = [i for i, f in enumerate(d['shared']['frames']) if f['name'] == 'nap']
n = 0
for p in d['profiles']:
    assert p['unit'] == 'nanoseconds', p['unit']
    n += sum(w for s, w in zip(p['samples'], p['weights']) if set(s) & set(nap))
print(n)
EOF2
)" = "$nap" ]
if command -v go >/dev/null; then
    "$PROSPECT" report -i "$TEST_TMP/off.data" --off-cpu --format pprof -o "$TEST_TMP/off.pb.gz" 2>/dev/null
    check offcpu_pprof_weighs_ns [ "$(go tool pprof -top -unit=ns -nodefraction=0 -nodecount=100000 \
        "$TEST_TMP/off.pb.gz" 2>/dev/null | awk '$NF == "nap" { sub("ns", "", $4); print $4 }')" = "$nap" -a \
        -n "$(go tool pprof -raw "$TEST_TMP/off.pb.gz" 2>/dev/null | grep -x 'samples/count off-cpu/nanoseconds')" ]
else
    skip offcpu_pprof_weighs_ns "go (golang-go) is not installed"
fi
check offcpu_callers_of_nap grep -qE '^ +[0-9.]+%    napspin$' \
    <("$PROSPECT" report -i "$TEST_TMP/off.data" --off-cpu --callers nap)
# The Prospect report of the file: its Off-CPU Time section, nap's path with >= 200 ms.
"$PROSPECT" report -i "$TEST_TMP/off.data" > "$TEST_TMP/off.txt" 2>/dev/null
check offcpu_prospect_report_section [ -n "$(awk '/^Off-CPU Time$/ { on = 1 } on && /napspin > nap > / && $1 >= 200' "$TEST_TMP/off.txt")" ]
# Filters keep perf's absolute shares for waits too: --pid of the only process changes nothing
# (the total was the sched_switch samples' count, not the ns: nap showed millions of percent).
pid=$(sed -n 's/^  Process \([0-9]*\) cg_shapes: .* off CPU .*/\1/p' "$TEST_TMP/off.txt" | head -1)
check offcpu_filtered_shares_absolute [ -n "$pid" -a "$(share "$TEST_TMP/off.data" nap --off-cpu --pid "$pid")" = "$n" ]
# A wait's path too long for the line loses its kernel frames (always the scheduler's) first,
# so the user frame that blocked (nap) is the last one named.
check offcpu_paths_keep_the_user_frames grep -qE '^ +[0-9.]+ +[0-9.]+% +[0-9]+  .*napspin > nap > \.\.\. [0-9]+ \[k\]$' \
    "$TEST_TMP/off.txt"
out=$("$PROSPECT" report -i "$TEST_TMP/deep.data" --off-cpu --children -g none 2>&1)
check offcpu_file_without_switches_fails [ $? -eq 1 -a -n "$(grep "no sched:sched_switch event" <<<"$out")" ]
# (`report --off-cpu` alone is the Children/Self table of the waits: offcpu_alone_* above.)
# The raw fields are read where the file's own sched_switch format (its tracing data) puts
# them: with prev_state renamed there, the report says preemptions now count as waits.
python3 - "$TEST_TMP/off.data" "$TEST_TMP/off_nostate.data" <<'EOF2'
import sys
d = open(sys.argv[1], 'rb').read()
assert d.count(b'field:long prev_state;') == 1
open(sys.argv[2], 'wb').write(d.replace(b'field:long prev_state;', b'field:long prev_statX;'))
EOF2
out=$("$PROSPECT" report -i "$TEST_TMP/off_nostate.data" --off-cpu --format folded 2>&1 >/dev/null)
check offcpu_fields_from_the_file_s_format [ -n "$(grep "off_nostate.data: sched_switch's format has no prev_state: preemptions count as waits" <<<"$out")" -a \
    -z "$("$PROSPECT" report -i "$TEST_TMP/off.data" --off-cpu --format folded 2>&1 >/dev/null | grep format)" ]
# perf's per-thread sched_switch file without --switch-events: a wait ends only when a traced
# thread switches to another one, so most never end; the report says why and how many.
if command -v perf >/dev/null && precord -e sched:sched_switch -g -o "$TEST_TMP/pt.data" -- "$CS" napspin; then
    out=$("$PROSPECT" report -i "$TEST_TMP/pt.data" --off-cpu --format folded 2>&1 >/dev/null)
    check offcpu_unended_waits_explained grep -qE "note: [0-9]+ of [0-9]+ waits of 'sched:sched_switch' never ended: the file has no switch-in" <<<"$out"
else
    skip offcpu_unended_waits_explained "perf cannot record sched:sched_switch here"
fi
# perf reads the file: the tracepoint's formats are in it (HEADER_TRACING_DATA).
if command -v perf >/dev/null; then
    check offcpu_file_read_by_perf_script grep -q "sched:sched_switch: prev_comm=cg_shapes prev_pid=[0-9]* .*prev_state=S ==>" \
        <(perf script -i "$TEST_TMP/off.data" -F comm,event,trace 2>/dev/null)
fi
# run --off-cpu -g: both, in one report.
"$PROSPECT" run --off-cpu -g -o "$TEST_TMP/run_off.txt" -- "$CS" napspin >/dev/null 2>&1
check run_off_cpu_section [ -n "$(awk '/^Off-CPU Time$/ { on = 1 } on && /napspin > nap > / && $1 >= 200' "$TEST_TMP/run_off.txt")" -a \
    -n "$(grep -E '^ +[0-9.]+%  .*napspin > spin' "$TEST_TMP/run_off.txt")" -a \
    -z "$(awk 'length($0) > 100' "$TEST_TMP/run_off.txt")" ]
