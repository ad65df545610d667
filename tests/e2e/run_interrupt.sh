#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# A command that survives SIGINT: run's Outcome and stat's notes say that profiling was
# interrupted (second SIGINT: the command is left running) or that the command ended by
# itself after the SIGINT passed to it, never what reads as an ordinary end. FIFOs sync.
. "$(dirname "$0")/lib.sh"
build_workload stubborn stubborn -O1

# $1: run|stat, $2: extra argument for stubborn ("" or "exit"), $3: SIGINTs to send.
interrupt() {
    local fifo=$TEST_TMP/int.$1.$3.fifo pid ack
    rm -f "$fifo"; mkfifo "$fifo"
    if [ "$1" = run ]; then
        "$PROSPECT" run -o "$TEST_TMP/int.out" -- "$WL/stubborn" "$fifo" $2 2>"$TEST_TMP/int.err" &
    else
        "$PROSPECT" stat -e task-clock -o "$TEST_TMP/int.out" -- "$WL/stubborn" "$fifo" $2 \
            2>"$TEST_TMP/int.err" &
    fi
    pid=$!
    exec 7<"$fifo"
    read -r _ <&7
    kill -INT "$pid"
    read -r ack <&7
    [ "$3" = 2 ] && kill -INT "$pid"
    wait "$pid"; rc=$?
    exec 7<&-
    spid=$(pgrep -f "^$WL/stubborn $fifo")
    [ -n "$spid" ] && kill -KILL $spid
}

interrupt run "" 2
check run_int_outcome grep -Eq "^  Outcome +profiling interrupted by SIGINT twice; command left running \(pid [0-9]+\)$" "$TEST_TMP/int.out"
check run_int_fits_100 bash -c "! awk 'length > 100 && /Outcome/' '$TEST_TMP/int.out' | grep -q ."
check run_int_status [ "$rc" -eq 130 ]

interrupt run exit 1
check run_int_exit_after_signal grep -Eq "^  Outcome +exit status 3, after the SIGINT passed to it$" "$TEST_TMP/int.out"
check run_int_exit_after_status [ "$rc" -eq 3 ]

interrupt stat "" 2
check stat_int_says_interrupted grep -q "counting interrupted by SIGINT twice; the command was left running (pid [0-9]*): the counts cover the run until then" "$TEST_TMP/int.err"
check stat_int_not_terminated bash -c "! grep -q 'terminated by signal' '$TEST_TMP/int.err'"
check stat_int_counts_printed grep -q "task-clock" "$TEST_TMP/int.out"

interrupt stat exit 1
check stat_int_exit_after_signal grep -q "the command exited with status 3 after the SIGINT passed to it" "$TEST_TMP/int.err"
check stat_int_exit_after_status [ "$rc" -eq 3 ]

# Ctrl-C whose command dies of it: every command dies of SIGINT too (after its results), as a
# shell loop around it expects (WIFSIGNALED, not exit 130).
build_workload stubborn_g stubborn -O1 -g
fifo=$TEST_TMP/die.fifo; mkfifo "$fifo"
for c in run record stat trace lines; do
    case $c in
        run|stat|trace|lines) args=(-o "$TEST_TMP/die.$c.out") ;;
        record) args=(-o "$TEST_TMP/die.data") ;;
    esac
    [ $c = lines ] && args+=(-f main)
    [ $c = trace ] && args+=(-c)       # a summary even of no calls
    got=$(int_status "$fifo" "$PROSPECT" $c "${args[@]}" -- "$WL/stubborn_g" "$fifo" die \
          2>"$TEST_TMP/die.$c.err")
    check "${c}_dies_of_sigint" [ "$got" = "signal 2" ]
    if [ $c = record ]; then
        check record_int_file_written [ -s "$TEST_TMP/die.data" ]
    else
        check "${c}_int_results_written" [ -s "$TEST_TMP/die.$c.out" ]
    fi
done
