#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Function exits are probes on the function's returns (and tail calls), never the kernel's
# return probe: a C++ exception or a siglongjmp that leaves a measured function works as
# without Prospect (same output, same exit status), calls are exact, and what happened is said
# (not "samples were lost"). Both entry modes.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/stat_lib.sh"
if ! uprobes_ready; then
    skip stat_exits "no writable tracefs uprobe_events (region tracing needs it)"
    exit 0
fi
W=$WL
out=$TEST_TMP/exits.csv
err=$TEST_TMP/exits.err
counts() { echo "$(csv_get "$out" "$1" calls) $(csv_get "$out" "$1" crossings)"; }

if command -v g++ >/dev/null; then
    g++ -O2 -g -o "$W/stat_throw" "$(dirname "$0")/../workloads/stat_throw.cc"
    want=$("$W/stat_throw" 30); want_rc=$?
    for mode in jump trap; do
        got=$("$PROSPECT" stat --entry $mode -s --csv -o "$out" -r thrower -r mid -r nest \
              "$W/stat_throw" 30 2>"$err"); rc=$?
        check throw_${mode}_output_unchanged [ "$got" = "$want" ]
        check throw_${mode}_status_unchanged [ "$rc" = "$want_rc" ]
        check throw_${mode}_not_terminated not grep -q "terminate called\|signal" "$err"
        # 30 calls, 10 of them thrown through (i % 3 == 1): 20 returns.
        check throw_${mode}_thrower_counts [ "$(counts thrower)" = "30 20" ]
        check throw_${mode}_mid_counts [ "$(counts mid)" = "30 20" ]
        # nest(4..0): the exception from nest(0) leaves nest(1), caught in nest(2).
        check throw_${mode}_nest_counts [ "$(counts nest)" = "5 1" ]
        check throw_${mode}_said grep -q "note: thrower: 10 call(s) left without returning (longjmp or a C++ exception): 10 crossing(s) not counted" "$err"
        check throw_${mode}_nest_said grep -q "note: nest: 2 call(s) left without returning.*: 0 crossing(s) not counted" "$err"
        check throw_${mode}_no_lost_said not grep -q "lost" "$err"
        check throw_${mode}_no_hazard_note not grep -q "ends the program" "$err"
    done
    "$PROSPECT" stat -v -r thrower "$W/stat_throw" 3 >/dev/null 2>"$err"
    check throw_exits_are_return_probes grep -q "thrower: .*exit probes on its [1-9][0-9]* return(s)" "$err"
    # A tail call through a pointer: its exits cannot be known, it keeps a uretprobe; counted,
    # and in a C++ program the exception hazard is named.
    cat >"$TEST_TMP/ptrtail.cc" <<'CXX'
#include <cstdio>
#include <stdexcept>
__attribute__((noinline)) int twice(int x) { return 2 * x; }
int (*volatile fp)(int) = twice;
__attribute__((noinline)) int via(int (*f)(int), int x) { return f(x); }
int main() { int s = 0; for (int i = 0; i < 7; i++) s += via(fp, i); if (s < 0) throw std::runtime_error("neg"); std::printf("%d\n", s); }
CXX
    g++ -O2 -g -o "$W/ptrtail" "$TEST_TMP/ptrtail.cc"
    "$PROSPECT" stat -v -s --csv -o "$out" -r via "$W/ptrtail" >/dev/null 2>"$err"
    check unknown_exits_keep_return_probe grep -q "via: .*entry and return probes: its exits are not known, it has an indirect jump" "$err"
    check unknown_exits_counted [ "$(counts via)" = "7 7" ]
    check unknown_exits_hazard_named grep -q "note: via keeps a return probe" "$err"
else
    skip throw_output_unchanged "no g++ (scripts/install-deps installs it)"
fi

# An inlined function whose catch handler sits in another of its address ranges (at -O1 and
# -O2): exact calls, not one more per exception caught.
if command -v g++ >/dev/null; then
    for opt in O1 O2; do
        g++ -$opt -g -o "$W/stat_catch_inline_$opt" "$(dirname "$0")/../workloads/stat_catch_inline.cc"
        want=$("$W/stat_catch_inline_$opt")
        for mode in jump trap; do
            got=$("$PROSPECT" stat --entry $mode -s --csv -o "$out" -r work \
                  "$W/stat_catch_inline_$opt" 2>"$err")
            check catch_inline_${opt}_${mode}_output [ "$got" = "$want" ]
            check catch_inline_${opt}_${mode}_counts [ "$(counts work)" = "30 30" ]
            check catch_inline_${opt}_${mode}_no_loop_head_warning not grep -q "loop head" "$err"
        done
    done
else
    skip catch_inline_counts "no g++ (scripts/install-deps installs it)"
fi

# A 7-byte function: the jump before its ret would overlap its jump entry's bytes (that broke
# the program): the exit keeps its uprobe, the program runs, every call counted.
cat >"$TEST_TMP/seven.c" <<'CSRC'
#include <stdio.h>
__asm__(".text\n.globl seven\n.type seven,@function\nseven:\n mov (%rdi),%eax\n add $1,%eax\n nop\n ret\n.size seven,.-seven\n");
int seven(int *p);
int main(void) { int x = 3, s = 0; for (int i = 0; i < 9; i++) s += seven(&x); printf("%d\n", s); return 0; }
CSRC
gcc -O2 -g -o "$W/seven" "$TEST_TMP/seven.c"
got=$("$PROSPECT" stat -v -s --csv -o "$out" -r seven "$W/seven" 2>"$err")
check overlapping_jumps_program_unharmed [ "$got" = 36 ]
check overlapping_jumps_counts [ "$(counts seven)" = "9 9" ]
check overlapping_jumps_said grep -q "seven: exit probe at 0x[0-9a-f]* stays a uprobe: its bytes overlap those another jump moves" "$err"

build_workload stat_longjmp stat_longjmp -O2 -g
want=$("$W/stat_longjmp" 20)
for mode in jump trap; do
    got=$("$PROSPECT" stat --entry $mode -s --csv -o "$out" -r leave -r bail_out \
          "$W/stat_longjmp" 20 2>"$err"); rc=$?
    check longjmp_${mode}_output_unchanged [ "$got" = "$want" ]
    check longjmp_${mode}_status [ "$rc" = 0 ]
    # 20 calls, the 10 odd ones left by siglongjmp; the last (19) too: still inside at the end.
    check longjmp_${mode}_leave_counts [ "$(counts leave)" = "20 10" ]
    check longjmp_${mode}_said grep -q "note: leave: 9 call(s) left without returning (longjmp or a C++ exception): 9 crossing(s) not counted" "$err"
    check longjmp_${mode}_not_lost not grep -q "lost" "$err"
done

# Samples lost at the very end: Prospect is stopped while the program fills the ring buffer and
# exits, so no record follows the loss and the kernel never writes its "lost" record. The probe
# counts tell: every missing crossing is reported (this was a silent 41% once).
build_workload stat_gate stat_gate -O2 -g
ready=$TEST_TMP/gate.ready go=$TEST_TMP/gate.go
mkfifo "$ready" "$go"
"$PROSPECT" stat -e task-clock -s --csv -o "$out" -r crossing "$W/stat_gate" "$ready" "$go" 300000 \
    >/dev/null 2>"$err" &
ppid=$!
exec 7<"$ready"
read -r _ <&7
kill -STOP "$ppid"
echo go >"$go"
read -r _ <&7       # EOF: the program has exited (its crossings written, or lost)
exec 7<&-
kill -CONT "$ppid"
wait "$ppid"; rc=$?
check gate_status [ "$rc" = 0 ]
calls=$(csv_get "$out" crossing calls)
if [ "${calls:-0}" -lt 300000 ]; then
    check gate_loss_said grep -q "warning: [0-9]* samples lost" "$err"
    miss=$(sed -n 's/.*crossing: the samples of \([0-9]*\) entries .* \([0-9]*\) calls were made, not \([0-9]*\)/\1 \2 \3/p' "$err")
    check gate_missing_entries_counted [ "$miss" = "$((300000 - calls)) 300000 $calls" ]
else
    skip gate_loss_said "the ring buffer held all 600000 samples here: nothing to lose"
fi
