#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# prospect stat: bad input and faults (issue 4, section 4) with exact exit statuses and
# messages, and the whole-program mode.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/stat_lib.sh"
W=$WL
build_workload stat_status stat_status -O2 -g || { fail build stat_status; exit 0; }
build_workload stat_pages stat_pages -O2 -g
build_workload stat_fib stat_fib -O0 -g
gcc -O2 -o "$W/stat_stripped" "$(dirname "$0")/../workloads/stat_status.c" -s
gcc -O2 -g -o "$W/stat_ambig" "$(dirname "$0")/../workloads/stat_ambig_a.c" \
    "$(dirname "$0")/../workloads/stat_ambig_b.c"
err=$TEST_TMP/stat_err

# Exit status passed through, signal death mirrored as 128+N (like a shell and /bin/time).
"$PROSPECT" stat -e task-clock "$W/stat_status" 42 >/dev/null 2>&1
check program_status_passed_through [ $? = 42 ]
"$PROSPECT" stat -e task-clock "$W/stat_status" -11 >/dev/null 2>"$err"
check program_signal_mirrored [ $? = 139 ]
check program_signal_named grep -q "command terminated by signal 11" "$err"

# Commands that cannot run: 127 not found, 126 not executable (no report).
"$PROSPECT" stat /nonexistent/prog >"$TEST_TMP/o" 2>"$err"
check missing_command_127 [ $? = 127 ]
check missing_command_message grep -q "cannot run '/nonexistent/prog': No such file or directory" "$err"
check missing_command_no_report [ ! -s "$TEST_TMP/o" ]
printf 'x' >"$TEST_TMP/notexec"; chmod 644 "$TEST_TMP/notexec"
"$PROSPECT" stat "$TEST_TMP/notexec" >/dev/null 2>"$err"
check not_executable_126 [ $? = 126 ]

# Usage errors: exit 2 with a one-line message and a hint.
"$PROSPECT" stat -r stat_status.c:abc "$W/stat_status" 0 >/dev/null 2>"$err"
check bad_line_number_usage_2 [ $? = 2 ]
check bad_line_number_message grep -q "^prospect stat: region 'stat_status.c:abc': 'abc' is not a line number" "$err"
# Another user's process: the cause is named, and that perf_event_paranoid is no remedy.
if can_be_nobody; then
    as_nobody "$PROSPECT" stat -p 1 -d 1 >/dev/null 2>"$err"
    check other_user_status_1 [ $? = 1 ]
    check other_user_message grep -q "on process 1: it is another user's process (uid 0); only its owner or root can measure it (lowering perf_event_paranoid will not help)" "$err"
    check other_user_no_sysctl_hint bash -c "! grep -q sysctl '$err'"
else
    skip other_user "needs root, setpriv and a user nobody who can run $PROSPECT"
fi
"$PROSPECT" stat -e no-such-event true >/dev/null 2>"$err"
check bad_event_usage_2 [ $? = 2 ]
check bad_event_message grep -q "unknown event 'no-such-event'" "$err"
"$PROSPECT" stat >/dev/null 2>"$err"
check no_command_usage_2 [ $? = 2 ]
"$PROSPECT" stat --sort-key bogus -r called_once "$W/stat_status" 0 >/dev/null 2>"$err"
rc=$?
if uprobes_ready; then
    check bad_sort_key_usage_2 [ $rc = 2 ]
    check bad_sort_key_message grep -q "unknown sort key 'bogus'" "$err"
fi

# An event that does not open here: the open advice, exit 1.
if "$PROSPECT" list hardware | grep -q '^  cycles$'; then
    skip hw_event_advice "this machine has hardware counters: cycles opens"
else
    "$PROSPECT" stat -e cycles true >/dev/null 2>"$err"
    check hw_event_exit_1 [ $? = 1 ]
    check hw_event_advice grep -q "hardware counters are not available to this machine" "$err"
fi

# --cpu N: the command runs on that CPU only; an offline CPU is an error, garbage a usage error.
"$PROSPECT" stat --csv -o "$TEST_TMP/cpu.csv" -e cpu-migrations --cpu 0 "$W/stat_status" 0 >/dev/null 2>&1
check cpu_pin_no_migrations [ "$(awk -F, '$1 == "cpu-migrations" { print $2 }' "$TEST_TMP/cpu.csv")" = 0 ]
"$PROSPECT" stat --cpu 1000 true >/dev/null 2>"$err"
check cpu_pin_offline_exit_1 [ $? = 1 ]
check cpu_pin_offline_message grep -q "CPU 1000 does not exist or is offline" "$err"
"$PROSPECT" stat --cpu x true >/dev/null 2>&1
check cpu_pin_garbage_usage_2 [ $? = 2 ]

# Whole-program mode counts like perf stat: N page faults at least, perf agrees within 2%.
"$PROSPECT" stat --csv -o "$TEST_TMP/p.csv" -e page-faults,task-clock "$W/stat_pages" 3000 >/dev/null 2>&1
pf=$(awk -F, '$1 == "page-faults" { print $2 }' "$TEST_TMP/p.csv")
check program_mode_page_faults [ "${pf:-0}" -ge 3000 ]
if command -v perf >/dev/null && perf stat -x, -e page-faults true >/dev/null 2>&1; then
    ppf=$(perf stat -x, -e page-faults "$W/stat_pages" 3000 2>&1 >/dev/null | awk -F, '/page-faults/ { print $1 }')
    check program_mode_agrees_with_perf within 2 "${pf:-0}" "${ppf:-1}"
else
    skip program_mode_agrees_with_perf "perf is not usable here"
fi
"$PROSPECT" stat --csv -o "$TEST_TMP/g.csv" -e task-clock -g page-faults,minor-faults "$W/stat_pages" 3000 >/dev/null 2>&1
check program_mode_group_both_counted [ "$(awk -F, '$1 == "minor-faults" { print $2 }' "$TEST_TMP/g.csv")" -ge 3000 ]
"$PROSPECT" stat "$W/stat_status" 0 >"$TEST_TMP/o" 2>&1
check program_mode_text grep -q "seconds time elapsed" "$TEST_TMP/o"

if ! uprobes_ready; then
    skip stat_region_errors "no writable tracefs uprobe_events (region tracing needs it)"
    exit 0
fi
# Stripped binary + file:line: DWARF is needed.
"$PROSPECT" stat -r stat_status.c:20-stat_status.c:22 "$W/stat_stripped" 0 >/dev/null 2>"$err"
check stripped_lines_exit_1 [ $? = 1 ]
check stripped_lines_message grep -q "DWARF is needed for file:line regions; rebuild with -g" "$err"
# A line with no code: the nearest lines that have some.
"$PROSPECT" stat -r stat_status.c:1-stat_status.c:30 "$W/stat_status" 0 >/dev/null 2>"$err"
check line_without_code_exit_1 [ $? = 1 ]
check line_without_code_message grep -q "no code starts at stat_status.c:1 (only certain line numbers are available); nearest: stat_status.c:" "$err"
# Missing function: close matches suggested; --ignore-missing-regions goes on with 0 calls.
"$PROSPECT" stat -r fibb "$W/stat_fib" >/dev/null 2>"$err"
check missing_region_exit_1 [ $? = 1 ]
check missing_region_suggests grep -q "no function 'fibb' in .*; did you mean fib" "$err"
"$PROSPECT" stat -s --csv -o "$TEST_TMP/m.csv" --ignore-missing-regions -r fibb -r fib "$W/stat_fib" >/dev/null 2>"$err"
check ignore_missing_goes_on [ $? = 0 ]
check ignore_missing_zero_calls [ "$(csv_get "$TEST_TMP/m.csv" fibb calls)" = 0 ]
check ignore_missing_other_counted [ "$(csv_get "$TEST_TMP/m.csv" fib crossings)" = 2 ]
check ignore_missing_warns grep -q "warning: no function 'fibb'" "$err"
# Ambiguous name: the candidates are listed.
"$PROSPECT" stat -r helper "$W/stat_ambig" >/dev/null 2>"$err"
check ambiguous_exit_1 [ $? = 1 ]
check ambiguous_lists_candidates grep -q "'helper' is ambiguous in .*; candidates: helper (0x[0-9a-f]*), helper (0x" "$err"
# Malformed region: usage error.
"$PROSPECT" stat -r "stat_status.c:12" "$W/stat_status" 0 >/dev/null 2>"$err"
check line_without_end_usage_2 [ $? = 2 ]
# A region's exit status and signal pass through as in program mode.
"$PROSPECT" stat -r called_once "$W/stat_status" -6 >/dev/null 2>&1
check region_signal_mirrored [ $? = 134 ]
check no_probes_left_behind no_probes_left

# A bad -o path or --sort-key is an error before the workload runs (its results are never
# computed and lost).
build_workload stat_sum_noinl2 stat_sum -O2 -g -DNOINLINE
out=$("$PROSPECT" stat -s --sort-key bogus -r sum -- "$WL/stat_sum_noinl2" 2>"$TEST_TMP/sk.err"); rc=$?
check early_sort_key_status [ "$rc" -eq 2 ]
check early_sort_key_not_run [ -z "$out" ]
check early_sort_key_message grep -q "unknown sort key 'bogus'" "$TEST_TMP/sk.err"
out=$("$PROSPECT" stat -o /nonexistent/dir/x -r sum -- "$WL/stat_sum_noinl2" 2>"$TEST_TMP/o.err"); rc=$?
check early_output_status [ "$rc" -eq 1 ]
check early_output_not_run [ -z "$out" ]
out=$("$PROSPECT" stat -o /nonexistent/dir/x -- "$WL/stat_sum_noinl2" 2>/dev/null); rc=$?
check early_output_whole_program [ "$rc" -eq 1 ] && [ -z "$out" ]
