# SPDX-License-Identifier: MIT
# report --hierarchy (issue 23, section 2) against perf report --hierarchy on the same files,
# perf's and Prospect's -g files and a file without call chains: every level's node and share
# (tests/e2e/same_hier.py), the indentation, the chains under the rows in each -g mode and
# order, with and without --children (perf 6.1's --hierarchy drops the Children column).
. "$(dirname "$0")/lib.sh"

build_workload callgraph callgraph -O0 -fno-omit-frame-pointer ||
    { fail hierarchy_build "cannot build tests/workloads/callgraph.c"; exit 0; }
CG=$WL/callgraph

if ! command -v perf >/dev/null || ! perf record -q -o "$TEST_TMP/probe.data" -- true >/dev/null 2>&1; then
    skip report_hierarchy "perf is not installed or cannot record here"
    exit 0
fi
precord -g -o "$TEST_TMP/perf.data" -- "$CG" 1500 ||
    { fail hierarchy_perf_record "perf record -g failed"; exit 0; }
"$PROSPECT" record -g -o "$TEST_TMP/p.data" -- "$CG" 1500 >/dev/null 2>&1 ||
    { fail hierarchy_record "prospect record -g failed"; exit 0; }
# Two processes of one command (comm joins them, pid keeps them apart); no call chains.
precord -o "$TEST_TMP/two.data" -- sh -c "'$CG' 400; '$CG' 400" ||
    { fail hierarchy_perf_record_flat "perf record failed"; exit 0; }

compare() {   # compare NAME FILE ARGS...: perf's and Prospect's --hierarchy ARGS of FILE
    local name=$1 file=$2 out
    shift 2
    perf report -i "$file" --stdio --hierarchy "$@" >"$TEST_TMP/$name.perf" 2>/dev/null
    "$PROSPECT" report -i "$file" --hierarchy "$@" >"$TEST_TMP/$name.ours" 2>"$TEST_TMP/$name.err"
    out=$(python3 "$(dirname "$0")/same_hier.py" "$TEST_TMP/$name.perf" "$TEST_TMP/$name.ours")
    check "hierarchy_$name" [ -z "$out" -a -s "$TEST_TMP/$name.ours" ] || echo "  $out"
}

for f in perf p; do
    D=$TEST_TMP/$f.data
    compare "${f}_none" "$D" -g none
    compare "${f}_samples" "$D" -g none -n
    compare "${f}_dso_sym" "$D" -g none --sort dso,sym
    compare "${f}_sym_comm_limit" "$D" -g none --sort sym,comm --percent-limit 1
    compare "${f}_graph" "$D"
    compare "${f}_graph_children" "$D" --children
    compare "${f}_graph_no_children" "$D" --no-children
    compare "${f}_folded" "$D" -g folded
    compare "${f}_folded_callee" "$D" -g folded,0.5,callee
    compare "${f}_flat_inverted" "$D" -g flat -G
done
compare two_comm "$TEST_TMP/two.data"
compare two_pid "$TEST_TMP/two.data" --sort pid,dso,sym

# The header as perf's, each level 3 columns deeper, lines within 100 columns without --wide.
O=$TEST_TMP/p_none.ours
check hierarchy_header grep -qx '#       Overhead  Command / Shared Object / Symbol' "$O"
check hierarchy_three_levels grep -qE '^ {8}[ 0-9]{3}[0-9]\.[0-9]{2}%        \[\.\] leaf$' "$O"
check hierarchy_fits_100_columns awk 'length > 100 { exit 1 }' "$O"
# Two processes: one comm node, two pid nodes.
check hierarchy_two_pids [ "$(grep -cE '^ +[0-9.]+% +[0-9]+:callgraph' "$TEST_TMP/two_pid.ours")" = 2 ]
# Text only; chains need the symbol level.
"$PROSPECT" report -i "$TEST_TMP/p.data" --hierarchy --format csv >/dev/null 2>&1
check hierarchy_csv_is_usage_error [ $? -eq 2 ]
"$PROSPECT" report -i "$TEST_TMP/p.data" --hierarchy --sort comm,dso >/dev/null 2>&1
check hierarchy_chains_need_sym [ $? -eq 2 ]
"$PROSPECT" report -i "$TEST_TMP/p.data" --hierarchy --sort comm,dso -g none >"$TEST_TMP/cd" 2>&1
# the command's row and its program's DSO row below it (a quiet run may take no kernel sample)
check hierarchy_comm_dso_without_chains [ "$(grep -cE '^ +[0-9.]+% +callgraph *$' "$TEST_TMP/cd")" = 2 ]
