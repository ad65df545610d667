# SPDX-License-Identifier: MIT
# prospect run: bad input and faults, each with its exact exit status and message (issue 2, §6).
. "$(dirname "$0")/lib.sh"

# expect NAME STATUS PATTERN -- ARGS...: runs prospect ARGS, checks exit status and stderr.
expect() {
    local name=$1 want=$2 pat=$3; shift 4
    local err=$TEST_TMP/$name.err rc
    "$PROSPECT" "$@" >/dev/null 2>"$err"; rc=$?
    if [ "$rc" -ne "$want" ]; then
        fail "$name" "exit status $rc, expected $want: $(head -c 300 "$err")"
    elif ! grep -qE -- "$pat" "$err"; then
        fail "$name" "stderr lacks /$pat/: $(head -c 300 "$err")"
    else
        pass "$name"
    fi
}

expect cmd_not_found 127 "prospect run: /nonexistent/cmd: command not found" -- run -- /nonexistent/cmd
printf '#!/bin/sh\necho hi\n' > "$TEST_TMP/noexec.sh"; chmod 644 "$TEST_TMP/noexec.sh"
expect cmd_not_executable 126 "prospect run: .*noexec.sh: Permission denied" -- run -- "$TEST_TMP/noexec.sh"
expect no_command 2 "prospect run: no command given" -- run
expect pid_is_for_record 2 "^prospect run: -p is for 'prospect record' or 'prospect stat'" -- run -p $$ -d 1
expect bad_freq 2 "invalid frequency 'abc'" -- run -F abc -- true
expect zero_freq 2 "invalid frequency '0'" -- run -F 0 -- true
expect bad_period 2 "invalid period '-5'" -- run -c -5 -- true
expect freq_and_period 2 "-F and -c exclude each other" -- run -F 100 -c 1000 -- true
expect unknown_event 2 "unknown event 'nosuchevent'" -- run -e nosuchevent -- true
expect unknown_option 2 "^prospect run: unknown option '--bogus'" -- run --bogus -- true
expect missing_value 2 "^prospect run: option '-F' needs a value" -- run -F
expect unknown_command 2 "unknown command 'bogus'" -- bogus
expect bad_output 1 "cannot write /nonexistent/dir/r.txt" -- run -o /nonexistent/dir/r.txt -- true
expect bad_cpu 2 "invalid --cpu '4096'" -- run --cpu 4096 -- true
expect absent_cpu 1 "CPU 999 does not exist or is offline \(online CPUs: " -- run --cpu 999 -- true

# Hardware events: advice where the machine has none, a report where it has them.
if "$PROSPECT" run -e cycles -o /dev/null -- true 2>"$TEST_TMP/cycles.err"; then
    skip no_hw_counter_advice "this machine has hardware counters"
else
    check no_hw_counter_advice grep -q "valid for this CPU.s PMU model.*not available to this machine.*-e cpu-clock" "$TEST_TMP/cycles.err"
fi

# Help and version.
"$PROSPECT" run --help > "$TEST_TMP/help.txt"; rc=$?
check run_help_status [ "$rc" -eq 0 ]
check run_help_text grep -q "usage: prospect run" "$TEST_TMP/help.txt"
check help_run_same cmp -s "$TEST_TMP/help.txt" <("$PROSPECT" help run)
check version_prints grep -qE '^prospect [0-9]+\.[0-9]+' <("$PROSPECT" --version)

# The command's exit status passes through; its output stays on stdout, the report on stderr.
printf '#!/bin/sh\necho out-line\nexit 3\n' > "$TEST_TMP/exit3.sh"; chmod 755 "$TEST_TMP/exit3.sh"
"$PROSPECT" run -- "$TEST_TMP/exit3.sh" >"$TEST_TMP/exit3.out" 2>"$TEST_TMP/exit3.err"; rc=$?
check exit_status_passes_through [ "$rc" -eq 3 ]
check command_stdout_clean grep -qx out-line "$TEST_TMP/exit3.out"
check report_on_stderr grep -q "Statistics of Run" "$TEST_TMP/exit3.err"
check outcome_reported grep -q "exit status 3" "$TEST_TMP/exit3.err"

# A crashing target: the report is printed and the status mirrors the signal (128 + 11).
build_workload crash crash -O1
"$PROSPECT" run -o "$TEST_TMP/crash.txt" -- "$WL/crash" 2>/dev/null; rc=$?
check crash_status_mirrors_signal [ "$rc" -eq 139 ]
check crash_report_printed grep -q "before_crash" "$TEST_TMP/crash.txt"
check crash_outcome grep -q "killed by signal 11 (SIGSEGV)" "$TEST_TMP/crash.txt"

# Ctrl-C: profiling stops, the report is printed, the signal reaches the command, and prospect
# then dies of SIGINT itself so the calling shell sees the interrupt.
build_workload waiter waiter -O1
fifo=$TEST_TMP/waiter.fifo
mkfifo "$fifo"
"$PROSPECT" run -o "$TEST_TMP/int.txt" -- "$WL/waiter" "$fifo" &
ppid=$!
read -r _ < "$fifo"
kill -INT "$ppid"
wait "$ppid"; rc=$?
check sigint_status [ "$rc" -eq 130 ]
check sigint_report_printed grep -q "Statistics of Run" "$TEST_TMP/int.txt"
check sigint_outcome grep -q "killed by signal 2 (SIGINT)" "$TEST_TMP/int.txt"
check sigint_no_leftover [ -z "$(pgrep -f "$WL/waiter $fifo")" ]

# An unprivileged user under perf_event_paranoid >= 2: user space is sampled, the report says
# the kernel is missing and why; -a needs privileges and says which.
paranoid=$(cat /proc/sys/kernel/perf_event_paranoid)
if [ "$(id -u)" -ne 0 ] || ! command -v setpriv >/dev/null; then
    skip unprivileged_user_space_only "needs root and setpriv to switch to an unprivileged user"
elif [ "$paranoid" -lt 2 ]; then
    skip unprivileged_user_space_only "perf_event_paranoid is $paranoid (< 2): nothing to degrade"
else
    build_workload split_O1 split -O1
    chmod 755 "$TEST_TMP" "$WL" "$WL/split_O1"
    asnobody() { setpriv --reuid=65534 --regid=65534 --clear-groups "$@"; }
    asnobody "$PROSPECT" run -- "$WL/split_O1" 20 >/dev/null 2>"$TEST_TMP/nobody.txt"; rc=$?
    check unprivileged_status [ "$rc" -eq 0 ]
    check unprivileged_user_space_only grep -q "kernel not sampled: kernel.perf_event_paranoid" "$TEST_TMP/nobody.txt"
    check unprivileged_profile grep -q "work_fifty" "$TEST_TMP/nobody.txt"
    asnobody "$PROSPECT" run -a -d 0.1 >/dev/null 2>"$TEST_TMP/nobody_a.txt"; rc=$?
    check unprivileged_system_wide_refused [ "$rc" -eq 1 ]
    check unprivileged_system_wide_advice grep -q "on every CPU (perf_event_paranoid is $paranoid).*CAP_PERFMON.*perf_event_paranoid=0" "$TEST_TMP/nobody_a.txt"
    # tracefs mounted but root's alone, or not mounted (a fresh machine): either way the error
    # says what stands in the way, not "unknown event".
    if [ -d /sys/kernel/tracing ] && ! asnobody test -r /sys/kernel/tracing/events; then
        if [ "$(stat -f -c %T /sys/kernel/tracing)" = tracefs ]; then
            why="tracefs is not readable for this user: run as root"
        else
            why="tracefs is not mounted and this user may not mount it: as root run 'mount -t tracefs nodev /sys/kernel/tracing'"
        fi
        asnobody "$PROSPECT" run -e sched:sched_switch -- true 2>"$TEST_TMP/nobody_tp.txt"; rc=$?
        check unprivileged_tracepoint_status [ "$rc" -eq 1 ]
        check unprivileged_tracepoint_says_why grep -qF "$why" "$TEST_TMP/nobody_tp.txt"
        asnobody "$PROSPECT" run -e cpu-clock:250000 -o /dev/null -- true; rc=$?
        check unprivileged_event_period_not_tracepoint [ "$rc" -eq 0 ]
    fi
fi

# --cpu N: the command runs pinned from its first instruction.
if [ "$(nproc)" -ge 2 ]; then
    out=$("$PROSPECT" run --cpu 1 -o /dev/null -- grep Cpus_allowed_list /proc/self/status)
    check cpu_pin_applies [ "$(echo "$out" | awk '{ print $2 }')" = 1 ]
else
    skip cpu_pin_applies "needs 2 CPUs"
fi

# A command that survives Ctrl-C: the first SIGINT is passed on, the second stops profiling,
# prints the report and leaves the command running (never a hang).
build_workload stubborn stubborn -O1
fifo=$TEST_TMP/stubborn.fifo
mkfifo "$fifo"
"$PROSPECT" run -o "$TEST_TMP/stubborn.txt" -- "$WL/stubborn" "$fifo" 2>"$TEST_TMP/stubborn.err" &
ppid=$!
exec 7<"$fifo"
read -r _ <&7                      # ready
kill -INT "$ppid"
read -r ack <&7                    # the command got the forwarded SIGINT
kill -INT "$ppid"
wait "$ppid"; rc=$?
exec 7<&-
spid=$(pgrep -f "$WL/stubborn $fifo")
check second_sigint_forwarded [ "$ack" = got ]
check second_sigint_status [ "$rc" -eq 130 ]
check second_sigint_report grep -q "profiling interrupted by SIGINT twice; command left running" "$TEST_TMP/stubborn.txt"
check second_sigint_says_left_running grep -q "did not exit and keeps running" "$TEST_TMP/stubborn.err"
check second_sigint_command_alive [ -n "$spid" ]
[ -n "$spid" ] && kill -KILL $spid

# Small things a user trips over.
"$PROSPECT" run -o "$TEST_TMP/never.txt" -- /nonexistent/cmd 2>/dev/null
check no_empty_report_file_on_exec_failure [ ! -e "$TEST_TMP/never.txt" ]
expect same_event_twice 2 "event 'cpu-clock' given twice" -- run -e cpu-clock -e cpu-clock -- true
expect run_g_accepted 0 "^Prospect report" -- run -g -- true
expect top_level_unknown_option 2 "^prospect: unknown option '-x'" -- -x
# One sample per 1000 s of CPU: none, however slow a loaded machine makes the exec.
"$PROSPECT" run -e task-clock -c 1000000000000 -o "$TEST_TMP/true.txt" -- true
check empty_run_says_no_samples grep -q "no samples" "$TEST_TMP/true.txt"

# record shares run's outcome handling: a setup failure is one line of advice, status 1, and
# no file is left behind (it once printed "true: Success" and exit 126).
"$PROSPECT" record --cpu 999 -o "$TEST_TMP/setup.data" -- true >/dev/null 2>"$TEST_TMP/setup.err"; rc=$?
check record_setup_failure_status [ "$rc" -eq 1 ]
check record_setup_failure_message grep -q "CPU 999 does not exist or is offline" "$TEST_TMP/setup.err"
check record_setup_failure_no_success bash -c "! grep -q Success '$TEST_TMP/setup.err'"
check record_setup_failure_no_file [ ! -e "$TEST_TMP/setup.data" ]
# Another user's process: the cause is named, and that perf_event_paranoid is no remedy.
if can_be_nobody; then
    mkdir -p "$TEST_TMP/nobody"; chmod 1777 "$TEST_TMP/nobody"
    as_nobody "$PROSPECT" record -p 1 -d 1 -o "$TEST_TMP/nobody/p1.data" >/dev/null \
        2>"$TEST_TMP/p1.err"; rc=$?
    check record_other_user_status [ "$rc" -eq 1 ]
    check record_other_user_message grep -q "on process 1: it is another user's process (uid 0); only its owner or root can measure it (lowering perf_event_paranoid will not help)" "$TEST_TMP/p1.err"
    check record_other_user_one_line [ "$(wc -l < "$TEST_TMP/p1.err")" -eq 1 ]
else
    skip record_other_user "needs root, setpriv and a user nobody who can run $PROSPECT"
fi
"$PROSPECT" record -o "$TEST_TMP/nf.data" -- /nonexistent/cmd >/dev/null 2>"$TEST_TMP/nf.err"; rc=$?
check record_cmd_not_found [ "$rc" -eq 127 ]
