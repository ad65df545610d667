# SPDX-License-Identifier: MIT
# The frameless-leaf fix of frame-pointer chains (issue 19): a caller is added only when it
# really calls the leaf's function. Workload built without frame pointers, its leaf's rbp
# pointing at a stale return address that follows a call to another function (as sqlite3
# without frame pointers gave cfree;_int_free;sqlite3BtreeLast under perf -g).
. "$(dirname "$0")/lib.sh"

if ! gcc -O2 -fomit-frame-pointer -o "$WL/stale" "$(dirname "$0")/../workloads/stale_chain.c"; then
    fail callgraph_leaf_build "cannot build tests/workloads/stale_chain.c"
    exit 0
fi
# leaf_lines FILE: "invented" lines (other added as leaf's caller), then leaf's samples under
# caller as the chain has it, then all of leaf's samples.
leaf_counts() {
    "$PROSPECT" report -i "$1" --format folded 2>/dev/null |
        awk '/;other;leaf( |;)/ { bad += $NF } /;caller;leaf( |;)/ { ok += $NF }
             /;leaf( |;)/ { all += $NF } END { print bad + 0, ok + 0, all + 0 }'
}
if "$PROSPECT" record -g -o "$TEST_TMP/p.data" -- "$WL/stale" 300000000 >/dev/null 2>&1; then
    read -r bad ok all <<<"$(leaf_counts "$TEST_TMP/p.data")"
    check stale_chain_no_invented_caller [ "$bad" -eq 0 -a "$all" -gt 0 -a "$ok" -eq "$all" ]
else
    fail stale_chain_no_invented_caller "prospect record -g failed"
fi
if ! command -v perf >/dev/null; then
    skip stale_chain_perf_file "perf is not installed"
elif precord -e cpu-clock -g -o "$TEST_TMP/perf.data" -- "$WL/stale" 300000000; then
    # perf's own file: every leaf sample under caller, as perf script shows the chain (user
    # frames; kernel ones of an interrupt first).
    want=$(perf script -i "$TEST_TMP/perf.data" -F ip,sym 2>/dev/null |
        awk '/^$/ { if (n >= 2 && f[1] == "leaf" && f[2] == "caller") c++; n = 0; next }
             $1 !~ /^ffff/ { f[++n] = $2 } END { print c + 0 }')
    read -r bad ok all <<<"$(leaf_counts "$TEST_TMP/perf.data")"
    check stale_chain_perf_file_as_perf_script [ "$bad" -eq 0 -a "$ok" -gt 0 -a "$ok" -eq "$want" ]
else
    skip stale_chain_perf_file "perf record -g failed three times"
fi
