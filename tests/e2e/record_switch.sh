# SPDX-License-Identifier: MIT
# Continuous recording (issue 23, section 5): record -a --switch-output rotates into parts
# named as perf names them, each complete and reportable alone (perf is the oracle), with no
# sample lost or doubled between parts: the workload fires a tracepoint an exact number of
# times (getppid, 1 + PARTS * CALLS), so the parts' sum is exact. --switch-max-files keeps the
# newest parts.
. "$(dirname "$0")/lib.sh"

d=$TEST_TMP/record_switch
mkdir -p "$d"
TP=syscalls:sys_enter_getppid
if ! command -v perf >/dev/null; then
    skip record_switch "perf is not installed (the oracle that reads the parts)"
    exit 0
fi
if ! "$PROSPECT" record -a -e $TP -c 1 -o "$d/probe.data" -- true >/dev/null 2>&1; then
    skip record_switch "tracepoint $TP cannot be recorded system-wide here"
    exit 0
fi
build_workload switch_parts switch_parts -O1 -fno-omit-frame-pointer ||
    { fail record_switch_build "cannot build tests/workloads/switch_parts.c"; exit 0; }
CALLS=3000

# count FILE: the workload's samples in FILE, as perf script reads them.
count() { perf script -i "$1" -F comm 2>/dev/null | awk '$1 == "switch_parts"' | wc -l; }
# sum FILES...: the same over several files.
sum() { local f t=0; for f in "$@"; do t=$((t + $(count "$f"))); done; echo $t; }

# One uninterrupted recording, then the same rotated by SIGUSR2 into four parts.
"$PROSPECT" record -a -m 1024 -e $TP -c 1 -o "$d/one.data" -- \
    "$WL/switch_parts" "$d/one.data" 1 $((4 * CALLS)) 2>"$d/one.err"
mkdir -p "$d/sig"
"$PROSPECT" record -a -g -m 1024 -e $TP -c 1 --switch-output -o "$d/sig/perf.data" -- \
    "$WL/switch_parts" "$d/sig/perf.data" 4 $CALLS 2>"$d/sig.err"
rc=$?
check record_switch_exit_status [ $rc -eq 0 ]
parts=("$d"/sig/perf.data.*)
check record_switch_four_parts [ ${#parts[@]} -eq 4 ]
check record_switch_no_unrenamed_part [ ! -e "$d/sig/perf.data" ]
bad=$(ls "$d/sig" | grep -Evc '^perf\.data\.[0-9]{16}$')
check record_switch_named_as_perf [ "$bad" -eq 0 ]
check record_switch_says_each_part [ "$(grep -c 'wrote [0-9]* samples .* to .*perf\.data\.' "$d/sig.err")" -eq 4 ]
total=$(sum "${parts[@]}")
check record_switch_uninterrupted_exact [ "$(count "$d/one.data")" -eq $((1 + 4 * CALLS)) ]
if [ "$total" -eq $((1 + 4 * CALLS)) ]; then
    pass record_switch_parts_sum_exact
else
    fail record_switch_parts_sum_exact "parts hold $total samples of the workload, expected $((1 + 4 * CALLS)); per part: $(for f in "${parts[@]}"; do count "$f"; done | tr '\n' ' ')"
fi
# SIGUSR2 ends the part after a drain that began after it: each phase is in a part of its own.
per=$(for f in "${parts[@]}"; do count "$f"; done | tr '\n' ' ')
check record_switch_signal_phase_per_part [ "$per" = "$((CALLS + 1)) $CALLS $CALLS $CALLS " ]
ok=0
for f in "${parts[@]}"; do
    perf report -i "$f" --stdio >/dev/null 2>&1 && "$PROSPECT" report -i "$f" >/dev/null 2>&1 &&
        ok=$((ok + 1))
done
check record_switch_each_part_reportable [ $ok -eq 4 ]
# A middle part knows the processes and their maps without its predecessors: the call chains
# of its samples name the workload's main in its executable.
check record_switch_middle_part_symbolized grep -q "main+0x[0-9a-f]* ($WL/switch_parts)" \
    <(perf script -i "${parts[2]}" 2>/dev/null)

# The parts read as one (report, script, diff: -i A -i B, or a quoted glob): the workload's
# rows hold the same samples as the uninterrupted recording's, and script prints what perf
# script prints for each part, one after the other.
rows() { "$PROSPECT" report "$@" --flat --sort comm,dso,sym --format csv 2>/dev/null |
    awk -F, '$4 == "switch_parts" { print $2, $4, $5, $6 }' | sort; }
rows -i "$d/one.data" >"$d/one.rows"
rows -i "$d/sig/perf.data.*" >"$d/glob.rows"
irgs=(); for f in "${parts[@]}"; do irgs+=(-i "$f"); done
rows "${irgs[@]}" >"$d/list.rows"
check report_parts_rows_nonempty [ -s "$d/one.rows" ]
check report_parts_glob_equals_one cmp -s "$d/one.rows" "$d/glob.rows"
check report_parts_list_equals_glob cmp -s "$d/glob.rows" "$d/list.rows"
# The workload's samples (a header line and its chain): another process that ends at a
# rotation may have samples in the next part without its maps, which perf, reading that part
# alone, cannot name and Prospect, reading the parts as one, can.
mine() { awk '/^[^ \t]/ { keep = $1 == "switch_parts" } keep'; }
for f in "${parts[@]}"; do perf script -i "$f" 2>/dev/null; done | mine >"$d/parts.perf"
"$PROSPECT" script -i "$d/sig/perf.data.*" 2>"$d/parts.err" | mine >"$d/parts.ours"
check script_parts_nonempty [ -s "$d/parts.perf" ]
check script_parts_match_perf_each_part cmp -s "$d/parts.perf" "$d/parts.ours"
"$PROSPECT" diff --format csv "$d/one.data" "$d/sig/perf.data.*" >"$d/diff.csv" 2>"$d/diff.err"
check diff_parts_reads_glob [ $? -eq 0 ]
check diff_parts_same_symbols_as_one awk -F, '$5 == "syscall" && $3 > -1 && $3 < 1 { ok = 1 }
    END { exit !ok }' "$d/diff.csv"
"$PROSPECT" report -i "$d/one.data" -i "$d/absent/perf.data.*" >/dev/null 2>"$d/nomatch.err"
check report_glob_no_match_status [ $? -eq 2 ]
check report_glob_no_match_says grep -q "absent/perf.data.\*: no file matches" "$d/nomatch.err"
"$PROSPECT" record -e cpu-clock -o "$d/clock.data" -- true 2>/dev/null
"$PROSPECT" report -i "$d/one.data" -i "$d/clock.data" >/dev/null 2>"$d/other.err"
check report_inputs_other_events_refused grep -q "clock.data: recorded with other events" \
    "$d/other.err"

# --switch-max-files 2: the two newest parts stay, the last two phases.
mkdir -p "$d/max"
"$PROSPECT" record -a -m 1024 -e $TP -c 1 --switch-output --switch-max-files 2 \
    -o "$d/max/perf.data" -- "$WL/switch_parts" "$d/max/perf.data" 4 $CALLS 2>"$d/max.err"
kept=("$d"/max/perf.data.*)
check record_switch_max_files_kept [ ${#kept[@]} -eq 2 ]
check record_switch_max_files_newest [ "$(sum "${kept[@]}")" -eq $((2 * CALLS)) ]
check record_switch_max_files_says [ "$(grep -c 'removed .*perf\.data\.' "$d/max.err")" -eq 2 ]

# By size: 100K of data per part; no signal, and still every sample once.
mkdir -p "$d/size"
"$PROSPECT" record -a -m 1024 -e $TP -c 1 --switch-output=100K -o "$d/size/perf.data" -- \
    "$WL/switch_parts" "$d/size/perf.data" 1 $((4 * CALLS)) 2>"$d/size.err"
sparts=("$d"/size/perf.data.*)
# (a part ends after the drain that passes the size: a loaded machine drains the ~1 MB of
# samples in fewer, larger reads, so how many parts depends on the timing; at least two)
check record_switch_size_rotates [ ${#sparts[@]} -ge 2 ]
check record_switch_size_sum_exact [ "$(sum "${sparts[@]}")" -eq $((1 + 4 * CALLS)) ]

# By time: each phase of the workload waits for the next part, which only the clock brings
# (its SIGUSR2 rotates nothing here and must not end the recording, as perf).
mkdir -p "$d/time"
timeout 300 "$PROSPECT" record -a -m 1024 -e $TP -c 1 --switch-output=1s -o "$d/time/perf.data" \
    -- "$WL/switch_parts" "$d/time/perf.data" 3 $CALLS 2>"$d/time.err"
check record_switch_time_exit_status [ $? -eq 0 ]
tparts=("$d"/time/perf.data.*)
check record_switch_time_rotates [ ${#tparts[@]} -ge 3 ]
check record_switch_time_sum_exact [ "$(sum "${tparts[@]}")" -eq $((1 + 3 * CALLS)) ]

# Bad values: one line and the usage status; no file left behind.
"$PROSPECT" record -a --switch-output=10x -o "$d/bad.data" -- true 2>"$d/bad.err"
check record_switch_bad_value_status [ $? -eq 2 ]
check record_switch_bad_value_says grep -q -- "--switch-output=10x: not signal" "$d/bad.err"
"$PROSPECT" record -a --switch-output -o - -- true >"$d/pipe.out" 2>"$d/pipe.err"
check record_switch_not_with_pipe [ $? -eq 2 ]
