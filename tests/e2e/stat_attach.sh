#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# prospect stat -p PID --duration: attach to a running process, count, detach; the target
# keeps running and no probe is left in it.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/stat_lib.sh"
if ! uprobes_ready; then
    skip stat_attach "no writable tracefs uprobe_events (region tracing needs it)"
    exit 0
fi
build_workload stat_loop stat_loop -O2 -g -lpthread || { fail build stat_loop; exit 0; }
fifo=$TEST_TMP/loop_fifo
mkfifo "$fifo"
"$WL/stat_loop" >"$fifo" &
pid=$!
read -r ready lpid <"$fifo"    # the target is running its loop
check attach_target_started [ "$ready" = ready ] && [ "$lpid" = "$pid" ]
"$PROSPECT" stat -s --csv -o "$TEST_TMP/a.csv" -r tick -p "$pid" --duration 0.5 >/dev/null 2>"$TEST_TMP/err"
check attach_exit_0 [ $? = 0 ]
calls=$(csv_get "$TEST_TMP/a.csv" tick calls)
check attach_counted_calls [ "${calls:-0}" -gt 0 ]
check attach_target_still_running kill -0 "$pid"
# Counting starts once every ring buffer is set: no probe hit counted without its sample (they
# were said lost), and every per-cpu copy starts together (task-clock was ~1e17 ms here).
check attach_nothing_lost not grep -q "lost" "$TEST_TMP/err"
wall=$(csv_get "$TEST_TMP/a.csv" tick "wall-clock (ns)"); tc=$(csv_get "$TEST_TMP/a.csv" tick "task-clock (ns)")
check attach_task_clock_sane awk -v t="${tc:-0}" -v w="${wall:-0}" 'BEGIN { exit !(t > 0 && t <= w * 1.1) }'
check attach_no_probes_left no_probes_left
grep -q ' t ' /proc/$pid/stat 2>/dev/null && fail attach_target_not_stopped "target is stopped"
pass attach_target_not_stopped
kill "$pid"; wait "$pid" 2>/dev/null
# Attach to a process whose threads already run: each of them is traced.
fifo3=$TEST_TMP/loop_fifo3
mkfifo "$fifo3"
"$WL/stat_loop" 3 >"$fifo3" &
mpid=$!
read -r ready lpid <"$fifo3"
"$PROSPECT" stat -s --csv -o "$TEST_TMP/mt.csv" --per-thread -e task-clock -r tick -p "$mpid" \
    --duration 0.5 >/dev/null 2>&1
check attach_threads_each_traced [ "$(grep -c '^tick \[tid [0-9]*\],[1-9]' "$TEST_TMP/mt.csv")" = 3 ]
check attach_threads_target_alive kill -0 "$mpid"
kill "$mpid"; wait "$mpid" 2>/dev/null

"$PROSPECT" stat -e task-clock -p 999999999 --duration 0.1 >/dev/null 2>"$TEST_TMP/err"
check attach_missing_pid_exit_1 [ $? = 1 ]
check attach_missing_pid_message grep -q "cannot attach to process 999999999" "$TEST_TMP/err"
"$PROSPECT" stat -p abc >/dev/null 2>&1
check attach_bad_pid_usage_2 [ $? = 2 ]

# SIGINT to Prospect running a command: passed to the command, results printed, status 130.
fifo2=$TEST_TMP/loop_fifo2
mkfifo "$fifo2"
# (timeout relays the SIGINT and only guards against a hang.)
timeout -s KILL 60 "$PROSPECT" stat -s --csv -o "$TEST_TMP/i.csv" -r tick "$WL/stat_loop" \
    >"$fifo2" 2>"$TEST_TMP/ierr" &
ppid=$!
read -r ready lpid <"$fifo2"   # the command runs: its events were opened before it exec'd
kill -INT "$(pgrep -P "$ppid")"
wait "$ppid"
rc=$?
kill -KILL "$lpid" 2>/dev/null
check sigint_status_130 [ $rc = 130 ]
check sigint_results_printed [ "$(csv_get "$TEST_TMP/i.csv" tick calls)" -gt 0 ]
check sigint_command_gone not kill -0 "$lpid" 2>/dev/null
check sigint_no_probes_left no_probes_left
