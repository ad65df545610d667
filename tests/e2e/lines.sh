#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# prospect lines: exact executions per source line. The seed's fact.c (Figure 1 of the
# perf-tools chapter: 20, 19, 1, 20 and main's 1); a program with loops of known trip counts,
# recursion, threads, a function never run and a child process, against a model computed here
# from its markers and against gcov's line counts of a --coverage build of the same source;
# jump entries and plain uprobes agree; the program unharmed (stdout, exit status, file, no
# probe left); errors (no DWARF, unknown function with did-you-mean, unknown file, usage).
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/stat_lib.sh"
if ! uprobes_ready; then
    skip lines "no writable tracefs uprobe_events (counting probes need it)"
    exit 0
fi
SRC=$(cd "$(dirname "$0")/../workloads" && pwd)
W=$WL
# A directory of this run's own: run-tests runs the suite twice in one TEST_TMP (the second time
# with tracefs unmounted), and the FIFOs and links of the first run must not be met again.
TEST_TMP=$(mktemp -d "$TEST_TMP/lines.XXXXXX")
export TMPDIR=$TEST_TMP/tmpdir
mkdir -p "$TMPDIR"
# The seed's listing starts at line 1 with fact(): stdio.h comes from the command line.
build_workload lines_fact lines_fact -O0 -g -include stdio.h || { fail build lines_fact; exit 0; }
build_workload lines_work lines_work -O0 -g -pthread || { fail build lines_work; exit 0; }
out=$TEST_TMP/lines.out
err=$TEST_TMP/lines.err

# count CSV LINE: the count of a line in a file,line,count,mark CSV ("" when absent).
count() { awk -F, -v l="$2" 'NR > 1 && $2 == l { print $3 }' "$1"; }
# margin LINE: the listing's left-margin count of source line LINE of the file listed.
margin() {
    awk -v l="$1" '/^\*\*\* File /{ n = 0; inside = 1; next }
                   /^Top 10 Lines:/ { inside = 0 }
                   inside && ++n == l { m = substr($0, 1, 16)
                                        if (m ~ / -> $/) { sub(/ -> $/, "", m); gsub(/ /, "", m)
                                                           print m } }' "$out"
}

# --- The seed's fact.c at -O0: Figure 1's counts, its Top 10 Lines and its summary ---------------
"$W/lines_fact" >"$TEST_TMP/fact.plain"
"$PROSPECT" lines -o "$out" -- "$W/lines_fact" >"$TEST_TMP/fact.stdout" 2>"$err"
check fact_exit_status [ $? = 0 ]
check fact_stdout_untouched cmp -s "$TEST_TMP/fact.plain" "$TEST_TMP/fact.stdout"
check fact_listing_names_file grep -q "^\*\*\* File .*lines_fact.c:$" "$out"
check fact_line1_prologue_20 [ "$(margin 1)" = 20 ]
check fact_line3_recursion_19 [ "$(margin 3)" = 19 ]
check fact_line5_else_1 [ "$(margin 5)" = 1 ]
check fact_line7_epilogue_20 [ "$(margin 7)" = 20 ]
check fact_line10_main_printf_1 [ "$(margin 10)" = 1 ]
check fact_line4_not_executable [ -z "$(margin 4)" ]
check fact_source_text grep -q '^          19 ->         return n \* fact(n - 1);$' "$out"
# Top 10 Lines: count descending, then line ascending, as gprof orders them.
top=$(awk '/^Top 10 Lines:/{t=1; next} /^Execution Summary:/{t=0} t && NF == 2 && $1 ~ /^[0-9]+$/ { printf "%s:%s ", $1, $2 }' "$out")
top10_order() { [[ "$top" == "1:20 2:20 7:20 3:19 "* ]]; }
check fact_top10_order top10_order
top10_else() { [[ "$top" == *" 5:1 "* ]]; }
check fact_top10_has_else top10_else
"$PROSPECT" lines --format csv -o "$TEST_TMP/fact.csv" -- "$W/lines_fact" >/dev/null 2>"$err"
total=$(awk -F, 'NR > 1 { s += $3 } END { print s }' "$TEST_TMP/fact.csv")
lines=$(awk -F, 'NR > 1' "$TEST_TMP/fact.csv" | wc -l)
check fact_summary_total grep -Eq "^ +$total   Total number of line executions$" "$out"
check fact_summary_executable grep -Eq "^ +$lines   Executable lines in this file$" "$out"
check fact_summary_percent grep -Eq "^ +100\.00   Percent of the file executed$" "$out"
avg=$(awk -v t="$total" -v n="$lines" 'BEGIN { printf "%.2f", t / n }')
check fact_summary_average grep -Eq "^ +$avg   Average executions per line$" "$out"
check fact_header_states_cost grep -Eq "^# cost per counted execution .*us by jump" "$out"
# -f: one function's lines only; csv is file,line,count,mark.
"$PROSPECT" lines -f fact --format csv -o "$TEST_TMP/fact_f.csv" -- "$W/lines_fact" >/dev/null 2>"$err"
check fact_f_csv_header [ "$(head -1 "$TEST_TMP/fact_f.csv")" = "file,line,count,mark" ]
check fact_f_only_fact [ "$(awk -F, 'NR > 1 { printf "%s=%s ", $2, $3 }' "$TEST_TMP/fact_f.csv")" = "1=20 2=20 3=19 5=1 7=20 " ]

# --source-dir: a program whose source moved; a FIFO where the source was is never opened for
# reading (no hang), the listing says the source was not found.
mkdir -p "$TEST_TMP/build" "$TEST_TMP/moved"
cp "$SRC/lines_fact.c" "$TEST_TMP/build/fact.c"
(cd "$TEST_TMP/build" && gcc -O0 -g -include stdio.h -o fact fact.c)
mv "$TEST_TMP/build/fact.c" "$TEST_TMP/moved/fact.c"
"$PROSPECT" lines -o "$out" --source-dir "$TEST_TMP/moved" -- "$TEST_TMP/build/fact" >/dev/null 2>"$err"
check source_dir_finds_moved_source grep -q '^          19 ->         return n \* fact(n - 1);$' "$out"
mkfifo "$TEST_TMP/build/fact.c"
"$PROSPECT" lines -o "$out" -- "$TEST_TMP/build/fact" >/dev/null 2>"$err"
check source_fifo_not_read grep -q "^\*\*\* File .*/build/fact.c (source not found" "$out"
check source_missing_lists_lines grep -q "^          19 -> line 3$" "$out"

# --- Loops, recursion, threads, a function never run, a child: the model ------------------------
line_of() { grep -n "/\* L:$1 \*/" "$SRC/lines_work.c" | cut -d: -f1; }
"$W/lines_work" >"$TEST_TMP/work.plain"
plain_status=$?
work_sum=$(md5sum <"$W/lines_work")
"$PROSPECT" lines -v --format csv -o "$TEST_TMP/work.csv" -- "$W/lines_work" \
    >"$TEST_TMP/work.stdout" 2>"$err"
check work_exit_status_kept [ $? = $plain_status ] && [ $plain_status = 3 ]
check work_stdout_untouched cmp -s "$TEST_TMP/work.plain" "$TEST_TMP/work.stdout"
check work_uses_inproc_counters grep -q "^prospect lines: in-process: loop relocated" "$err"
# The model: loop() runs 10 times from main, 100 in each of 4 threads, 1000 in the child; a
# for line is entered once per call plus once per iteration (from the body); rec(7) makes 8
# calls, 1 reaching the base case; never() never runs; main's while runs its body 3 times.
iters=$((10 + 4 * 100 + 1000)) calls=6
declare -A model=(
    [loop_open]=$calls [loop_for]=$((calls + iters)) [loop_body]=$iters [loop_close]=$calls
    [rec_open]=8 [rec_if]=8 [rec_base]=1 [rec_step]=7
    [never_open]=0 [never_body]=0
    [worker_call]=4
    [main_loop10]=1 [main_rec]=1 [main_if]=1 [main_never]=0 [main_while]=4 [main_inc]=3
    [main_for1]=5 [main_create]=4 [main_for2]=5 [main_join]=4
    [main_fork]=1 [main_ifchild]=2 [child_loop]=1 [child_exit]=1
    [main_wait]=1 [main_print]=1 [main_ret]=1
)
bad=""
for k in "${!model[@]}"; do
    got=$(count "$TEST_TMP/work.csv" "$(line_of "$k")")
    [ "$got" = "${model[$k]}" ] || bad="$bad $k=$got(want ${model[$k]})"
done
[ -z "$bad" ] || echo "  mismatches:$bad"
check work_counts_match_model [ -z "$bad" ]
check work_line_run_0_times_listed [ "$(count "$TEST_TMP/work.csv" "$(line_of never_body)")" = 0 ]
# Plain uprobes everywhere count the same.
"$PROSPECT" lines --entry trap --format csv -o "$TEST_TMP/work_trap.csv" -- "$W/lines_work" \
    >/dev/null 2>"$err"
check work_trap_equals_jump cmp -s "$TEST_TMP/work.csv" "$TEST_TMP/work_trap.csv"
check work_no_probes_left no_probes_left
check work_file_unchanged [ "$(md5sum <"$W/lines_work")" = "$work_sum" ]
check work_no_hook_files_left [ -z "$(ls -A "$TMPDIR")" ]
# JSON: the same counts, and the summary.
"$PROSPECT" lines --format json -o "$TEST_TMP/work.json" -- "$W/lines_work" >/dev/null 2>"$err"
check work_json_same_counts [ "$(python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
print("\n".join("%s,%d,%d,%s" % (f["file"], l["line"], l["count"], "~" if l.get("upper_bound") else "?" if l.get("optimized") else "") for f in d["files"] for l in f["lines"]))
' "$TEST_TMP/work.json")" = "$(tail -n +2 "$TEST_TMP/work.csv")" ]
# --file restricts to one file; a -f function of another name is refused with a suggestion.
"$PROSPECT" lines --file lines_work.c -f loop --format csv -o "$TEST_TMP/loop.csv" -- \
    "$W/lines_work" >/dev/null 2>"$err"
check work_f_loop_only [ "$(awk -F, 'NR > 1 { printf "%s ", $3 }' "$TEST_TMP/loop.csv")" = "$calls $((calls + iters)) $iters $calls " ]

# --- A program that dies of a signal: its status is kept, the counts up to it printed ---------
build_workload lines_crash lines_crash -O0 -g || { fail build lines_crash; exit 0; }
"$PROSPECT" lines --format csv -o "$TEST_TMP/crash.csv" -- "$W/lines_crash" >/dev/null 2>"$err"
check crash_exit_status_139 [ $? = 139 ]
check crash_signal_said grep -q "^prospect lines: command terminated by signal 11" "$err"
check crash_counts_printed [ "$(count "$TEST_TMP/crash.csv" "$(grep -n "L:body" "$SRC/lines_crash.c" | cut -d: -f1)")" = 10 ]
check crash_line_counted [ "$(count "$TEST_TMP/crash.csv" "$(grep -n "L:crash" "$SRC/lines_crash.c" | cut -d: -f1)")" = 1 ]

# --- A program that execs itself: with its environment both images count; with an empty one
# (no LD_PRELOAD, no entry hook) the second image's jump-entry blocks cannot count: said --------
build_workload lines_exec lines_exec -O0 -g || { fail build lines_exec; exit 0; }
xline=$(grep -n "/\* L:body \*/" "$SRC/lines_exec.c" | cut -d: -f1)
"$PROSPECT" lines --format csv -o "$TEST_TMP/ex.csv" -- "$W/lines_exec" >/dev/null 2>"$err"
check exec_both_images_counted [ "$(count "$TEST_TMP/ex.csv" "$xline")" = 15 ]
check exec_with_hook_no_warning not grep -q "without the entry hook" "$err"
"$PROSPECT" lines --format csv -o "$TEST_TMP/ex.csv" -- "$W/lines_exec" clean >/dev/null 2>"$err"
check exec_without_hook_warned grep -q "^prospect lines: warning: 1 process(es) ran the program without the entry hook" "$err"
"$PROSPECT" lines --entry trap --format csv -o "$TEST_TMP/ex.csv" -- "$W/lines_exec" clean \
    >/dev/null 2>"$err"
check exec_without_hook_trap_counts [ "$(count "$TEST_TMP/ex.csv" "$xline")" = 15 ]

# --- -p PID: a running process, its threads and the threads it starts, counted from attach ------
build_workload lines_attach lines_attach -O0 -g -pthread || { fail build lines_attach; exit 0; }
# until_true SECONDS CMD...: polls a condition (not a sleep standing for one); false at the limit.
until_true() {
    local n=$(($1 * 20)); shift
    while ! "$@"; do n=$((n - 1)); [ $n -gt 0 ] || return 1; sleep 0.05; done
}
exe_is() { [ "$(readlink "/proc/$1/exe" 2>/dev/null)" = "$2" ]; }
mkfifo "$TEST_TMP/go"
"$W/lines_attach" <"$TEST_TMP/go" >/dev/null &
apid=$!
exec 9>"$TEST_TMP/go"
if until_true 30 exe_is $apid "$W/lines_attach"; then
    "$PROSPECT" lines -p $apid --format csv -o "$TEST_TMP/att.csv" 2>"$TEST_TMP/att.err" &
    lpid=$!
    until_true 60 grep -qs "counting process $apid" "$TEST_TMP/att.err"
    echo go >&9
    exec 9>&-
    wait $lpid
    check attach_exit_0 [ $? = 0 ]
    wait $apid
    check attach_target_exit_0 [ $? = 0 ]
    aline() { grep -n "/\* L:$1 \*/" "$SRC/lines_attach.c" | cut -d: -f1; }
    # spin() runs 50 times in main and 25 in each of two threads started after the attach.
    check attach_loop_body_100 [ "$(count "$TEST_TMP/att.csv" "$(aline spin_body)")" = 100 ]
    check attach_loop_for_103 [ "$(count "$TEST_TMP/att.csv" "$(aline spin_for)")" = 103 ]
    check attach_new_threads_counted [ "$(count "$TEST_TMP/att.csv" "$(aline worker)")" = 2 ]
else
    exec 9>&-
    fail attach_target_started "lines_attach did not start"
fi
"$PROSPECT" lines -p abc -o /dev/null >/dev/null 2>"$err"
check attach_bad_pid_exit_2 [ $? = 2 ]
# pid_max is at most 4194304 (2^22), so no process has that id.
"$PROSPECT" lines -p 4194304 -o /dev/null >/dev/null 2>"$err"
check attach_no_process_exit_1 [ $? = 1 ]
check attach_no_process_message grep -q "^prospect lines: cannot attach to process 4194304: " "$err"
"$PROSPECT" lines -p $$ -- true >/dev/null 2>"$err"
check attach_and_command_exit_2 [ $? = 2 ]

# --- gcov on the same source: its line counts equal ours on every line both count ------------
# vs_gcov NAME SRC OURS_CSV GCC_FLAGS...: builds SRC with --coverage in its own directory, runs
# it, and compares gcov's count of every line with ours. Sets gn (lines compared), skipped
# (lines gcov counts where the uninstrumented build has no code: a `case` label, a `continue`
# gcc turned into the branch itself) and bad. gcov puts a function's entry on its declaration
# line, the line table (and so prospect) on the line of its opening brace when that is next.
vs_gcov() {
    local name=$1 src=$2 csv=$3 c l got; shift 3
    mkdir -p "$TEST_TMP/gcov_$name"
    gn=0 skipped=0 bad=""
    gcc -O0 -g --coverage "$@" -o "$TEST_TMP/gcov_$name/prog" "$src" || return 1
    (cd "$TEST_TMP/gcov_$name" && ./prog >/dev/null; gcov -t prog-"$(basename "$src" .c)".gcda \
        2>/dev/null) >"$TEST_TMP/$name.gcov"
    while IFS=: read -r c l _; do
        c=${c// /} l=${l// /}
        case $c in ''|-|*[!0-9#]*) continue ;; esac
        [ "$c" = "#####" ] && c=0
        got=$(count "$csv" "$l")
        if [ -z "$got" ] && sed -n "$((l + 1))p" "$src" | grep -q '^{'; then
            got=$(count "$csv" $((l + 1)))
        fi
        if [ -z "$got" ]; then skipped=$((skipped + 1)); continue; fi
        gn=$((gn + 1))
        [ "$got" = "$c" ] || bad="$bad $l:gcov=$c,ours=$got"
    done <"$TEST_TMP/$name.gcov"
}
if vs_gcov work "$SRC/lines_work.c" "$TEST_TMP/work.csv" -pthread -fprofile-update=atomic; then
    [ -z "$bad" ] || echo "  work: gcov lines $gn:$bad"
    compared_all() { [ "$gn" -ge 30 ] && [ "$skipped" = 0 ]; }
    check work_gcov_counted_lines compared_all
    check work_equals_gcov [ -z "$bad" ]
else
    skip work_equals_gcov "gcc --coverage does not build here"
fi
# switch (a jump table: its cases are block starts found in the table), do-while, continue,
# break, goto, short-circuit conditions on one line; PIE and -no-pie (absolute table entries).
build_workload lines_ctl lines_ctl -O0 -g || { fail build lines_ctl; exit 0; }
build_workload lines_ctl_nopie lines_ctl -O0 -g -no-pie
cline() { grep -n "$1" "$SRC/lines_ctl.c" | head -1 | cut -d: -f1; }
"$PROSPECT" lines --format csv -o "$TEST_TMP/ctl.csv" -- "$W/lines_ctl" >/dev/null 2>"$err"
"$PROSPECT" lines --format csv -o "$TEST_TMP/ctl_nopie.csv" -- "$W/lines_ctl_nopie" \
    >/dev/null 2>"$err"
# case 2's line is entered 15 times falling from case 1 and 14 times from the table.
check switch_fallthrough_and_table_29 [ "$(count "$TEST_TMP/ctl.csv" "$(cline 'return 20;')")" = 29 ]
check switch_nopie_table_29 [ "$(count "$TEST_TMP/ctl_nopie.csv" "$(cline 'return 20;')")" = 29 ]
# A loop on one line counts its entry and its 30 turns, as gcov does (docs/lines.md).
check one_line_loop_counts_turns [ "$(count "$TEST_TMP/ctl.csv" "$(cline 'j < 30; j++')")" = 31 ]
if vs_gcov ctl "$SRC/lines_ctl.c" "$TEST_TMP/ctl.csv"; then
    [ -z "$bad" ] || echo "  ctl: gcov lines $gn:$bad"
    check ctl_gcov_counted_lines [ "$gn" -ge 25 ]
    check ctl_equals_gcov [ -z "$bad" ]
else
    skip ctl_equals_gcov "gcc --coverage does not build here"
fi

# --- Debug info in a separate file (found by .gnu_debuglink, as the symbols are) ---------------
cp "$W/lines_fact" "$TEST_TMP/split"
objcopy --only-keep-debug "$TEST_TMP/split" "$TEST_TMP/split.debug"
strip -g "$TEST_TMP/split"
objcopy --add-gnu-debuglink="$TEST_TMP/split.debug" "$TEST_TMP/split"
"$PROSPECT" lines -f fact --format csv -o "$TEST_TMP/split.csv" -- "$TEST_TMP/split" \
    >/dev/null 2>"$err"
check split_debug_counts [ "$(awk -F, 'NR > 1 { printf "%s=%s ", $2, $3 }' "$TEST_TMP/split.csv")" = "1=20 2=20 3=19 5=1 7=20 " ]

# --- Errors ---------------------------------------------------------------------------------------
gcc -O0 -o "$TEST_TMP/nodebug" "$SRC/lines_fact.c" -include stdio.h
"$PROSPECT" lines -- "$TEST_TMP/nodebug" >"$TEST_TMP/nd.out" 2>"$err"
check nodebug_exit_1 [ $? = 1 ]
check nodebug_message grep -q "^prospect lines: .*has no DWARF line table.*rebuild with -g" "$err"
check nodebug_not_run [ ! -s "$TEST_TMP/nd.out" ]
"$PROSPECT" lines -f fcat -- "$W/lines_fact" >/dev/null 2>"$err"
check unknown_function_exit_1 [ $? = 1 ]
check unknown_function_did_you_mean grep -q "^prospect lines: no function 'fcat' in .*; did you mean fact$" "$err"
"$PROSPECT" lines --file nosuch.c -- "$W/lines_fact" >/dev/null 2>"$err"
check unknown_file_exit_1 [ $? = 1 ]
check unknown_file_named grep -q "no source file 'nosuch.c'.*lines_fact.c" "$err"
"$PROSPECT" lines --format xml -- "$W/lines_fact" >/dev/null 2>"$err"
check bad_format_exit_2 [ $? = 2 ]
"$PROSPECT" lines >/dev/null 2>"$err"
check no_command_exit_2 [ $? = 2 ]
"$PROSPECT" lines -- "$TEST_TMP/does-not-exist" >/dev/null 2>"$err"
check missing_command_127 [ $? = 127 ]
ln -s "$TEST_TMP/victim" "$TEST_TMP/link"
echo keep >"$TEST_TMP/victim"
"$PROSPECT" lines -o "$TEST_TMP/link" -- "$W/lines_fact" >/dev/null 2>"$err"
check output_symlink_exit_1 [ $? = 1 ]
check output_symlink_not_followed [ "$(cat "$TEST_TMP/victim")" = keep ]
check errors_no_probes_left no_probes_left
