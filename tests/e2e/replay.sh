#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# prospect replay: real ltrace logs and binary traces (written with the tracefile writer)
# replayed against the installed allocators; the executed-call dump checked for order, sizes,
# threads and pointer matching (never timings); JSON/CSV/SVG outputs parsed; hostile inputs.
. "$(dirname "$0")/lib.sh"
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
T=$TEST_TMP/replay
mkdir -p "$T"
QUICK=(-r 1 --warmup 0)
# verify NAME 'CONDITION': pass if the whole shell condition (with && and ||) holds.
verify() { local n=$1; shift; if eval "$*"; then pass "$n"; else fail "$n" "$*"; fi; }

# ---- options ----
out=$("$PROSPECT" replay --help); rc=$?
verify replay_help '[ $rc -eq 0 ] && grep -q -- --allocator <<<"$out" && grep -q -- --log-y <<<"$out"'
bad=0
"$PROSPECT" replay >/dev/null 2>&1; [ $? -eq 2 ] || bad=1
"$PROSPECT" replay --allocator foo x.log >/dev/null 2>&1; [ $? -eq 2 ] || bad=2
"$PROSPECT" replay -r 0 x.log >/dev/null 2>&1; [ $? -eq 2 ] || bad=3
"$PROSPECT" replay --cpu 4095 x.log >/dev/null 2>&1; [ $? -eq 2 ] || bad=4
"$PROSPECT" replay --format xml x.log >/dev/null 2>&1; [ $? -eq 2 ] || bad=5
"$PROSPECT" replay --allocator glibc,glibc x.log >/dev/null 2>&1; [ $? -eq 2 ] || bad=6
"$PROSPECT" replay --dump --format json x.log >/dev/null 2>&1; [ $? -eq 2 ] || bad=7
"$PROSPECT" replay --barrier rdtsc x.log >/dev/null 2>&1; [ $? -eq 2 ] || bad=8
check replay_usage_errors [ $bad -eq 0 ]

# outputs SRC: every allocator, the SVG (plain and --log-y) and CSV, for trace SRC.
outputs() {
    local SRC=$1 a name lib rc
    # Every allocator: installed ones run with their own malloc; others are skipped with a note.
    "$PROSPECT" replay "$SRC" --format json -r 2 --warmup 1 -o "$T/c.svg" \
        >"$T/r.json" 2>"$T/r.err"
    rc=$?
    for a in glibc:libc.so.6 jemalloc:libjemalloc.so.2 tcmalloc:libtcmalloc_minimal.so.4 \
             mimalloc:libmimalloc.so.2; do
        name=${a%%:*} lib=/usr/lib/x86_64-linux-gnu/${a#*:}
        if [ ! -e "$lib" ]; then
            if grep -q "$name skipped" "$T/r.err"; then
                skip "replay_allocator_$name" "$lib is not installed"
            else
                fail "replay_allocator_$name" "no note about the missing $lib"
            fi
            continue
        fi
        if [ $rc -eq 0 ] && python3 - "$T/r.json" "$name" "$lib" <<'EOF'
import json, os, sys
doc = json.load(open(sys.argv[1]))[0]
a = [x for x in doc['allocators'] if x['name'] == sys.argv[2]][0]
assert a['ran'], a
assert os.path.realpath(a['malloc_from']) == os.path.realpath(sys.argv[3]), a['malloc_from']
calls = {f['function']: f['calls'] for f in a['functions']}
assert calls == {k: 2 * v for k, v in doc['calls'].items()}, (calls, doc['calls'])
for f in a['functions']:
    assert f['p50'] <= f['p90'] <= f['p99'] <= f['p99.9'] <= f['max'], f
assert a['peak_rss_kb'] >= a['base_rss_kb'] > 0, a
assert doc['cpu'] >= 0 and 'warned' in doc['check'] and doc['barrier'] == 'lfence'
# The fallback reads are named exactly when the CPU has no rdtscp.
has = any(l.startswith('flags') and ' rdtscp' in l for l in open('/proc/cpuinfo'))
assert (doc['tsc_fallback'] is None) == has, doc['tsc_fallback']
EOF
        then pass "replay_allocator_$name"
        else fail "replay_allocator_$name" "exit $rc; $(head -2 "$T/r.err")"
        fi
    done

    # The SVG: well-formed, one curve per allocator that ran, each named; --log-y too.
    "$PROSPECT" replay "$SRC" "${QUICK[@]}" --log-y --function free -o "$T/log.svg" \
        >/dev/null 2>&1
    svg_ok() {
        python3 - "$1" "$T/r.json" <<'EOF'
import json, sys, xml.etree.ElementTree as ET
ns = '{http://www.w3.org/2000/svg}'
root = ET.parse(sys.argv[1]).getroot()
lines = [p for p in root.iter(ns + 'polyline') if p.get('class') == 'series']
names = sorted(p.find(ns + 'title').text for p in lines)
ran = sorted(a['name'] for a in json.load(open(sys.argv[2]))[0]['allocators'] if a['ran'])
assert names == ran, (names, ran)
for p in lines:
    assert len(p.get('points').split()) > 100
EOF
    }
    check replay_svg svg_ok "$T/c.svg"
    check replay_svg_log_y svg_ok "$T/log.svg"
    if command -v xmllint >/dev/null; then
        check replay_svg_xmllint xmllint --noout "$T/c.svg" "$T/log.svg"
    fi

    # CSV: a header and one row per allocator and function.
    "$PROSPECT" replay "$SRC" --allocator glibc "${QUICK[@]}" --format csv >"$T/r.csv" 2>/dev/null
    check replay_csv python3 -c '
import csv, sys
rows = list(csv.DictReader(open(sys.argv[1])))
assert sorted(r["function"] for r in rows) == ["calloc", "free", "malloc", "realloc"], rows
assert all(r["allocator"] == "glibc" and int(r["calls"]) > 0 for r in rows)
' "$T/r.csv"
}

# ---- a real ltrace log of a 4-thread program ----
build_workload rthreads replay_threads -O0 -fno-builtin -pthread || { fail replay_build workload; exit 0; }
have_log=0
if ! command -v ltrace >/dev/null; then
    skip replay_ltrace_log "ltrace is not installed (Debian package ltrace)"
else
    # ltrace -f is itself fragile with threads (the issue saw it crash programs, and it writes
    # "unexpected breakpoint" into the log when it loses a thread): three tries for a clean log,
    # else the last complete one (the reader must take it too).
    for i in 1 2 3; do
        if ltrace -f -o "$T/try.log" -e malloc+free+calloc+realloc "$WL/rthreads" >"$T/lt.out" 2>&1 &&
           grep -qx done "$T/lt.out"; then
            have_log=1
            mv "$T/try.log" "$T/lt.log"
            grep -q "unexpected breakpoint" "$T/lt.log" || break
        fi
    done
    [ $have_log -eq 1 ] || skip replay_ltrace_log "ltrace -f did not complete the workload in 3 tries"
fi

# dump_calls FILE: the dump lines without the allocator name.
dump_calls() { sed -n 's/^dump [^ ]* /dump /p' "$1"; }

# dump_matches LOG DUMP: the workload's own counts, the log's calls in line order and the
# replay's dump agree: same calls, tasks and sizes in the same order, every free and realloc
# released the block an independent walk over the log says it did (frees across threads
# included), one replay thread per task. Exit 3: ltrace lost calls or misread a pointer.
dump_matches() {
    python3 - "$1" "$2" <<'EOF'
import re, sys
log, dump = open(sys.argv[1]).read().splitlines(), open(sys.argv[2]).read().splitlines()
def num(v):
    v = v.strip()
    return 0 if v in ('nil', '<void>', '') else int(v, 0)
# The log's calls in the order they started: [tid, func, args, ret, line returned].
calls, pending = [], {}
for n, line in enumerate(log):
    m = re.match(r'^(\d+) (?:[\d:.]+ +)?(?:\[\w+\] +)?\S+->(\w+)\(([^<)]*)(.*)$', line)
    if m:
        tid, f, args, rest = m.group(1), m.group(2), m.group(3), m.group(4)
        c = [tid, f, [num(a) for a in args.split(',') if a.strip()], None, n]
        calls.append(c)
        r = re.search(r'\) += (\S+)', rest)
        if r:
            c[3] = num(r.group(1))
        else:
            pending[tid] = c
        continue
    m = re.match(r'^(\d+) .*<\.\.\. (\w+) resumed> .*\) += (\S+)', line)
    if m and m.group(1) in pending:
        c = pending.pop(m.group(1))
        c[3], c[4] = num(m.group(3)), n
want = {'malloc': 121, 'calloc': 60, 'realloc': 60, 'free': 182}
got = {f: sum(1 for c in calls if c[1] == f) for f in want}
if got != want:
    print("  the log has", got, "the workload made", want, "(ltrace lost calls)")
    sys.exit(3)
# Which allocation each free/realloc released, by this independent walk over the log: a block
# is known from the line its call returned on.
live, match, done = {}, {}, []
for i, c in enumerate(calls):
    for j in [j for j in done if calls[j][4] < c[4]]:
        live[calls[j][3]] = j
        done.remove(j)
    if c[1] in ('free', 'realloc') and c[2][0]:
        if c[2][0] not in live:
            print("  ltrace logged", c, "of a pointer no call returned (it misread a value)")
            sys.exit(3)
        match[i] = live.pop(c[2][0])
    if c[1] != 'free' and c[3]:
        done.append(i)
rows = [l.split() for l in dump if l.startswith('dump ')]
if len(rows) != len(calls):
    print("  dump has", len(rows), "calls, log", len(calls)); sys.exit(1)
seq = {}
for i, (r, (tid, f, args, ret, _)) in enumerate(zip(rows, calls)):
    d = dict(x.split('=', 1) for x in r[3:] if '=' in x)
    words = [x for x in r[3:] if '=' not in x]
    if int(r[2]) != i or words[0] != f or d['task'] != tid:
        print("  call", i, "is", r, "expected", tid, f, args); sys.exit(1)
    size = {'malloc': args[:1], 'calloc': args[:2], 'realloc': args[1:2], 'free': []}[f]
    if [int(w) for w in words[1:]] != size:
        print("  call", i, "sizes", words[1:], "expected", size); sys.exit(1)
    src = d.get('from', 'none')
    if (src == 'none') != (i not in match) or (src != 'none' and int(src) != match[i]):
        print("  call", i, r, "released", src, "the log says", match.get(i)); sys.exit(1)
    seq[i] = d
threads = {}
for d in seq.values():
    threads.setdefault(d['task'], set()).add(d['thread'])
owners = {}
for d in seq.values():
    owners.setdefault(d['thread'], set()).add(d['task'])
if len(threads) != 4 or any(len(v) != 1 for v in list(threads.values()) + list(owners.values())):
    print("  tasks to replay threads:", threads); sys.exit(1)
cross = sum(1 for i, j in match.items() if calls[i][0] != calls[j][0])
if len(match) < 200 or cross < 50:
    print("  only", len(match), "frees/reallocs matched,", cross, "across threads"); sys.exit(1)
EOF
}

if [ $have_log -eq 1 ]; then
    "$PROSPECT" replay "$T/lt.log" --allocator glibc --dump "${QUICK[@]}" >"$T/d1.txt" 2>"$T/d1.err"
    rc=$?
    if [ $rc -ne 0 ]; then
        fail replay_ltrace_log "exit $rc: $(head -3 "$T/d1.err")"
    else
        # The workload's own counts, the log's calls in line order, and the dump, compared.
        if dump_matches "$T/lt.log" "$T/d1.txt"; then pass replay_ltrace_log
        elif [ $? -eq 3 ]; then skip replay_ltrace_log "ltrace lost or misread calls of the workload"
        else fail replay_ltrace_log "the dump does not replay the log (above)"
        fi
    fi

    # ltrace with -tt/-ttt timestamps, -T durations and -i addresses reads the same.
    for flags in "-ttt -T -i" "-tt -T"; do
        name=replay_ltrace_log_${flags//[- ]/}
        ok=0
        for i in 1 2 3; do
            # shellcheck disable=SC2086
            ltrace -f $flags -o "$T/ts.log" -e malloc+free+calloc+realloc "$WL/rthreads" \
                >"$T/ts.out" 2>&1 && grep -qx done "$T/ts.out" && { ok=1; break; }
        done
        if [ $ok -eq 1 ]; then
            "$PROSPECT" replay "$T/ts.log" --allocator glibc --dump "${QUICK[@]}" >"$T/ts.txt" \
                2>"$T/ts.err"
            rc=$?
            if [ $rc -ne 0 ]; then fail "$name" "exit $rc: $(head -3 "$T/ts.err")"
            elif dump_matches "$T/ts.log" "$T/ts.txt"; then pass "$name"
            elif [ $? -eq 3 ]; then skip "$name" "ltrace lost or misread calls of the workload"
            else fail "$name" "the dump does not replay the log (above)"
            fi
        else
            skip "$name" "ltrace -f $flags did not complete the workload in 3 tries"
        fi
    done

    # Same trace, same calls: a second run, and another allocator, execute the same sequence.
    "$PROSPECT" replay "$T/lt.log" --allocator glibc --dump "${QUICK[@]}" >"$T/d2.txt" 2>/dev/null
    if [ -f /usr/lib/x86_64-linux-gnu/libjemalloc.so.2 ]; then
        "$PROSPECT" replay "$T/lt.log" --allocator jemalloc --dump -r 2 >"$T/d3.txt" 2>/dev/null
    else
        cp "$T/d2.txt" "$T/d3.txt"
    fi
    verify replay_reproducible '[ -s "$T/d1.txt" ] &&
        cmp -s <(dump_calls "$T/d1.txt") <(dump_calls "$T/d2.txt") &&
        cmp -s <(dump_calls "$T/d1.txt") <(dump_calls "$T/d3.txt")'

fi

# A preloaded library that does not define malloc is caught, not measured as glibc.
if [ $have_log -eq 1 ]; then
    out=$("$PROSPECT" replay "$T/lt.log" --allocator libm=/usr/lib/x86_64-linux-gnu/libm.so.6 \
          "${QUICK[@]}" 2>&1 >/dev/null); rc=$?
    verify replay_preload_verified '[ $rc -eq 1 ] && grep -q "did not take effect" <<<"$out"'
fi

# ---- binary traces, written with the tracefile writer ----
WRITER=$T/write_trace
if [ ! -f "$ROOT/build/asan/libpcore.a" ] ||
   ! gcc -std=gnu11 -D_GNU_SOURCE -fsanitize=address,undefined -I"$ROOT/src" -I"$ROOT/include" \
        -o "$WRITER" "$ROOT/tests/workloads/replay_write_trace.c" "$ROOT/build/asan/libpcore.a" 2>"$T/w.err"; then
    skip replay_binary_trace "cannot build the trace writer helper (make test-bins first)"
else
    # Task 7 allocates; task 8 frees one block across threads and frees an unknown pointer;
    # task 9's malloc returns 0x1000 again only after task 8 freed it.
    "$WRITER" "$T/b.trace" <<'EOF'
7 100 10 malloc 144 0 0x1000
7 200 10 calloc 5 8 0x2000
8 300 10 free 0x1000 0 0
8 310 10 free 0xdead 0 0
9 320 10 malloc 128 0 0x1000
7 400 10 realloc 0x2000 300 0x3000
9 500 10 free 0x1000 0 0
7 600 10 free 0x3000 0 0
EOF
    "$PROSPECT" replay "$T/b.trace" --allocator glibc --dump "${QUICK[@]}" >"$T/b.txt" 2>"$T/b.err"
    rc=$?
    cat >"$T/b.want" <<'EOF'
dump 0 rec=0 thread=T0 task=7 malloc 144 ret=0x1000
dump 1 rec=1 thread=T0 task=7 calloc 5 8 ret=0x2000
dump 2 rec=2 thread=T1 task=8 free from=0 ptr=0x1000
dump 3 rec=4 thread=T2 task=9 malloc 128 ret=0x1000
dump 4 rec=5 thread=T0 task=7 realloc 300 from=1 ptr=0x2000 ret=0x3000
dump 5 rec=6 thread=T2 task=9 free from=3 ptr=0x1000
dump 6 rec=7 thread=T0 task=7 free from=4 ptr=0x3000
EOF
    # The same calls with seed 004's cpuid barriers.
    "$PROSPECT" replay "$T/b.trace" --allocator glibc --dump --barrier cpuid "${QUICK[@]}" \
        >"$T/bc.txt" 2>/dev/null
    rcc=$?
    verify replay_barrier_cpuid '[ $rcc -eq 0 ] && diff <(dump_calls "$T/bc.txt") "$T/b.want" &&
        grep -q "floor of the cpuid reads" "$T/bc.txt"'
    verify replay_binary_trace '[ $rc -eq 0 ] && diff <(dump_calls "$T/b.txt") "$T/b.want" &&
        grep -q "skipped: 1 free, 0 realloc of unknown pointers" "$T/b.txt"'
    # Without rdtscp the text says once which reads replaced it; with rdtscp it says nothing.
    if grep -qw rdtscp /proc/cpuinfo; then want=0; else want=1; fi
    verify replay_names_tsc_fallback \
        '[ "$(grep -c "^  -- note: no rdtscp: end reads are lfence;rdtsc" "$T/b.txt")" -eq $want ]'

    # Hostile binary traces: cut inside a record, an unknown record kind, a call of a
    # function with no name record. One line naming the file and the offset; never a crash.
    head -c -1 "$T/b.trace" >"$T/cut.trace"
    python3 - "$T/b.trace" "$T/kind.trace" "$T/idx.trace" <<'EOF'
import sys
b = bytearray(open(sys.argv[1], 'rb').read())
k = bytearray(b); k[16] = 9; open(sys.argv[2], 'wb').write(k)
off = 16
while b[off] == 1:                              # name records: tag, u16 index, u16 length
    off += 5 + (b[off + 3] | b[off + 4] << 8)
i = bytearray(b); i[off + 1] = 77; open(sys.argv[3], 'wb').write(i)   # the first call's function
EOF
    ok=1
    for f in cut kind idx; do
        err=$("$PROSPECT" replay "$T/$f.trace" "${QUICK[@]}" 2>&1 >/dev/null); rc=$?
        if [ $rc -ne 1 ] || ! grep -q "^prospect replay: $T/$f.trace: offset [0-9]*: " <<<"$err" ||
           [ "$(wc -l <<<"$err")" -ne 1 ]; then
            echo "  $f.trace: exit $rc: $err"; ok=0
        fi
    done
    check replay_hostile_traces [ $ok -eq 1 ]
fi

# ---- hostile logs and files: file:line errors, no hang on a FIFO, no crash ----
printf '1 t->malloc(40) = 0x10\n1 t->free(0x10 <unfinished ...>\n2 <... free resumed> ) = <void>\n' >"$T/h1.log"
head -c 3000 /dev/urandom >"$T/h2.log"
: >"$T/empty.log"
printf '1 t->strlen("x") = 1\n' >"$T/nomalloc.log"
mkfifo "$T/fifo"
ok=1
err=$("$PROSPECT" replay "$T/h1.log" 2>&1 >/dev/null); rc=$?
{ [ $rc -eq 1 ] && grep -q "h1.log:3: 'free' resumed, but no call" <<<"$err"; } || { echo "  h1: $rc $err"; ok=0; }
err=$("$PROSPECT" replay "$T/h2.log" 2>&1 >/dev/null); rc=$?
{ [ $rc -eq 1 ] && grep -q "h2.log:[0-9]*: " <<<"$err"; } || { echo "  h2: $rc $err"; ok=0; }
for f in empty.log nomalloc.log; do
    err=$("$PROSPECT" replay "$T/$f" 2>&1 >/dev/null); rc=$?
    { [ $rc -eq 1 ] && grep -q "no malloc, calloc, realloc or free calls" <<<"$err"; } || { echo "  $f: $rc $err"; ok=0; }
done
err=$(timeout 60 "$PROSPECT" replay "$T/fifo" 2>&1 >/dev/null); rc=$?
{ [ $rc -eq 1 ] && grep -q "not a regular file" <<<"$err"; } || { echo "  fifo: $rc $err"; ok=0; }
err=$("$PROSPECT" replay "$T" 2>&1 >/dev/null); rc=$?
{ [ $rc -eq 1 ] && grep -q "Is a directory" <<<"$err"; } || { echo "  dir: $rc $err"; ok=0; }
err=$("$PROSPECT" replay "$T/missing.log" 2>&1 >/dev/null); rc=$?
{ [ $rc -eq 1 ] && grep -q "No such file" <<<"$err"; } || { echo "  missing: $rc $err"; ok=0; }
check replay_hostile_logs [ $ok -eq 1 ]
# Only allocators that are not installed: nothing was measured, so no success.
printf '1 t->malloc(40) = 0x10\n1 t->free(0x10) = <void>\n' >"$T/one.log"
err=$("$PROSPECT" replay "$T/one.log" --allocator none=/nonexistent/libnone.so "${QUICK[@]}" \
      2>&1 >/dev/null); rc=$?
check replay_no_allocator_ran_fails [ $rc -eq 1 -a -n "$(grep 'none skipped' <<<"$err")" -a \
    -n "$(grep 'no allocator was replayed' <<<"$err")" ]

# The allocators and outputs on the real ltrace log, else on the binary trace.
if [ $have_log -eq 1 ]; then
    outputs "$T/lt.log"
elif [ -f "$T/b.trace" ]; then
    outputs "$T/b.trace"
else
    skip replay_outputs "neither an ltrace log nor a binary trace could be made"
fi

# 64 tasks freeing each other's blocks at random (a generated log): every allocator runs it to
# the end (the turns never deadlock), each free releases the block the generator says, and
# every allocator executes the same calls.
python3 - "$T/many.log" "$T/many.want" <<'EOF'
import random, sys
random.seed(7)
live, out, want, nxt = [], [], [], 0x10000
for i in range(5000):
    tid = 1000 + random.randrange(64)
    if live and random.random() < 0.45:
        j, p = live.pop(random.randrange(len(live)))
        out.append('%d exe->free(0x%x) = <void>' % (tid, p))
        want.append(str(j))
    else:
        p, nxt = nxt, nxt + 0x40
        live.append((i, p))
        out.append('%d exe->malloc(%d) = 0x%x' % (tid, random.randrange(1, 5000), p))
        want.append('-')
open(sys.argv[1], 'w').write('\n'.join(out) + '\n')
open(sys.argv[2], 'w').write('\n'.join(want) + '\n')
EOF
"$PROSPECT" replay "$T/many.log" --dump -r 1 --warmup 1 >"$T/many.txt" 2>"$T/many.err"
rc=$?
many_ok() {
    python3 - "$T/many.txt" "$T/many.want" <<'EOF'
import sys
want = open(sys.argv[2]).read().split()
by = {}
for l in open(sys.argv[1]):
    if l.startswith('dump '):
        r = l.split()
        by.setdefault(r[1], []).append(r)
assert by, 'no dump'
ref = None
for alloc, rows in by.items():
    got = [dict(x.split('=', 1) for x in r[3:] if '=' in x).get('from', '-') for r in rows]
    assert got == want, (alloc, [(i, g, w) for i, (g, w) in enumerate(zip(got, want)) if g != w][:3])
    assert len({r[4] for r in rows}) == 64, alloc
    calls = [r[2:4] + r[5:] for r in rows]
    assert ref is None or calls == ref, alloc
    ref = calls
EOF
}
verify replay_many_threads '[ $rc -eq 0 ] && many_ok'

# An allocator that is not installed is skipped with a note; the others still run.
if [ -f "$T/b.trace" ]; then
    "$PROSPECT" replay "$T/b.trace" --allocator "glibc,gone=$T/no/libgone.so.1" "${QUICK[@]}" \
        --format json >"$T/gone.json" 2>"$T/gone.err"
    rc=$?
    verify replay_allocator_not_installed '[ $rc -eq 0 ] &&
        grep -q "note: gone skipped: $T/no/libgone.so.1 is not installed" "$T/gone.err" &&
        python3 -c "
import json, sys
a = {x[\"name\"]: x[\"ran\"] for x in json.load(open(sys.argv[1]))[0][\"allocators\"]}
assert a == {\"glibc\": True, \"gone\": False}, a
" "$T/gone.json"'
fi

# An allocator that crashes the replay: one line naming it and the signal; the others report.
if [ -f "$T/many.log" ] && gcc -shared -fPIC -O1 -o "$T/libcrashy.so" \
        "$ROOT/tests/workloads/replay_crashy_malloc.c" 2>/dev/null; then
    "$PROSPECT" replay "$T/many.log" --allocator "glibc,crashy=$T/libcrashy.so" "${QUICK[@]}" \
        >"$T/crashy.out" 2>"$T/crashy.err"
    rc=$?
    verify replay_allocator_crash '[ $rc -eq 1 ] && [ "$(wc -l <"$T/crashy.err")" -eq 1 ] &&
        grep -q "crashy: the replay child killed by signal 4 (Illegal instruction) before sending all results" "$T/crashy.err" &&
        grep -q "^glibc  *malloc" "$T/crashy.out" && ! grep -q "^crashy" "$T/crashy.out"'
fi

# Several traces: one JSON object each (a bad one among them leaves valid JSON and exit 1),
# one SVG each.
if [ -f "$T/b.trace" ]; then
    "$PROSPECT" replay "$T/b.trace" "$T/h1.log" "$T/b.trace" --allocator glibc "${QUICK[@]}" \
        --format json -o "$T/multi.svg" >"$T/multi.json" 2>/dev/null
    rc=$?
    verify replay_several_traces '[ $rc -eq 1 ] && [ -s "$T/multi-1.svg" ] && [ -s "$T/multi-3.svg" ] &&
        [ ! -e "$T/multi-2.svg" ] && python3 -c "
import json, sys
d = json.load(open(sys.argv[1]))
assert [x[\"trace\"].rsplit(\"/\", 1)[1] for x in d] == [\"b.trace\", \"b.trace\"], d
" "$T/multi.json"'
fi

# -o never follows a symlink.
if [ -f "$T/b.trace" ]; then
    echo keep >"$T/victim"; ln -sf "$T/victim" "$T/link.svg"
    "$PROSPECT" replay "$T/b.trace" --allocator glibc "${QUICK[@]}" -o "$T/link.svg" >/dev/null 2>&1
    rc=$?
    verify replay_output_symlink '[ $rc -eq 1 ] && [ "$(cat "$T/victim")" = keep ]'
fi
