# SPDX-License-Identifier: MIT
# same_hier PERF_OUT OURS_OUT: perf report --hierarchy's tree against Prospect's. Every node of
# 0.1% or more in perf's (its path of keys from the top level) must be in ours at the same depth
# and indentation, its share within 0.1 point (the frameless-leaf fix of docs/callgraph.md moves
# a sample in 4,000 between chains) and its Samples within 1% when -n printed them; siblings in
# the same order where their shares differ by more than 0.1; the chains under the workload's
# rows (main, via_a, via_b, leaf) the same lines, shares within 0.1. Prints the first
# difference, nothing when they agree.
import re, sys
NODE = re.compile(r'^( *)(\d+\.\d\d)%(  +(\d+))?(  +)(\S.*?)\s*$')
PCT = re.compile(r'\d+\.\d\d%')
BASE = {'[.] main', '[.] via_a', '[.] via_b', '[.] leaf'}

def parse(path):
    nodes, chains, order, stack, cur = {}, {}, [], [], None
    for line in open(path, errors='replace').read().split('\n'):
        if line.startswith('#'):
            continue
        m = NODE.match(line)
        end = len(m.group(1)) + len(m.group(2)) if m else 0   # a level-d node: 9 + 3d
        if m and end >= 9 and (end - 9) % 3 == 0:
            depth = (end - 9) // 3
            stack = stack[:depth] + [m.group(6)]
            key = ' > '.join(stack)
            nodes[key] = (float(m.group(2)), int(m.group(4) or -1), end, len(m.group(5)))
            order.append(key)
            cur = key if m.group(6) in BASE else None
            if cur:
                chains[cur] = []
            continue
        if cur is not None and line.strip():
            chains[cur].append(line.rstrip())
    return nodes, chains, order

def close(a, b):
    if PCT.sub('P', a) != PCT.sub('P', b):
        return False
    return all(abs(float(x[:-1]) - float(y[:-1])) <= 0.1
               for x, y in zip(PCT.findall(a), PCT.findall(b)))

pn, pc, po = parse(sys.argv[1])
on, oc, oo = parse(sys.argv[2])
if not any(v[0] >= 1 for v in pn.values()):
    sys.exit(print('perf printed no hierarchy'))
for k in po:
    p = pn[k]
    if p[0] < 0.1:
        continue
    o = on.get(k)
    if not o:
        sys.exit(print(f'{k}: not in ours (perf {p[0]}%)'))
    if abs(p[0] - o[0]) > 0.1 or p[2:] != o[2:] or (p[1] >= 0 and abs(p[1] - o[1]) > p[1] / 100):
        sys.exit(print(f'{k}: perf {p} ours {o} (share, samples, columns)'))
    if k in pc and (len(pc[k]) != len(oc.get(k, [])) or not all(map(close, pc[k], oc[k]))):
        o = oc.get(k, [])
        bad = next((i for i in range(len(pc[k])) if i >= len(o) or not close(pc[k][i], o[i])),
                   len(pc[k]))
        sys.exit(print(f'{k}: chain line {bad}: perf {pc[k][bad] if bad < len(pc[k]) else "(end)"!r}'
                       f' ours {o[bad] if bad < len(o) else "(end)"!r}'))
# siblings in order: a node heavier than the one before it (by more than 0.1) is out of order
for seq in (oo,):
    for i in range(1, len(seq)):
        a, b = seq[i - 1], seq[i]
        if a.rsplit(' > ', 1)[:-1] == b.rsplit(' > ', 1)[:-1] and on[b][0] > on[a][0] + 0.1:
            sys.exit(print(f'ours: {b} ({on[b][0]}%) after its lighter sibling {a}'))
if not pc and any(c for c in oc.values()):
    sys.exit(print('ours printed chains, perf none'))
