# SPDX-License-Identifier: MIT
# The call chains under each --children / --no-children row (issue 23, section 2), against
# perf report --stdio on the same file, perf's and Prospect's: every mode, order and threshold
# of -g, -G, --sort sym, --percent-limit; the workload's rows (main, via_a, via_b, leaf) must
# print the same tree lines, percentages and names as perf's.
. "$(dirname "$0")/lib.sh"

build_workload callgraph callgraph -O0 -fno-omit-frame-pointer ||
    { fail trees_build "cannot build tests/workloads/callgraph.c"; exit 0; }
CG=$WL/callgraph

if ! command -v perf >/dev/null || ! perf record -q -o "$TEST_TMP/probe.data" -- true >/dev/null 2>&1; then
    skip report_trees "perf is not installed or cannot record here"
    exit 0
fi
precord -g -o "$TEST_TMP/perf.data" -- "$CG" 1500 ||
    { fail trees_perf_record "perf record -g failed"; exit 0; }
"$PROSPECT" record -g -o "$TEST_TMP/p.data" -- "$CG" 1500 >/dev/null 2>&1 ||
    { fail trees_record "prospect record -g failed"; exit 0; }

# same_trees PERF_OUT OURS_OUT: the blocks (values, then tree lines) of the workload's rows.
# perf 6.1 prints fractal's "[...]" (the hidden children's share) with a stray " (inlined)"
# (its placeholder symbol's flag is never set): not compared.
same_trees() {
    python3 - "$1" "$2" <<'PY'
import re, sys
ROWS = {'main', 'via_a', 'via_b', 'leaf'}
def blocks(path):
    rows, cur = {}, None
    for line in open(path, errors='replace').read().split('\n'):
        if line.startswith('#'):
            continue
        m = re.match(r'^ {1,9}\d+\.\d\d%( +[\d.]+%)?', line)   # a row (trees: 11+ spaces)
        if m:
            name = line.split('] ', 1)[-1].strip()
            cur = name if name in ROWS and '[.]' in line else None
            if cur:
                rows[cur] = [m.group(0).split()]
            continue
        if cur:
            rows[cur].append(re.sub(r'\[\.\.\.\] \(inlined\)$', '[...]', line))
    for b in rows.values():
        while len(b) > 1 and not b[-1].strip():
            b.pop()
    return rows
perf, ours = blocks(sys.argv[1]), blocks(sys.argv[2])
bad = [n for n in sorted(ROWS) if (n in perf or n == 'leaf') and perf.get(n) != ours.get(n)]
for n in bad:
    p, o = perf.get(n, ['(no row)']), ours.get(n, ['(no row)'])
    i = next((i for i in range(max(len(p), len(o))) if i >= len(p) or i >= len(o) or p[i] != o[i]), 0)
    print(f"{n}: line {i}: perf {p[i] if i < len(p) else '(end)'!r} ours {o[i] if i < len(o) else '(end)'!r}")
    break
if not any(len(b) > 2 for b in perf.values()):
    print('perf printed no tree')
PY
}

for f in perf p; do
    for args in "--children" "--no-children" "--children -G" "--no-children -G" \
                "--children --sort sym" "--children -g fractal" "--children -g flat" \
                "--children -g folded" "--children -g callee" "--no-children -g caller" \
                "--children -g graph,2,caller" "--children --percent-limit 3" \
                "--no-children -g fractal,0.5,callee"; do
        name=$(tr -c 'a-z0-9\n' _ <<<"$f${args}" | tr -s _)
        perf report -i "$TEST_TMP/$f.data" --stdio $args >"$TEST_TMP/$name.perf" 2>/dev/null
        "$PROSPECT" report -i "$TEST_TMP/$f.data" $args --wide >"$TEST_TMP/$name.ours" 2>"$TEST_TMP/$name.err"
        out=$(same_trees "$TEST_TMP/$name.perf" "$TEST_TMP/$name.ours")
        check "trees_$name" [ -z "$out" -a -s "$TEST_TMP/$name.ours" ] || echo "  $out"
    done
done

# The trees are the default of --children; -g none is the table alone (perf's).
check trees_g_none_is_table_alone [ -z "$("$PROSPECT" report -i "$TEST_TMP/p.data" --children \
    -g none | grep -- '---\|--[0-9.]*%--')" ]
# --sort sym: the Symbol column only, as perf.
check trees_sort_sym_symbol_column_only grep -q '^# Children      Self  Symbol$' \
    "$TEST_TMP/p_children_sort_sym.ours"
check trees_no_children_overhead_header grep -Eq '^# Overhead  Command +Shared Object' \
    "$TEST_TMP/p_no_children.ours"
# -g alone makes perf's default report (--children); bad parameters are usage errors.
check trees_g_alone_is_children grep -q '^# Children' \
    <("$PROSPECT" report -i "$TEST_TMP/p.data" -g caller 2>&1)
"$PROSPECT" report -i "$TEST_TMP/p.data" -g address >/dev/null 2>&1
check trees_g_unsupported_is_usage_error [ $? -eq 2 ]
"$PROSPECT" report -i "$TEST_TMP/p.data" --callers leaf -g graph >/dev/null 2>&1
check trees_g_with_callers_is_usage_error [ $? -eq 2 ]
