#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# prospect stat as a perf user expects it (issue 9, sections 2 and 5): results never in the
# command's standard output, --repeat, -a, -x, -I, rates, user/sys times, :u units, user-space
# counts for an unprivileged user, one meaning of --duration for stat and run (the command is
# never killed), and tables that fit 100 columns.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/stat_lib.sh"
W=$WL
build_workload stat_binout stat_binout -O1 -g || { fail build "stat_binout"; exit 0; }

# 1. The command's standard output is its own, byte for byte: whole program, CSV, regions.
"$W/stat_binout" 300 >"$TEST_TMP/alone.bin"
"$PROSPECT" stat -- "$W/stat_binout" 300 >"$TEST_TMP/p.bin" 2>"$TEST_TMP/p.err"
check stdout_untouched_program cmp -s "$TEST_TMP/alone.bin" "$TEST_TMP/p.bin"
check stat_results_on_stderr grep -q "task-clock" "$TEST_TMP/p.err"
"$PROSPECT" stat --csv -- "$W/stat_binout" 300 >"$TEST_TMP/c.bin" 2>"$TEST_TMP/c.err"
check stdout_untouched_csv cmp -s "$TEST_TMP/alone.bin" "$TEST_TMP/c.bin"
check csv_on_stderr grep -q "^task-clock,[0-9]*,ns," "$TEST_TMP/c.err"
"$PROSPECT" stat --csv -o "$TEST_TMP/c.csv" -- "$W/stat_binout" 300 >"$TEST_TMP/co.bin" 2>/dev/null
check csv_file_has_no_command_output not grep -qa "$(head -c 16 "$TEST_TMP/alone.bin" | tr -d '\0' | head -c 4)" "$TEST_TMP/c.csv"
check csv_file_is_all_csv awk -F, 'NF != 7 { exit 1 }' "$TEST_TMP/c.csv"
if uprobes_ready; then
    "$PROSPECT" stat -r emit -- "$W/stat_binout" 300 >"$TEST_TMP/r.bin" 2>"$TEST_TMP/r.err"
    check stdout_untouched_region cmp -s "$TEST_TMP/alone.bin" "$TEST_TMP/r.bin"
    check region_results_on_stderr grep -q "emit: 300 calls" "$TEST_TMP/r.err"
    "$PROSPECT" stat -s --csv -r emit -- "$W/stat_binout" 300 >"$TEST_TMP/rc.bin" 2>/dev/null
    check stdout_untouched_region_csv cmp -s "$TEST_TMP/alone.bin" "$TEST_TMP/rc.bin"
else
    skip stdout_untouched_region "no writable tracefs uprobe_events (region tracing needs it)"
fi

# 2. perf's habits. --repeat N: means and their variation.
"$PROSPECT" stat --repeat 3 -e task-clock,page-faults -o "$TEST_TMP/rep.txt" -- "$W/stat_binout" 10 >/dev/null 2>&1
check repeat_runs grep -q "Counter stats for '.*stat_binout 10' (3 runs)" "$TEST_TMP/rep.txt"
check repeat_variation grep -q "page-faults .*( +- *[0-9.]*% )" "$TEST_TMP/rep.txt"
"$PROSPECT" stat --repeat 3 --csv -e page-faults -o "$TEST_TMP/rep.csv" -- "$W/stat_binout" 10 >/dev/null 2>&1
check repeat_csv_variation grep -q "^page-faults,[0-9]*,,[0-9]*,[0-9]*,[0-9.]*,[0-9.]*$" "$TEST_TMP/rep.csv"
"$PROSPECT" stat -r 3 -- true >/dev/null 2>"$TEST_TMP/r3.err"; rc=$?
check dash_r_is_region [ "$rc" -ne 0 ]
"$PROSPECT" stat --help 2>&1 | grep -q -- "--repeat here, as -r is Perforator's region flag"
check help_says_r_is_region [ $? -eq 0 ]
# Rates and CPU times, as perf stat prints them.
"$PROSPECT" stat -o "$TEST_TMP/rates.txt" -- "$W/stat_binout" 10 >/dev/null 2>&1
check rate_cpus_utilized grep -q "msec task-clock .*# *[0-9.]* CPUs utilized" "$TEST_TMP/rates.txt"
check rate_per_sec grep -q " page-faults .*# *[0-9.]* [KMG]*/sec" "$TEST_TMP/rates.txt"
check seconds_user grep -q "^ *[0-9.]* seconds user$" "$TEST_TMP/rates.txt"
check seconds_sys grep -q "^ *[0-9.]* seconds sys$" "$TEST_TMP/rates.txt"
# -x SEP: CSV with another separator (a field holding it is quoted).
"$PROSPECT" stat -x';' -e task-clock -o "$TEST_TMP/x.csv" -- true >/dev/null 2>&1
check x_separator grep -q "^task-clock;[0-9]*;ns;[0-9]*;[0-9]*;[0-9.]*;$" "$TEST_TMP/x.csv"
check x_header grep -q "^event;value;unit;enabled_ns;running_ns;pct_running;variation_pct$" "$TEST_TMP/x.csv"
# :u / :k keep the unit of the event (task-clock is time: msec, not a count of ns).
"$PROSPECT" stat -e task-clock:u,page-faults:u -o "$TEST_TMP/u.txt" -- true >/dev/null 2>&1
check modifier_time_unit grep -q "msec task-clock:u" "$TEST_TMP/u.txt"
check modifier_count_rate grep -q "page-faults:u .*/sec" "$TEST_TMP/u.txt"
# -I MSEC: one block of counts per interval while a command runs. The command waits on a
# FIFO until the first interval has been printed (no sleeping: the FIFO orders the events).
fifo=$TEST_TMP/iv.fifo; mkfifo "$fifo"
exec 8<>"$fifo"    # held open read-write: a write never blocks, whatever happens
timeout -s KILL 60 "$PROSPECT" stat -I 50 -e task-clock,page-faults -- sh -c "read x <'$fifo'" \
    2>&1 >/dev/null | tee "$TEST_TMP/iv.pipe" |
    { grep -q -m1 'page-faults$'; echo go >&8; cat >/dev/null; }
rc=${PIPESTATUS[0]}
echo go >&8
exec 8<&-
check interval_status [ "$rc" -eq 0 ]
check interval_header grep -q "^# *time *counts unit event" "$TEST_TMP/iv.pipe"
check interval_lines [ "$(grep -c 'page-faults$' "$TEST_TMP/iv.pipe")" -ge 2 ]
"$PROSPECT" stat -I 5 -- true >/dev/null 2>&1
check interval_minimum [ $? -eq 2 ]
# -a: every CPU, while the command runs.
"$PROSPECT" stat -a -e task-clock -o "$TEST_TMP/a.txt" -- true >/dev/null 2>&1; rc=$?
check system_wide_status [ "$rc" -eq 0 ]
check system_wide_title grep -q "Counter stats for 'system wide'" "$TEST_TMP/a.txt"
"$PROSPECT" stat -a -r main -- true >/dev/null 2>&1
check system_wide_not_with_regions [ $? -eq 2 ]

# 3. --duration means the same for stat and run: measure that long, print the results, never
# kill the command; wait for it and exit with its status. The command blocks on a FIFO until
# the note that measuring ended has been read, so it is certainly still running then.
for cmd in stat run; do
    fifo=$TEST_TMP/d_$cmd.fifo; mkfifo "$fifo"
    exec 9<>"$fifo"
    timeout -s KILL 60 "$PROSPECT" $cmd -d 0.2 -o "$TEST_TMP/d_$cmd.txt" -- sh -c "read x <'$fifo'; exit 7" \
        2>&1 >/dev/null | tee "$TEST_TMP/d_$cmd.err" |
        { grep -q -m1 "runs on unmeasured\\|runs on unprofiled"
          [ -s "$TEST_TMP/d_$cmd.txt" ] && echo printed >"$TEST_TMP/d_$cmd.early"
          echo go >&9; cat >/dev/null; }
    rc=${PIPESTATUS[0]}
    echo go >&9    # a command still waiting (before the fix: run waited for it) may end
    exec 9<&-
    check ${cmd}_duration_command_not_killed [ "$rc" -eq 7 ]
    check ${cmd}_duration_says_waiting grep -q "measured for 0.2 s\\|profiled for 0.2 s" "$TEST_TMP/d_$cmd.err"
    check ${cmd}_duration_results_at_the_end_of_duration [ -f "$TEST_TMP/d_$cmd.early" ]
done
# Regions too: the results cover the measured part (the command's later calls are not
# counted), the probes are removed, the command finishes with its own status.
if uprobes_ready; then
    fifo=$TEST_TMP/d_region.fifo; mkfifo "$fifo"
    exec 9<>"$fifo"
    timeout -s KILL 60 "$PROSPECT" stat -d 0.2 -r emit -o "$TEST_TMP/d_region.txt" -- "$W/stat_binout" 5 "$fifo" \
        2>&1 >/dev/null | tee "$TEST_TMP/d_region.err" |
        { grep -q -m1 "runs on unmeasured"; no_probes_left && echo gone >"$TEST_TMP/d_region.gone"
          echo go >&9; cat >/dev/null; }
    rc=${PIPESTATUS[0]}
    echo go >&9
    exec 9<&-
    check region_duration_command_not_killed [ "$rc" -eq 7 ]
    calls=$(sed -n 's/^emit: \([0-9]*\) calls.*/\1/p' "$TEST_TMP/d_region.txt")
    check region_duration_counts_measured_part [ -n "$calls" ] && [ "$calls" -le 5 ]
    check region_duration_probes_removed_before_wait [ -f "$TEST_TMP/d_region.gone" ]
else
    skip region_duration_command_not_killed "no writable tracefs uprobe_events (region tracing needs it)"
fi
grep -q "still running when --duration ended" "$TEST_TMP/d_run.txt"
check run_duration_outcome [ $? -eq 0 ]
"$PROSPECT" stat --help 2>&1 | grep -q "running is not killed: prospect waits for it"
check stat_help_duration [ $? -eq 0 ]
"$PROSPECT" run --help 2>&1 | grep -q "killed: prospect waits for it and exits with its status"
check run_help_duration [ $? -eq 0 ]

# 4. Region tables fit 100 columns by default; -v and CSV keep the full names.
if uprobes_ready; then
    src=$(dirname "$0")/../workloads/stat_binout.c
    l1=$(grep -n "int n = argc" "$src" | cut -d: -f1); l2=$(grep -n "if (argc > 2)" "$src" | cut -d: -f1)
    long="stat_binout.c:$l1-stat_binout.c:$l2"    # longer than the summary's name column
    "$PROSPECT" stat -s -r "$long" -r main -o "$TEST_TMP/w.txt" -- "$W/stat_binout" 30 >/dev/null 2>&1
    check summary_width_100 awk 'length > 100 { bad = 1 } END { exit bad }' "$TEST_TMP/w.txt"
    check summary_has_rows grep -q "^| main  *|  *1 |" "$TEST_TMP/w.txt"
    "$PROSPECT" stat -r "$long" -r main -o "$TEST_TMP/w2.txt" -- "$W/stat_binout" 30 >/dev/null 2>&1
    check region_tables_width_100 awk 'length > 100 { bad = 1 } END { exit bad }' "$TEST_TMP/w2.txt"
    "$PROSPECT" stat -s --csv -r "$long" -o "$TEST_TMP/w.csv" -- "$W/stat_binout" 30 >/dev/null 2>&1
    check csv_full_region_name grep -q "^$long," "$TEST_TMP/w.csv"
    check summary_name_elided grep -q "^| stat_bi*\.\.\..*:$l2 |" "$TEST_TMP/w.txt"
    "$PROSPECT" stat -v -s -r "$long" -r main -o "$TEST_TMP/wv.txt" -- "$W/stat_binout" 30 >/dev/null 2>&1
    check verbose_full_region_name grep -qF "| $long |" "$TEST_TMP/wv.txt"
else
    skip summary_width_100 "no writable tracefs uprobe_events (region tracing needs it)"
fi

# 5. An unprivileged user (kernel.perf_event_paranoid 2) gets user-space counts, as with perf.
paranoid=$(cat /proc/sys/kernel/perf_event_paranoid)
if [ "$(id -u)" -ne 0 ] || ! command -v setpriv >/dev/null; then
    skip stat_unprivileged_user_space "needs root and setpriv to switch to an unprivileged user"
elif [ "$paranoid" -ne 2 ]; then
    skip stat_unprivileged_user_space "kernel.perf_event_paranoid is $paranoid, not 2 (not changed by tests)"
else
    chmod 755 "$TEST_TMP" "$W" "$W/stat_binout"
    asnobody() { setpriv --reuid=65534 --regid=65534 --clear-groups "$@"; }
    asnobody "$PROSPECT" stat -- "$W/stat_binout" 10 >/dev/null 2>"$TEST_TMP/nb.txt"; rc=$?
    check stat_unprivileged_status [ "$rc" -eq 0 ]
    check stat_unprivileged_user_space grep -q "msec task-clock:u .*CPUs utilized" "$TEST_TMP/nb.txt"
    check stat_unprivileged_page_faults grep -q "^ *[1-9][0-9]*  *page-faults:u" "$TEST_TMP/nb.txt"
    check stat_unprivileged_says_why grep -q "perf_event_paranoid does not let this user count the kernel" "$TEST_TMP/nb.txt"
    asnobody "$PROSPECT" stat -e task-clock:u -- true >/dev/null 2>"$TEST_TMP/nbu.txt"
    check stat_unprivileged_explicit_u not grep -q "does not let this user" "$TEST_TMP/nbu.txt"
fi
