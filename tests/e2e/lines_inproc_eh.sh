#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# prospect lines counts C++ functions with landing pads in the process (docs/lines.md,
# "Exceptions"): their copies get exception tables whose landing pads are the copy's. On
# tests/workloads/lines_eh.cc (throws of three types through a destructor's cleanup, a catch by
# type that rethrows, a catch (...) that rethrows, a catch of an int, catches by type in main):
# the output and exit status as without Prospect, every function relocated with its landing
# pads, every line gcov counts (a --coverage build) equal, and equal to the uprobe engine's; PIE
# and not (pcrel and absolute type tables); -O2 (.cold parts) unharmed and equal to the uprobes'.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/stat_lib.sh"
if ! command -v g++ >/dev/null; then
    skip lines_inproc_eh "no g++ to build the C++ workload"
    exit 0
fi
SRC=$(cd "$(dirname "$0")/../workloads" && pwd)/lines_eh.cc
TEST_TMP=$(mktemp -d "$TEST_TMP/lines_inproc_eh.XXXXXX")
export TMPDIR=$TEST_TMP/tmpdir
mkdir -p "$TMPDIR"
W=$TEST_TMP
err=$TEST_TMP/err
g++ -O0 -g -o "$W/eh" "$SRC" && g++ -O0 -g -no-pie -fno-pie -o "$W/eh_nopie" "$SRC" &&
    g++ -O2 -g -o "$W/eh2" "$SRC" || { fail build lines_eh; exit 0; }
count() { awk -F, -v l="$2" 'NR > 1 && $2 == l { print $3 }' "$1"; }
funcs="leaf(int) with_guard(int) rethrower(int) catch_all(int) catch_here(int) main"

# --- -O0, PIE and not: unharmed, every function relocated with its landing pads -------------
for v in eh eh_nopie; do
    "$W/$v" >"$TEST_TMP/$v.plain"
    st=$?
    sum=$(md5sum <"$W/$v")
    "$PROSPECT" lines -v --format csv -o "$TEST_TMP/$v.csv" -- "$W/$v" >"$TEST_TMP/$v.out" \
        2>"$err"
    check "${v}_exit_status_kept" [ $? = $st ] && [ $st = 7 ]
    check "${v}_stdout_untouched" cmp -s "$TEST_TMP/$v.plain" "$TEST_TMP/$v.out"
    check "${v}_output_is_the_workloads" grep -qx "19860 40 40 594 40 120" "$TEST_TMP/$v.out"
    missing=""
    for f in $funcs; do
        grep -qF "in-process: $f relocated: a counter at each probed block, its landing pads" \
            "$err" || missing="$missing $f"
    done
    [ -z "$missing" ] || { echo "  not relocated:$missing"; grep "keeps uprobes" "$err" | head -3; }
    check "${v}_landing_pad_functions_relocated" [ -z "$missing" ]
    check "${v}_none_keeps_uprobes" not grep -q "keeps uprobes" "$err"
    check "${v}_no_warning" not grep -q "warning" "$err"
    check "${v}_file_unchanged" [ "$(md5sum <"$W/$v")" = "$sum" ]
done
check nopie_counts_equal_pie cmp -s <(cut -d, -f2- "$TEST_TMP/eh.csv") \
    <(cut -d, -f2- "$TEST_TMP/eh_nopie.csv")

# --- gcov on the same source: every line it counts ------------------------------------------
mkdir -p "$TEST_TMP/gcov"
if g++ -O0 -g --coverage -o "$TEST_TMP/gcov/prog" "$SRC" 2>/dev/null; then
    (cd "$TEST_TMP/gcov" && ./prog >/dev/null; gcov -t prog-lines_eh.gcda 2>/dev/null) \
        >"$TEST_TMP/gcov.txt"
    gn=0 bad=""
    while IFS=: read -r c l _; do
        c=${c// /} l=${l// /} c=${c%\*}
        case $c in ''|-|*[!0-9#]*) continue ;; esac
        [ "$c" = "#####" ] && c=0
        got=$(count "$TEST_TMP/eh.csv" "$l")
        # gcov puts a function's entry on its declaration, the line table on its `{`.
        if [ -z "$got" ] && sed -n "$((l + 1))p" "$SRC" | grep -q '^{'; then
            got=$(count "$TEST_TMP/eh.csv" $((l + 1)))
        fi
        gn=$((gn + 1))
        [ "$got" = "$c" ] || bad="$bad $l:gcov=$c,ours=$got"
    done <"$TEST_TMP/gcov.txt"
    [ -z "$bad" ] || echo "  gcov lines $gn:$bad"
    check eh_gcov_compared_lines [ "$gn" -ge 40 ]
    check eh_equals_gcov [ -z "$bad" ]
    # The handlers ran in the copies: their lines counted there.
    check eh_catch_lines_counted [ "$(count "$TEST_TMP/eh.csv" \
        "$(grep -n 'seen_all++;' "$SRC" | cut -d: -f1)")" = 120 ]
else
    skip eh_equals_gcov "g++ --coverage does not build here"
fi

# --- -O2: landing pads in .cold parts; unharmed ----------------------------------------------
"$W/eh2" >"$TEST_TMP/eh2.plain"
st=$?
"$PROSPECT" lines -v --format csv -o "$TEST_TMP/eh2.csv" -- "$W/eh2" >"$TEST_TMP/eh2.out" \
    2>"$err"
check eh_O2_exit_status_kept [ $? = $st ] && [ $st = 7 ]
check eh_O2_stdout_untouched cmp -s "$TEST_TMP/eh2.plain" "$TEST_TMP/eh2.out"
check eh_O2_landing_pads_relocated grep -q "relocated: .* its landing pads in the copy" "$err"

# --- the uprobe engine as a second reference ---------------------------------------------------
if uprobes_ready; then
    for v in eh eh2; do
        "$PROSPECT" lines --engine uprobe --format csv -o "$TEST_TMP/$v.up.csv" -- "$W/$v" \
            >/dev/null 2>"$err"
        check "${v}_equals_uprobe_engine" cmp -s "$TEST_TMP/$v.csv" "$TEST_TMP/$v.up.csv"
    done
    check eh_no_probes_left no_probes_left
else
    skip eh_equals_uprobe_engine "no writable tracefs uprobe_events"
fi
check eh_no_files_left [ -z "$(ls -A "$TMPDIR")" ]
