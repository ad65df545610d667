# SPDX-License-Identifier: MIT
# same_trees PERF_OUT OURS_OUT [fractal] [parent] [folded] (report_trees.sh says why shares may differ by
# 0.1): prints the first differing line of the workload's row blocks, nothing when they agree.
# parent: rows are per (symbol, Parent symbol), both columns naming the block, leaf via_a needed.
# folded: one line per chain, so a block of one chain is a tree.
import re, sys
BASE = {'main', 'via_a', 'via_b', 'leaf'}
fractal = 'fractal' in sys.argv[3:]
parent = 'parent' in sys.argv[3:]
folded = 'folded' in sys.argv[3:]
ROWS = {f'{n} {p}' for n in BASE for p in ('via_a', '[other]')} if parent else BASE
NEEDED = 'leaf via_a' if parent else 'leaf'
PCT = re.compile(r'\d+\.\d\d%')
def blocks(path):
    rows, cur = {}, None
    for line in open(path, errors='replace').read().split('\n'):
        if line.startswith('#'):
            continue
        m = re.match(r'^ {1,9}\d+\.\d\d%( +[\d.]+%)?', line)   # a row (trees: 11+ spaces)
        if m:
            name = ' '.join(line.split('] ', 1)[-1].split())
            cur = name if name in ROWS and '[.]' in line else None
            if cur:
                rows[cur] = [m.group(0)]
            continue
        if not cur or (fractal and '[...]' in line):
            continue
        if fractal:
            line = line.replace('|', ' ')
        rows[cur].append(line.rstrip())
    for b in rows.values():
        while len(b) > 1 and not b[-1].strip():
            b.pop()
    return rows
def same(p, o):
    if len(p) != len(o):
        return False
    for a, b in zip(p, o):
        if PCT.sub('P', a) != PCT.sub('P', b):
            return False
        for x, y in zip(PCT.findall(a), PCT.findall(b)):
            if abs(float(x[:-1]) - float(y[:-1])) > 0.1:
                return False
    return True
perf, ours = blocks(sys.argv[1]), blocks(sys.argv[2])
bad = [n for n in sorted(ROWS) if (n in perf or n == NEEDED) and not same(perf.get(n, ['(no row)']), ours.get(n, []))]
for n in bad:
    p, o = perf.get(n, ['(no row)']), ours.get(n, ['(no row)'])
    i = next((i for i in range(max(len(p), len(o))) if i >= len(p) or i >= len(o) or not same([p[i]], [o[i]])), 0)
    print(f"{n}: line {i}: perf {p[i] if i < len(p) else '(end)'!r} ours {o[i] if i < len(o) else '(end)'!r}")
    break
if not any(len(b) > (1 if parent or folded else 2) for b in perf.values()):
    print('perf printed no tree')
