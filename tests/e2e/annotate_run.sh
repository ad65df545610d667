# SPDX-License-Identifier: MIT
# prospect run --annotate N (issue 11, the Prospect paper's -e): the report, then the N hottest
# routines disassembled with their hits; the listing's counts are the report's, the skid of the
# div shows where the docs say, the command's output and exit status are untouched.
. "$(dirname "$0")/lib.sh"
unset DEBUGINFOD_URLS   # no network: files not found here stay not found

build_workload annotate_div annotate_div -O2 -g || { fail annotate_run "cannot build annotate_div"; exit 0; }
out=$TEST_TMP/run.txt
"$PROSPECT" run --annotate 2 -o "$out" -- "$WL/annotate_div" 20000000 > "$TEST_TMP/stdout" 2> "$TEST_TMP/stderr"
rc=$?
if [ "$rc" != 0 ] || ! grep -q "^Statistics of Run" "$out"; then
    if grep -q "perf_event_open\|not permitted\|paranoid" "$TEST_TMP/stderr"; then
        skip annotate_run "cannot sample here: $(head -1 "$TEST_TMP/stderr")"
    else
        fail annotate_run "run failed ($rc): $(head -2 "$TEST_TMP/stderr")"
    fi
    exit 0
fi
check annotate_run_report_first grep -q "^Summary of Processes" "$out"
check annotate_run_section grep -q "ASSEMBLY-LEVEL PROFILE: the 2 hottest routines" "$out"
# The report's hits per routine are the listing's (two code paths over the same samples).
for fn in divide mix; do
    rep=$(awk -v f="$fn" '/USER profile/ { on = 1 } on && $5 == f { print $1; exit }' "$out")
    lst=$(sed -n "s/^$fn  .*  (\([0-9]*\) samples\?, .*/\1/p" "$out")
    sum=$(awk -v f="$fn" '$1 == f && $3 ~ /^\(/ { on = 1; next } on && /^$/ { exit }
        on && $1 ~ /^[0-9.]+$/ && $2 ~ /^[0-9]+$/ { s += $2 } END { print s + 0 }' "$out")
    check "annotate_run_${fn}_hits_are_the_reports" [ -n "$rep" -a "$rep" = "$lst" -a "$lst" = "$sum" ]
done
# Skid: the instruction after divide's div gets most of divide's hits (docs/annotate.md).
after=$(awk '$1 == "divide" && $3 ~ /^\(/ { on = 1; next } on && /^$/ { exit }
    on && prev ~ /div[a-z]* / { print ($1 ~ /^[0-9.]+$/) ? $1 : 0; exit } on { prev = $0 }' "$out")
check annotate_run_div_skid awk -v p="${after:-0}" 'BEGIN { exit !(p >= 50) }'
check annotate_run_header_explains_skid grep -q "div land on the next instruction" "$out"
check annotate_run_source_text grep -Eq '^ +annotate_div.c:12   acc \+=' "$out"
check annotate_run_command_output_untouched [ ! -s "$TEST_TMP/stdout" ]
# Usage errors: exit 2, one line.
"$PROSPECT" run --annotate 0 -- true >/dev/null 2>&1
check annotate_run_zero_is_usage [ $? = 2 ]
"$PROSPECT" run --annotate x -- true >/dev/null 2>&1
check annotate_run_bad_is_usage [ $? = 2 ]
"$PROSPECT" run --help | grep -q -- '--annotate N'
check annotate_run_help [ $? = 0 ]
# The command's exit status is kept.
"$PROSPECT" run --annotate 1 -o "$TEST_TMP/st.txt" -- sh -c "'$WL/annotate_div' 1000000; exit 3" >/dev/null 2>&1
check annotate_run_exit_status [ $? = 3 ]
