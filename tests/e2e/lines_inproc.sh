#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# prospect lines' in-process engine (the default): relocated function copies increment shared
# counters (docs/lines.md, "Counting"). On a program with four threads hitting the same
# counters, a C11 thread, a forked child, recursion, longjmp out of nested calls, a signal
# handler and a switch whose jump table keeps its function on uprobes: every line equals
# gcov's (a --coverage build) and the uprobe engine's, at -O0; at -O2 the two engines agree.
# A C++ program that throws through its functions: all relocated, those with landing pads with
# exception tables of their copies (lines_inproc_eh.sh); the program runs as without Prospect.
# A program calling backtrace() from counted functions prints the same frames. Nothing is left
# behind.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/stat_lib.sh"
if ! uprobes_ready; then
    skip lines_inproc "no writable tracefs uprobe_events (the uprobe engine is the reference)"
    exit 0
fi
SRC=$(cd "$(dirname "$0")/../workloads" && pwd)
W=$WL
TEST_TMP=$(mktemp -d "$TEST_TMP/lines_inproc.XXXXXX")
export TMPDIR=$TEST_TMP/tmpdir
mkdir -p "$TMPDIR"
build_workload lines_inproc lines_inproc -O0 -g -pthread || { fail build lines_inproc; exit 0; }
build_workload lines_inproc2 lines_inproc -O2 -g -pthread || { fail build lines_inproc2; exit 0; }
err=$TEST_TMP/err
count() { awk -F, -v l="$2" 'NR > 1 && $2 == l { print $3 }' "$1"; }
line_of() { grep -n "/\* L:$1 \*/" "$SRC/lines_inproc.c" | cut -d: -f1; }

# --- -O0: the program unharmed, its functions relocated, the switch's on uprobes ---------------
"$W/lines_inproc" >"$TEST_TMP/plain.out"
plain_status=$?
sum=$(md5sum <"$W/lines_inproc")
"$PROSPECT" lines -v --format csv -o "$TEST_TMP/ip.csv" -- "$W/lines_inproc" \
    >"$TEST_TMP/ip.out" 2>"$err"
check inproc_exit_status_kept [ $? = $plain_status ] && [ $plain_status = 5 ]
check inproc_stdout_untouched cmp -s "$TEST_TMP/plain.out" "$TEST_TMP/ip.out"
check inproc_relocates_spin grep -q "^prospect lines: in-process: spin relocated" "$err"
check inproc_relocates_main grep -q "^prospect lines: in-process: main relocated" "$err"
check inproc_jump_table_keeps_uprobes \
    grep -q "^prospect lines: in-process: kind keeps uprobes: an indirect jump" "$err"
check inproc_no_warning not grep -q "warning" "$err"
"$PROSPECT" lines --engine uprobe --format csv -o "$TEST_TMP/up.csv" -- "$W/lines_inproc" \
    >/dev/null 2>"$err"
check inproc_equals_uprobe_engine cmp -s "$TEST_TMP/ip.csv" "$TEST_TMP/up.csv"
# The model: 4 x 200000 + 1000 + 5000 iterations of spin's loop, in 6 calls; fib(15) makes
# 1973 calls, 987 reaching the base; 50 longjmps out of deep(); 20 signals x 10 iterations.
declare -A model=(
    [spin_body]=806000 [spin_for]=$((806000 + 6)) [worker]=4 [c11]=1 [child_spin]=1
    [ifchild]=2 [fib_if]=1973 [fib_base]=987 [fib_step]=986 [jumped]=50 [deep_jump]=50
    [handler_for]=$((20 * 11)) [handler_body]=200 [raise]=20 [kind]=100 [case0]=12
    [case_default]=11
)
bad=""
for k in "${!model[@]}"; do
    got=$(count "$TEST_TMP/ip.csv" "$(line_of "$k")")
    [ "$got" = "${model[$k]}" ] || bad="$bad $k=$got(want ${model[$k]})"
done
[ -z "$bad" ] || echo "  mismatches:$bad"
check inproc_counts_match_model [ -z "$bad" ]
check inproc_file_unchanged [ "$(md5sum <"$W/lines_inproc")" = "$sum" ]
check inproc_no_files_left [ -z "$(ls -A "$TMPDIR")" ]
check inproc_no_probes_left no_probes_left

# --- the increments are plain in one thread, `lock`ed before a second thread runs -------------
build_workload lines_lockflip lines_lockflip -O0 -g -pthread || { fail build lines_lockflip; exit 0; }
"$PROSPECT" lines -o /dev/null -- "$W/lines_lockflip" >"$TEST_TMP/flip.out" 2>"$err"
check inproc_plain_while_one_thread grep -qx "one thread: plain some, locked none" \
    "$TEST_TMP/flip.out"
check inproc_locked_after_pthread_create grep -qx "after a thread: plain none, locked some" \
    "$TEST_TMP/flip.out"

# --- gcov on the same source: every line it counts that has code here ------------------------
mkdir -p "$TEST_TMP/gcov"
if gcc -O0 -g --coverage -pthread -fprofile-update=atomic -o "$TEST_TMP/gcov/prog" \
       "$SRC/lines_inproc.c" 2>/dev/null; then
    (cd "$TEST_TMP/gcov" && ./prog >/dev/null; gcov -t prog-lines_inproc.gcda 2>/dev/null) \
        >"$TEST_TMP/gcov.txt"
    gn=0 bad=""
    while IFS=: read -r c l _; do
        c=${c// /} l=${l// /}
        case $c in ''|-|*[!0-9#]*) continue ;; esac
        [ "$c" = "#####" ] && c=0
        got=$(count "$TEST_TMP/ip.csv" "$l")
        # gcov puts a function's entry on its declaration, the line table on its `{`.
        if [ -z "$got" ] && sed -n "$((l + 1))p" "$SRC/lines_inproc.c" | grep -q '^{'; then
            got=$(count "$TEST_TMP/ip.csv" $((l + 1)))
        fi
        [ -z "$got" ] && continue                  # a case label: no code of its own here
        gn=$((gn + 1))
        [ "$got" = "$c" ] || bad="$bad $l:gcov=$c,ours=$got"
    done <"$TEST_TMP/gcov.txt"
    [ -z "$bad" ] || echo "  gcov lines $gn:$bad"
    check inproc_gcov_compared_lines [ "$gn" -ge 40 ]
    check inproc_equals_gcov [ -z "$bad" ]
else
    skip inproc_equals_gcov "gcc --coverage does not build here"
fi

# --- -O2: other code shapes (flags kept across counters), the same counts as the uprobes' ------
"$PROSPECT" lines -v --format csv -o "$TEST_TMP/ip2.csv" -- "$W/lines_inproc2" \
    >"$TEST_TMP/ip2.out" 2>"$err"
check inproc_O2_exit_status_kept [ $? = 5 ]
check inproc_O2_relocated grep -q "in-process: .* relocated" "$err"
"$PROSPECT" lines --engine uprobe --format csv -o "$TEST_TMP/up2.csv" -- "$W/lines_inproc2" \
    >/dev/null 2>"$err"
check inproc_O2_equals_uprobe_engine cmp -s "$TEST_TMP/ip2.csv" "$TEST_TMP/up2.csv"

# --- C++ exceptions thrown through counted functions ------------------------------------------
if g++ -O0 -g -o "$W/lines_throw" "$SRC/stat_throw.cc" 2>/dev/null; then
    "$W/lines_throw" >"$TEST_TMP/throw.plain"
    st=$?
    "$PROSPECT" lines -v --format csv -o "$TEST_TMP/throw.csv" -- "$W/lines_throw" \
        >"$TEST_TMP/throw.out" 2>"$err"
    check throw_exit_status_kept [ $? = $st ]
    check throw_stdout_untouched cmp -s "$TEST_TMP/throw.plain" "$TEST_TMP/throw.out"
    # mid() only calls: exceptions pass through its copy (its calls return through the
    # original); nest() catches: its copy's landing pads catch.
    check throw_caller_relocated grep -q "^prospect lines: in-process: mid(int) relocated" "$err"
    check throw_landing_pads_relocated grep -q \
        "^prospect lines: in-process: nest(int) relocated: .* its landing pads in the copy" "$err"
    "$PROSPECT" lines --engine uprobe --format csv -o "$TEST_TMP/throw_up.csv" -- \
        "$W/lines_throw" >/dev/null 2>"$err"
    check throw_equals_uprobe_engine cmp -s "$TEST_TMP/throw.csv" "$TEST_TMP/throw_up.csv"
else
    skip throw_equals_uprobe_engine "g++ does not build here"
fi

# --- a raw clone() (no wrapper sees it): counters locked from the start, no increment lost ---
build_workload lines_clone lines_clone -O0 -g || { fail build lines_clone; exit 0; }
"$PROSPECT" lines -v --format csv -o "$TEST_TMP/clone.csv" -- "$W/lines_clone" \
    >"$TEST_TMP/clone.out" 2>"$err"
check clone_exit_status_kept [ $? = 6 ] && grep -qx "two flows done" "$TEST_TMP/clone.out"
check clone_locked_throughout \
    grep -q "in-process: counters locked throughout: the program calls clone" "$err"
check clone_spin_relocated grep -q "^prospect lines: in-process: spin relocated" "$err"
cl_body=$(grep -n "/\* L:spin_body \*/" "$SRC/lines_clone.c" | cut -d: -f1)
cl_for=$(grep -n "/\* L:spin_for \*/" "$SRC/lines_clone.c" | cut -d: -f1)
check clone_counts_exact [ "$(count "$TEST_TMP/clone.csv" "$cl_body")" = 600000 ] && \
    [ "$(count "$TEST_TMP/clone.csv" "$cl_for")" = 600002 ]
"$PROSPECT" lines --engine uprobe --format csv -o "$TEST_TMP/clone_up.csv" -- \
    "$W/lines_clone" >/dev/null 2>"$err"
check clone_equals_uprobe_engine cmp -s "$TEST_TMP/clone.csv" "$TEST_TMP/clone_up.csv"

# --- self-inspection: backtrace() from counted functions names the same frames --------------
build_workload lines_backtrace lines_backtrace -O0 -g -rdynamic ||
    { fail build lines_backtrace; exit 0; }
"$W/lines_backtrace" >"$TEST_TMP/bt.plain"
st=$?
"$PROSPECT" lines -v --format csv -o "$TEST_TMP/bt.csv" -- "$W/lines_backtrace" \
    >"$TEST_TMP/bt.out" 2>"$err"
check backtrace_exit_status_kept [ $? = $st ] && [ $st = 4 ]
check backtrace_relocated grep -q "^prospect lines: in-process: on_signal relocated" "$err"
check backtrace_returns_through_the_original \
    grep -q "in-process: .* [1-9][0-9]* calls return through the original" "$err"
if ! cmp -s "$TEST_TMP/bt.plain" "$TEST_TMP/bt.out"; then
    diff "$TEST_TMP/bt.plain" "$TEST_TMP/bt.out" | head -6
fi
check backtrace_same_frames cmp -s "$TEST_TMP/bt.plain" "$TEST_TMP/bt.out"
"$PROSPECT" lines --engine uprobe --format csv -o "$TEST_TMP/bt_up.csv" -- \
    "$W/lines_backtrace" >/dev/null 2>"$err"
check backtrace_equals_uprobe_engine cmp -s "$TEST_TMP/bt.csv" "$TEST_TMP/bt_up.csv"

# --- the uprobe engine and --entry trap stay reachable; -p keeps uprobes -----------------------
"$PROSPECT" lines --engine bogus -- true >/dev/null 2>"$err"
check engine_bad_value [ $? = 2 ] && grep -q "unknown --engine 'bogus' (inproc or uprobe)" "$err"
