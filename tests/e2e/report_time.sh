# SPDX-License-Identifier: MIT
# report --time (issue 23, section 2), perf's forms (absolute seconds, either side open,
# several ranges; P%/N slices; A%-B% ranges), against perf report --time and perf script --time
# on the same file: the samples kept, the flat rows, the folded stacks, the Children table.
. "$(dirname "$0")/lib.sh"

build_workload callgraph callgraph -O0 -fno-omit-frame-pointer ||
    { fail time_build "cannot build tests/workloads/callgraph.c"; exit 0; }
if ! command -v perf >/dev/null || ! perf record -q -o "$TEST_TMP/probe.data" -- true >/dev/null 2>&1; then
    skip report_time "perf is not installed or cannot record here"
    exit 0
fi
D=$TEST_TMP/t.data
precord -g -o "$D" -- "$WL/callgraph" 1500 || { fail time_perf_record "perf record -g failed"; exit 0; }
first=$(perf report -i "$D" --header-only 2>/dev/null | awk -F': ' '/time of first sample/ { print $2 }')
last=$(perf report -i "$D" --header-only 2>/dev/null | awk -F': ' '/time of last sample/ { print $2 }')
if [ -z "$first" ] || [ -z "$last" ]; then
    fail time_header "perf's header has no first/last sample time"
    exit 0
fi
at() { awk -v a="$first" -v b="$last" -v f="$1" 'BEGIN { printf "%.6f", a + f * (b - a) }'; }
q1=$(at 0.25); mid=$(at 0.5); q3=$(at 0.75)

# rows FILE: "comm|dso|sym|percent" of a flat table of 1% or more (perf's or ours).
rows() { grep -v '^#' "$1" | awk 'NF >= 5 && $1 ~ /%$/ { p = $1; sub("%", "", p); if (p + 0 < 1) next
    s = $0; sub(/^ *[^ ]+ +[^ ]+ +[^ ]+ +/, "", s); print $2 "|" $3 "|" s "|" p }' | sort; }

i=0
for t in "10%/2" "0%-10%,30%-40%" "10%/1,10%/3" "$mid," ",$mid" "$q1,$mid $q3,"; do
    i=$((i + 1))
    n=$(perf script -i "$D" --time "$t" -F time 2>/dev/null | grep -c .)
    ours=$("$PROSPECT" report -i "$D" --flat --time "$t" 2>&1 | awk '/^# Samples:/ { print $3 }')
    check "time_${i}_samples_as_perf_script" [ -n "$ours" -a "$ours" = "$n" -a "${n:-0}" -gt 50 ]
    folded=$("$PROSPECT" report -i "$D" --format folded --time "$t" | awk '{ n += $NF } END { print n + 0 }')
    check "time_${i}_folded_samples_as_perf_script" [ "$folded" = "$n" ]
    perf report -i "$D" --stdio --no-children -g none --sort comm,dso,sym --time "$t" \
        2>/dev/null >"$TEST_TMP/perf$i.txt"
    "$PROSPECT" report -i "$D" --flat --wide --time "$t" >"$TEST_TMP/ours$i.txt" 2>&1
    check "time_${i}_flat_rows_as_perf" [ -n "$(rows "$TEST_TMP/perf$i.txt")" -a \
        "$(rows "$TEST_TMP/perf$i.txt")" = "$(rows "$TEST_TMP/ours$i.txt")" ]
    # The Children table of the same samples: the workload's rows' shares as perf's.
    perf report -i "$D" --stdio --children -g none --sort sym --time "$t" 2>/dev/null |
        awk '$NF ~ /^(main|via_a|via_b|leaf)$/ { print $NF, $1, $2 }' | sort >"$TEST_TMP/pc$i.txt"
    "$PROSPECT" report -i "$D" --children -g none --sort sym --time "$t" 2>/dev/null |
        awk '$NF ~ /^(main|via_a|via_b|leaf)$/ { print $NF, $1, $2 }' | sort >"$TEST_TMP/oc$i.txt"
    # Within 0.2 point: a sample in leaf's prologue has no via_* in perf's chain and gets it
    # back in ours (the frameless-leaf fix, docs/callgraph.md); one such sample met in a run.
    check "time_${i}_children_as_perf" sh -c "[ -s $TEST_TMP/pc$i.txt ] && paste -d' ' \
        $TEST_TMP/pc$i.txt $TEST_TMP/oc$i.txt | awk 'function d(a, b) { a += 0; b += 0
            return a > b ? a - b : b - a } \$1 != \$4 || d(\$2, \$5) > 0.2 ||
            d(\$3, \$6) > 0.2 { bad = 1 } END { exit bad || NR != 4 }'"
done

"$PROSPECT" report -i "$D" --flat --time 1,2,3 >/dev/null 2>&1
check time_bad_range_is_usage_error [ $? -eq 2 ]
"$PROSPECT" report -i "$D" --flat --time 50%/3 >/dev/null 2>&1
check time_slice_past_the_end_is_usage_error [ $? -eq 2 ]
# A pipe has no header times: percentages cannot be placed (perf says the same).
out=$(perf record -q -o - -- "$WL/callgraph" 100 2>/dev/null | "$PROSPECT" report -i - --flat --time 10%/1 2>&1)
check time_percent_without_header_times_said [ $? -eq 1 -a -n "$(grep 'first and last sample' <<<"$out")" ]
