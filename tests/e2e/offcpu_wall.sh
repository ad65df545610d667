# SPDX-License-Identifier: MIT
# The wall-clock view (issue 23, section 4): `report --wall` shows on-CPU samples and off-CPU time
# in one graph weighed in ns, each wait below an [off-cpu] frame and the time a preempted thread
# waited to run below [runnable]. Its parts equal the reports of each side alone: the waits
# equal `report --off-cpu`, the on-CPU stacks equal the samples times the fixed period (-c),
# the runnable time equals the Off-CPU Time section's "runnable, not running".
. "$(dirname "$0")/lib.sh"

build_workload callgraph callgraph -O0 -fno-omit-frame-pointer ||
    { fail wall_build "cannot build tests/workloads/callgraph.c"; exit 0; }
if ! command -v taskset >/dev/null; then
    skip wall_view "taskset (util-linux) is not installed"
    exit 0
fi
D=$TEST_TMP
P=1000000
# "nap" sleeps 1 ms a round (waits); a hog on the same CPU preempts the rounds (runnable time)
cpu=$(taskset -pc $$ | awk -F': ' '{ split($2, a, "[,-]"); print a[1] }')
taskset -c "$cpu" sh -c 'while :; do :; done' &
hog=$!
out=$("$PROSPECT" record --off-cpu -g -e cpu-clock -c $P -o "$D/w.data" -- \
      taskset -c "$cpu" "$WL/callgraph" 60 nap 2>&1)
rc=$?
kill "$hog"
wait "$hog" 2>/dev/null
if [ $rc -ne 0 ]; then
    if grep -qi "permission\|not supported\|tracepoint" <<<"$out"; then
        skip wall_view "record --off-cpu cannot trace sched_switch here: $(head -1 <<<"$out")"
    else
        fail wall_record "prospect record --off-cpu failed: $(head -3 <<<"$out")"
    fi
    exit 0
fi

"$PROSPECT" report -i "$D/w.data" --wall --format folded > "$D/wall.folded" 2> "$D/wall.err"
check wall_folded_exit_0 [ $? -eq 0 ]
check wall_has_waits grep -q ';\[off-cpu\] [0-9]*$' "$D/wall.folded"

# the waits: the same stacks and ns as --off-cpu alone
"$PROSPECT" report -i "$D/w.data" --off-cpu --format folded 2>/dev/null | sort > "$D/off.folded"
sed -n 's/;\[off-cpu\] \([0-9]*\)$/ \1/p' "$D/wall.folded" | sort > "$D/wall.off"
check wall_waits_equal_off_cpu cmp -s "$D/off.folded" "$D/wall.off"

# the on-CPU stacks: the samples of cpu-clock, each weighing the period in ns
"$PROSPECT" report -i "$D/w.data" --format folded 2>/dev/null |
    awk -v p=$P '{ n = $NF; $NF = n * p; print }' | sort > "$D/on.folded"
grep -v ';\[off-cpu\] [0-9]*$\|;\[runnable\] [0-9]*$' "$D/wall.folded" | sort > "$D/wall.on"
check wall_on_cpu_equals_samples_times_period cmp -s "$D/on.folded" "$D/wall.on"

# the runnable time: the Off-CPU Time section's total, to its 4 decimals
"$PROSPECT" report -i "$D/w.data" > "$D/w.txt" 2>/dev/null
want=$(sed -n 's/.*runnable, not running: \([0-9.]*\) s.*/\1/p' "$D/w.txt")
got=$(awk '/;\[runnable\] [0-9]+$/ { s += $NF } END { printf "%.4f", s / 1e9 }' "$D/wall.folded")
if [ -z "$want" ]; then
    skip wall_runnable_equals_section "the hog never preempted the workload (no runnable line)"
else
    check wall_runnable_equals_section [ "$got" = "$want" ]
fi

# the table: [off-cpu] is a row of its own, DSO [wall], its Self the waits' share
"$PROSPECT" report -i "$D/w.data" --wall --no-children -g none > "$D/wall.txt" 2>&1
offns=$(awk '/^callgraph;/ { s += $NF } END { print s }' "$D/wall.off")   # taskset's own: a row apart
all=$(awk '{ s += $NF } END { print s }' "$D/wall.folded")
share=$(awk -v a="$offns" -v b="$all" 'BEGIN { printf "%.2f%%", 100 * a / b }')
check wall_table_off_cpu_row grep -q "^ *$share  *callgraph  *\[wall\]  *\[\.\] \[off-cpu\]" "$D/wall.txt"
check wall_table_names_the_view grep -q "^# .*wall-clock time in ns" "$D/wall.txt"

# every stack output takes the view (weights in ns)
for f in svg pprof speedscope html; do
    "$PROSPECT" report -i "$D/w.data" --wall --format $f -o "$D/wall.$f" >/dev/null 2>&1
    check "wall_format_${f}_written" [ -s "$D/wall.$f" ]
done
check wall_svg_marks_waits grep -q '\[off-cpu\]' "$D/wall.svg"

# errors: no switch event; no clock event; with --off-cpu
"$PROSPECT" record -g -o "$D/plain.data" -- "$WL/callgraph" 5 >/dev/null 2>&1
"$PROSPECT" report -i "$D/plain.data" --wall > /dev/null 2> "$D/e1"; rc=$?
check wall_needs_switch_event [ $rc -eq 1 ]
check wall_needs_switch_event_said grep -q "plain.data: no sched:sched_switch.*--off-cpu" "$D/e1"
if "$PROSPECT" record --off-cpu -g -e page-faults -c 1 -o "$D/pf.data" -- "$WL/callgraph" 5 \
       >/dev/null 2>&1; then
    "$PROSPECT" report -i "$D/pf.data" --wall > /dev/null 2> "$D/e2"; rc=$?
    check wall_needs_clock_event [ $rc -eq 1 ]
    check wall_needs_clock_event_said grep -q "cpu-clock or task-clock.*'page-faults'" "$D/e2"
fi
"$PROSPECT" report -i "$D/w.data" --wall --off-cpu > /dev/null 2>&1
check wall_with_off_cpu_is_usage_error [ $? -eq 2 ]
