# SPDX-License-Identifier: MIT
# C++ names (issue 19): one display name in every output (folded, SVG, pprof, speedscope,
# --children, the flat table), perf's: no parameter list, no return type, template arguments,
# lambdas, operators and "(anonymous namespace)" whole. Oracle: perf report and perf script's
# stackcollapse on perf's own -g file of the same run.
. "$(dirname "$0")/lib.sh"

W=$(dirname "$0")/../workloads
if ! g++ -O2 -g -fno-omit-frame-pointer -o "$WL/cxx_names" "$W/cxx_names.cc"; then
    fail cxx_names_build "g++ cannot build tests/workloads/cxx_names.cc"
    exit 0
fi
if ! command -v perf >/dev/null; then
    skip cxx_names "perf is not installed (the oracle)"
    exit 0
fi
if ! precord -e cpu-clock -g -o "$TEST_TMP/perf.data" -- "$WL/cxx_names"; then
    skip cxx_names "perf record -g failed three times"
    exit 0
fi
D=$TEST_TMP/perf.data
names=('work<int (int)>' 'work<int (double)>' '(anonymous namespace)::anon_spin'
       'Op::operator()' 'operator<<')
tags=(work_int_int work_int_double anon_namespace call_operator shift_operator)

# Samples per leaf function, "count<TAB>name", from folded lines (kernel leaves left out).
leaves() {
    awk '{ n = $NF; sub(/ [0-9]+$/, ""); k = split($0, f, ";")
           if (f[k] !~ /_\[k\]$/) s[f[k]] += n }
         END { for (x in s) print s[x] "\t" x }' "$1" | sort -t"$(printf '\t')" -k2
}
# (perf script report reads ./perf.data whatever -i says.)
(cd "$TEST_TMP" && perf script report stackcollapse 2>/dev/null) >"$TEST_TMP/perf.folded"
"$PROSPECT" report -i "$D" --format folded >"$TEST_TMP/ours.folded" 2>/dev/null
leaves "$TEST_TMP/perf.folded" >"$TEST_TMP/perf.leaves"
leaves "$TEST_TMP/ours.folded" >"$TEST_TMP/ours.leaves"
for i in "${!names[@]}"; do
    n=${names[$i]} t=${tags[$i]}
    want=$(awk -F'\t' -v n="$n" '$2 == n { print $1 }' "$TEST_TMP/perf.leaves")
    got=$(awk -F'\t' -v n="$n" '$2 == n { print $1 }' "$TEST_TMP/ours.leaves")
    check "folded_leaf_samples_as_perf_stackcollapse_$t" [ -n "$want" -a "$want" = "$got" ]
done
lambda=$(grep -c '__introsort_loop<.*_Iter_comp_iter<main::{lambda(long, long)#1}> >' \
    "$TEST_TMP/ours.folded")
check folded_lambda_name_whole [ "$lambda" -gt 0 ]
check folded_no_return_type [ -z "$(grep -E ';(void|long|bool) ' "$TEST_TMP/ours.folded")" ]

# both CMD... A B: CMD holds for A and for B.
both() { "${@:1:$#-2}" "${@: -2:1}" && "${@:1:$#-2}" "${@: -1}"; }
# The flat table and --children: perf report's symbol column, row for row.
perf report -i "$D" --stdio --no-children --sort sym -g none 2>/dev/null |
    sed -n 's/^ *[0-9.]*%  \[\.\] //p' | sed 's/ *$//' | sort >"$TEST_TMP/perf.syms"
"$PROSPECT" report -i "$D" --sort sym 2>/dev/null |
    sed -n 's/^ *[0-9.]*%  \[\.\] //p' | sed 's/ *$//' | sort >"$TEST_TMP/ours.syms"
"$PROSPECT" report -i "$D" --children -g none 2>/dev/null >"$TEST_TMP/children.txt"
"$PROSPECT" report -i "$D" --format svg -o "$TEST_TMP/g.svg" 2>/dev/null
"$PROSPECT" report -i "$D" --format pprof -o "$TEST_TMP/g.pprof" 2>/dev/null
"$PROSPECT" report -i "$D" --format speedscope -o "$TEST_TMP/g.json" 2>/dev/null
python3 -c 'import json, sys
for f in json.load(open(sys.argv[1]))["shared"]["frames"]: print(f["name"])' "$TEST_TMP/g.json" \
    >"$TEST_TMP/speedscope.names" 2>/dev/null
gzip -dc "$TEST_TMP/g.pprof" 2>/dev/null | tr -c '[:print:]' '\n' >"$TEST_TMP/pprof.strings"
for i in "${!names[@]}"; do
    n=${names[$i]} t=${tags[$i]}
    x=$(sed 's/&/\&amp;/g; s/</\&lt;/g; s/>/\&gt;/g' <<<"$n")
    check "flat_name_as_perf_report_$t" both grep -qxF -- "$n" "$TEST_TMP/perf.syms" \
        "$TEST_TMP/ours.syms"
    check "children_name_$t" grep -qE -- "\[\.\] $(sed 's/[][()*.^$]/\\&/g' <<<"$n")\$" \
        "$TEST_TMP/children.txt"
    check "svg_name_$t" grep -qF -- "<title>$x (" "$TEST_TMP/g.svg"
    check "speedscope_name_$t" grep -qxF -- "$n" "$TEST_TMP/speedscope.names"
    check "pprof_name_$t" grep -qF -- "$n" "$TEST_TMP/pprof.strings"
done
# Nothing cut: no frame named after a template's first '(' or operator()'s in any output.
cut='(^|;)([a-z]+ )?(work<int |Op::operator)(;| [0-9]+$)'
check no_output_cuts_at_paren [ -z "$(grep -E "$cut" "$TEST_TMP/ours.folded"
    grep -xE 'work<int ?|Op::operator' "$TEST_TMP/speedscope.names"
    grep -E '\[\.\] (work<int|Op::operator) *$' "$TEST_TMP/children.txt")" ]
