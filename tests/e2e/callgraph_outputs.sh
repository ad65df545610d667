# SPDX-License-Identifier: MIT
# The call-stack outputs of issue 10, each checked by its real client: report --format pprof
# (go tool pprof -top against the --children table), --format svg (the flame graph in headless
# Chromium: loads without errors, frame widths from the folded counts, click zooms, search,
# hover, icicle), --format speedscope (the schema, then speedscope itself in Chromium), -o.
. "$(dirname "$0")/lib.sh"
HERE=$(cd "$(dirname "$0")" && pwd)
# verdict NAME OUT: pass when the checker printed "ok", else fail with what it printed.
verdict() { if [ "$2" = ok ]; then pass "$1"; else fail "$1" "$(head -c 600 <<<"$2")"; fi; }

build_workload callgraph callgraph -O0 -fno-omit-frame-pointer ||
    { fail outputs_build "cannot build tests/workloads/callgraph.c"; exit 0; }
CG=$WL/callgraph
if ! "$PROSPECT" record -g -o "$TEST_TMP/p.data" -- "$CG" 1500 >/dev/null 2>&1; then
    fail outputs_record "prospect record -g failed"
    exit 0
fi
FILES="p"
if precord -g -o "$TEST_TMP/perf.data" -- "$CG" 1500; then
    FILES="p perf"
else
    skip outputs_perf_file "perf record -g failed three times"
fi

# ---- pprof: go tool pprof reads it; flat% and cum% equal Self and Children ----------------
if ! command -v go >/dev/null; then
    skip pprof_go_tool "go (Debian golang-go) is not installed"
else
    export HOME=$TEST_TMP/gohome GOCACHE=$TEST_TMP/gohome/cache GOPATH=$TEST_TMP/gohome/path
    mkdir -p "$HOME"
    for f in $FILES; do
        "$PROSPECT" report -i "$TEST_TMP/$f.data" --format pprof -o "$TEST_TMP/$f.pb.gz"
        check "pprof_written_gzip_$f" [ $? -eq 0 -a "$(head -c2 "$TEST_TMP/$f.pb.gz" | od -An -tx1 | tr -d ' ')" = 1f8b ]
        if ! go tool pprof -top -nodecount=1000 -nodefraction=0 "$TEST_TMP/$f.pb.gz" >"$TEST_TMP/$f.top" 2>"$TEST_TMP/$f.toperr"; then
            fail "pprof_go_tool_reads_$f" "$(head -3 "$TEST_TMP/$f.toperr")"
            continue
        fi
        pass "pprof_go_tool_reads_$f"
        check "pprof_type_cpu_nanoseconds_$f" grep -q '^Type: cpu$' "$TEST_TMP/$f.top"
        "$PROSPECT" report -i "$TEST_TMP/$f.data" --children -g none --sort sym >"$TEST_TMP/$f.children"
        # Every row of either table with 0.5% or more is in the other with the same shares
        # (one file, one set of samples: equal to the rounding of the two printouts).
        out=$(python3 - "$TEST_TMP/$f.top" "$TEST_TMP/$f.children" <<'PY'
import re, sys
top, ch = {}, {}
for l in open(sys.argv[1]):
    m = re.match(r'\s*\S+\s+([\d.]+)%\s+[\d.]+%\s+\S+\s+([\d.]+)%\s+(.*)$', l)
    if m:
        top[m.group(3).strip()] = (float(m.group(1)), float(m.group(2)))
for l in open(sys.argv[2]):
    m = re.match(r'\s*([\d.]+)%\s+([\d.]+)%\s+.*?\[.\]\s+(.*)$', l)
    if m:
        ch[m.group(3).strip()] = (float(m.group(2)), float(m.group(1)))
bad = []
names = [n for n in set(top) | set(ch) if max(top.get(n, (0, 0))[1], ch.get(n, (0, 0))[1]) >= 0.5]
for n in names:
    if n not in top or n not in ch:
        bad.append('%s only in %s' % (n, 'pprof' if n in top else 'children'))
    # pprof prints 99.95% to 100.05% as "100%".
    elif any(abs(t - c) > (0.05 if t == 100 else 0.02) for t, c in zip(top[n], ch[n])):
        bad.append('%s pprof flat/cum %s, children self/children %s' % (n, top[n], ch[n]))
if len(names) < 4:
    bad.append('only %d rows' % len(names))
print('; '.join(bad) if bad else 'ok')
PY
)
        verdict "pprof_flat_cum_equal_children_table_$f" "$out"
    done
    # Mappings carry the build id (pprof prints the main binary's).
    bid=$(readelf -n "$CG" | awk '/Build ID/ { print $3 }')
    check pprof_build_id_of_the_binary grep -q "^Build ID: $bid" "$TEST_TMP/p.top"
    # A legacy period: go tool pprof -raw shows the sample types and the period.
    go tool pprof -raw "$TEST_TMP/p.pb.gz" >"$TEST_TMP/p.raw" 2>/dev/null
    check pprof_sample_types_samples_and_cpu grep -q 'samples/count cpu/nanoseconds' "$TEST_TMP/p.raw"
fi

# ---- flame graph SVG in headless Chromium ---------------------------------------------------
have_chromium() { command -v chromium >/dev/null && command -v node >/dev/null; }
# frames_js: every frame as [name, x, v, depth, rect width, class].
FRAMES='[...document.querySelectorAll("g.f")].map(g=>[g.fname,g.fx,g.fv,g.fd,+g.querySelector("rect").getAttribute("width"),g.getAttribute("class")])'
# center_js NAME: the page coordinates of the first frame named NAME.
center_js() {
    echo "(function(){var g=[...document.querySelectorAll('g.f')].find(g=>g.fname==='$1');g.scrollIntoView({block:'center',inline:'center'});var r=g.querySelector('rect').getBoundingClientRect();return {x:r.x+r.width/2,y:r.y+r.height/2}})()"
}
if ! have_chromium; then
    skip svg_chromium "chromium or node is not installed"
else
    for f in $FILES; do
        "$PROSPECT" report -i "$TEST_TMP/$f.data" --format svg -o "$TEST_TMP/$f.svg" &&
        "$PROSPECT" report -i "$TEST_TMP/$f.data" --format folded >"$TEST_TMP/$f.folded"
        check "svg_written_$f" [ $? -eq 0 -a -s "$TEST_TMP/$f.svg" ]
        timeout 120 node "$HERE/browser.js" "file://$TEST_TMP/$f.svg" \
            "eval:document.documentElement.nodeName + ' ' + !!document.querySelector('parsererror')" \
            "eval:$FRAMES" "shot:$TEST_TMP/$f.png" \
            "click:$(center_js via_b)" "wait:document.documentElement.getAttribute('data-zoomed')" "eval:$FRAMES" \
            "click:$(center_js 'Reset Zoom' | sed "s/g.f'/text.button'/; s/g.fname===/g.textContent===/; s/g.querySelector('rect')/g/")" \
            "eval:$FRAMES" "eval:search('^via_')" "eval:document.getElementById('matched').textContent" \
            "click:$(center_js via_a)" "wait:document.getElementById('details').textContent" \
            >"$TEST_TMP/$f.browser" 2>&1
        out=$(python3 - "$TEST_TMP/$f.browser" "$TEST_TMP/$f.folded" <<'PY'
import json, sys
lines = [json.loads(l) for l in open(sys.argv[1]) if l.startswith('{')]
steps = {l['step']: l['value'] for l in lines if 'step' in l}
errs = [l for l in lines if 'failure' in l] + [e for l in lines for e in l.get('errors', [])]
res = {}
def say(k, ok, why=''):
    res[k] = 'ok' if ok else why or 'failed'
say('loads', steps.get(0) == 'svg false' and not errs, '%s %s' % (steps.get(0), errs[:3]))
# The folded counts of every path prefix (comm first), kernel frames without "_[k]".
pref, total = {}, 0
for l in open(sys.argv[2]):
    path, n = l.rsplit(' ', 1)
    n = int(n); total += n
    fr = [x[:-4] if x.endswith('_[k]') else x for x in path.split(';')]
    for i in range(1, len(fr) + 1):
        pref[tuple(fr[:i])] = pref.get(tuple(fr[:i]), 0) + n
def paths(frames):
    # A frame's parent: the frame one level up whose samples hold its interval.
    out = {}
    by_d = {}
    for fr in frames:
        by_d.setdefault(fr[3], []).append(fr)
    path_of = {}
    for d in sorted(by_d):
        for fr in by_d[d]:
            if d == 0:
                path_of[id(fr)] = ()
                continue
            par = [p for p in by_d.get(d - 1, []) if p[1] <= fr[1] and fr[1] + fr[2] <= p[1] + p[2]]
            path_of[id(fr)] = path_of[id(par[0])] + (fr[0],) if par else None
            out[path_of[id(fr)]] = fr
    return out
fr0 = steps.get(1) or []
got = paths(fr0)
W = 1180.0
bad = [p for p, fr in got.items() if p is None or pref.get(p) != fr[2] or abs(fr[4] - fr[2] * W / total) > 0.011]
missing = [p for p, n in pref.items() if n * W / total >= 0.1 and p not in got]
say('widths', fr0 and not bad and not missing and fr0[0][2] == total,
    'bad %s missing %s' % (bad[:3], missing[:3]))
# Zoomed on via_b: it fills the width, every via_a is hidden, a main is an ancestor (faded).
# (The click's effect is waited for: under load an eval right after it ran first.)
z = steps.get(5) or []
say('zoom', any(f[0] == 'via_b' and f[4] == W for f in z) and
    all('hide' in f[5] for f in z if f[0] == 'via_a') and
    any(f[0] == 'main' and 'parent' in f[5] for f in z) and steps.get(4) == 'via_b',
    str([f for f in z if f[0] in ('via_a', 'via_b', 'main')]) + str(steps.get(4)))
# Reset: every frame back where it was, none hidden or faded.
u = steps.get(7) or []
say('unzoom', len(u) == len(fr0) and all(a[:5] == b[:5] and b[5] == 'f' for a, b in zip(fr0, u)),
    str([(a, b) for a, b in zip(fr0, u) if a != b][:3]))
va = max((n for p, n in pref.items() if p[-1:] == ('via_a',)), default=0)
vab = sum(n for p, n in pref.items() if p[-1:] in (('via_a',), ('via_b',)))
say('search', abs(steps.get(8, -1) - 100.0 * vab / total) < 0.01 and
    steps.get(9) == 'Matched: %.2f%%' % (100.0 * vab / total), '%s %s' % (steps.get(8), steps.get(9)))
say('hover', any((steps.get(11) or '').startswith('via_a (%d samples, %.2f%%)' % (f[2], 100.0 * f[2] / total))
                 for f in fr0 if f[0] == 'via_a'), str(steps.get(11)))
print('\n'.join('%s=%s' % kv for kv in res.items()))
PY
)
        for k in loads widths zoom unzoom search hover; do
            v=$(sed -n "s/^$k=//p" <<<"$out")
            verdict "svg_chromium_${k}_$f" "${v:-$out}"
        done
        check "svg_screenshot_$f" [ "$(head -c 8 "$TEST_TMP/$f.png" | od -An -tx1 | tr -d ' ')" = 89504e470d0a1a0a ]
    done
    # Icicle: --inverted draws top-down from the leaf: leaf above its callers.
    "$PROSPECT" report -i "$TEST_TMP/p.data" --format svg --inverted --title "Callers of the hot code" -o "$TEST_TMP/inv.svg"
    out=$(timeout 120 node "$HERE/browser.js" "file://$TEST_TMP/inv.svg" \
        "eval:(function(){var y={};document.querySelectorAll('g.f').forEach(g=>{(y[g.fname]=y[g.fname]||[]).push([g.fd,+g.querySelector('rect').getAttribute('y')])});return JSON.stringify([y.leaf,y.via_a,y.main,document.getElementById('title').textContent])})()" 2>&1)
    # The path leaf -> via_a -> main at depths 1, 2, 3, drawn downwards.
    check svg_inverted_leaf_on_top_callers_below python3 -c '
import json, sys
l = [json.loads(x) for x in sys.argv[1].splitlines() if x.startswith("{")]
leaf, via_a, main, title = json.loads(l[0]["value"])
y = lambda v, d: [b for a, b in v if a == d]
sys.exit(not (y(leaf, 1) and y(via_a, 2) and y(main, 3) and
              y(leaf, 1)[0] < y(via_a, 2)[0] < y(main, 3)[0] and
              title == "Callers of the hot code" and l[-1]["errors"] == []))' "$out"
fi

# ---- speedscope: the schema, then the app ----------------------------------------------------
SS=$(npm root -g 2>/dev/null)/speedscope/dist/release
for f in $FILES; do
    "$PROSPECT" report -i "$TEST_TMP/$f.data" --format speedscope -o "$TEST_TMP/$f.json"
    check "speedscope_written_$f" [ $? -eq 0 -a -s "$TEST_TMP/$f.json" ]
done
if [ ! -f "$SS/file-format-schema.json" ]; then
    skip speedscope_schema "npm package speedscope is not installed (its dist has the schema)"
else
    for f in $FILES; do
        out=$(python3 - "$SS/file-format-schema.json" "$TEST_TMP/$f.json" <<'PY'
import json, sys
schema, doc = json.load(open(sys.argv[1])), json.load(open(sys.argv[2]))
try:
    import jsonschema
    jsonschema.validate(doc, schema)
except ImportError:
    # Without the validator: the required fields of the file, its profiles and frames.
    d = schema['definitions']
    for k in d['FileFormat.File']['required']:
        assert k in doc, k
    for p in doc['profiles']:
        for k in d['FileFormat.SampledProfile']['required']:
            assert k in p, k
    for fr in doc['shared']['frames']:
        for k in d['FileFormat.Frame']['required']:
            assert k in fr, k
nf = len(doc['shared']['frames'])
for p in doc['profiles']:
    assert p['type'] == 'sampled' and len(p['samples']) == len(p['weights'])
    assert all(0 <= i < nf for s in p['samples'] for i in s)
    assert sum(p['weights']) == p['endValue'] - p['startValue']
print('ok')
PY
)
        verdict "speedscope_schema_valid_$f" "$out"
    done
    if ! have_chromium; then
        skip speedscope_app "chromium or node is not installed"
    else
        # As speedscope's own command line opens a file: a script that hands it the profile.
        printf 'speedscope.loadFileFromBase64("p.json", "%s")\n' "$(base64 -w0 "$TEST_TMP/p.json")" >"$TEST_TMP/load.js"
        timeout 120 node "$HERE/browser.js" "file://$SS/index.html#localProfilePath=$TEST_TMP/load.js" \
            "wait:document.body.innerText.includes('callgraph (')" "key:3" \
            "wait:document.body.innerText.includes('via_b')" "eval:document.body.innerText" \
            >"$TEST_TMP/ss.browser" 2>&1
        "$PROSPECT" report -i "$TEST_TMP/p.data" --children -g none --sort sym >"$TEST_TMP/p.children2"
        out=$(python3 - "$TEST_TMP/ss.browser" "$TEST_TMP/p.children2" <<'PY'
import json, re, sys
lines = [json.loads(l) for l in open(sys.argv[1]) if l.startswith('{')]
steps = {l['step']: l['value'] for l in lines if 'step' in l}
errs = [l for l in lines if 'failure' in l] + [e for l in lines for e in l.get('errors', [])]
text = steps.get(3) or ''
# The sandwich table: "TOTAL (P%)\n\tSELF (Q%)\n\tNAME" per function.
rows = {m.group(3): m.group(1) for m in re.finditer(r'([\d.]+\w+) \(([^)]*)\)\n\t[^\n]*\n\t([^\n]+)', text)}
ch = {}
for l in open(sys.argv[2]):
    m = re.match(r'\s*([\d.]+)%\s+([\d.]+)%\s+.*?\[.\]\s+(.*)$', l)
    if m:
        ch[m.group(3).strip()] = float(m.group(1))
def ms(v):
    n, u = re.match(r'([\d.]+)(\w+)', v).groups()
    return float(n) * {'ns': 1e-6, 'us': 1e-3, 'µs': 1e-3, 'ms': 1, 's': 1000}[u]
bad = []
if errs:
    bad.append('errors %s' % errs[:3])
for n in ('leaf', 'via_a', 'via_b', 'main'):
    if n not in rows:
        bad.append('%s not shown' % n)
if not bad:
    tot = ms(rows['main'])
    for n in ('via_a', 'via_b'):
        if abs(100 * ms(rows[n]) / tot - ch[n]) > 0.6:
            bad.append('%s %s of %s vs children %s%%' % (n, rows[n], rows['main'], ch[n]))
print('; '.join(bad) or 'ok')
PY
)
        verdict speedscope_app_shows_the_frames_and_shares "$out"
    fi
fi

# ---- -o, errors ------------------------------------------------------------------------------
ln -s "$TEST_TMP/victim" "$TEST_TMP/link.svg"
echo keep >"$TEST_TMP/victim"
out=$("$PROSPECT" report -i "$TEST_TMP/p.data" --format svg -o "$TEST_TMP/link.svg" 2>&1)
check output_symlink_refused [ $? -eq 1 -a "$(cat "$TEST_TMP/victim")" = keep -a \
    -n "$(grep "cannot write $TEST_TMP/link.svg" <<<"$out")" ]
out=$("$PROSPECT" report -i "$TEST_TMP/p.data" --children -g none -o "$TEST_TMP/x" 2>&1)
check output_only_for_stack_formats [ $? -eq 2 -a ! -e "$TEST_TMP/x" ]
"$PROSPECT" report -i "$TEST_TMP/p.data" --format pprof --inverted -o "$TEST_TMP/x" >/dev/null 2>&1
check inverted_only_for_svg [ $? -eq 2 -a ! -e "$TEST_TMP/x" ]
# A file without samples: one line, nothing written.
if ! precord -e page-faults -c 1000000000 -o "$TEST_TMP/empty.data" -- true; then
    skip empty_input "perf record failed"
else for fmt in svg pprof speedscope; do
    out=$("$PROSPECT" report -i "$TEST_TMP/empty.data" --format $fmt -o "$TEST_TMP/e.$fmt" 2>&1)
    check "empty_input_${fmt}_says_so" [ $? -eq 1 -a ! -e "$TEST_TMP/e.$fmt" -a \
        -n "$(grep "no samples to write as $fmt" <<<"$out")" ]
done
    # The Children table of no samples: headers only, no undefined behaviour (the ASan/UBSan
    # binary reported qsort of a NULL array).
    out=$("$PROSPECT" report -i "$TEST_TMP/empty.data" --children -g none 2>&1)
    check empty_input_children_clean [ $? -le 1 -a -z "$(grep -E 'runtime error|Sanitizer' <<<"$out")" ]
fi
# A stripped library's hits after its last dynamic symbol are the bracket "tail_entry->(end)" in
# every output (folded took "(end)" for a C++ parameter list and cut it).
src=$HERE/../workloads
if gcc -O1 -fno-toplevel-reorder -fPIC -shared -o "$TEST_TMP/libtail.so" "$src/libtail.c" &&
   strip --strip-all "$TEST_TMP/libtail.so" &&
   gcc -O1 -o "$TEST_TMP/usetail" "$src/usetail.c" -L"$TEST_TMP" -ltail -Wl,-rpath,"$TEST_TMP" &&
   "$PROSPECT" record -g -o "$TEST_TMP/tail.data" -- "$TEST_TMP/usetail" 150 >/dev/null 2>&1; then
    "$PROSPECT" report -i "$TEST_TMP/tail.data" --format folded >"$TEST_TMP/tail.folded" 2>/dev/null
    check folded_bracket_end_kept grep -qE '^usetail;.*tail_entry->\(end\) [0-9]+$' "$TEST_TMP/tail.folded"
else
    skip folded_bracket_end_kept "could not build or record the stripped library"
fi
# A per-process `record -g -e sched:sched_switch` (no --off-cpu, not -a: nothing ends the
# waits) is reported as its samples, as perf reports them, not as an empty off-CPU profile;
# perf reads Prospect's file (its report crashed on tracepoint samples without their raw
# fields). Prospect's file and perf's, each against perf report's sample count.
swc() { awk '{ s += $NF } END { print s + 0 }' "$1"; }
psamples() { perf report -i "$1" --stdio 2>/dev/null | sed -n "s/^# Samples: \([0-9]*\) .*sched:sched_switch.*/\1/p" | head -1; }
if "$PROSPECT" record -g -e sched:sched_switch -o "$TEST_TMP/sw.data" -- \
        sh -c 'sleep 0.01; sleep 0.01; sleep 0.01' >/dev/null 2>&1; then
    "$PROSPECT" report -i "$TEST_TMP/sw.data" --format folded >"$TEST_TMP/sw.folded" 2>"$TEST_TMP/sw.err"
    n=$(swc "$TEST_TMP/sw.folded"); want=$(psamples "$TEST_TMP/sw.data")
    check switch_samples_without_off_cpu_are_samples [ "$n" -ge 3 -a "$n" = "$want" -a \
        -n "$(grep -E '^sleep;.*nanosleep.*__schedule_\[k\] [0-9]+$' "$TEST_TMP/sw.folded")" ]
else
    skip switch_samples_without_off_cpu_are_samples "record -e sched:sched_switch failed (tracefs)"
fi
if precord -g -e sched:sched_switch -o "$TEST_TMP/psw.data" -- sh -c 'sleep 0.01; sleep 0.01'; then
    "$PROSPECT" report -i "$TEST_TMP/psw.data" --format folded >"$TEST_TMP/psw.folded" 2>/dev/null
    n=$(swc "$TEST_TMP/psw.folded")
    check perf_switch_samples_are_samples [ "$n" -ge 2 -a "$n" = "$(psamples "$TEST_TMP/psw.data")" ]
else
    skip perf_switch_samples_are_samples "perf record -e sched:sched_switch failed"
fi
# Hostile names: a command named with XML and JSON metacharacters stays data.
cp "$CG" "$TEST_TMP/a<b&\"c'd"
if "$PROSPECT" record -g -o "$TEST_TMP/h.data" -- "$TEST_TMP/a<b&\"c'd" 200 >/dev/null 2>&1; then
    "$PROSPECT" report -i "$TEST_TMP/h.data" --format svg -o "$TEST_TMP/h.svg"
    "$PROSPECT" report -i "$TEST_TMP/h.data" --format speedscope -o "$TEST_TMP/h.json"
    check hostile_comm_json_parses python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
sys.exit(not d["profiles"][0]["name"].startswith("a<b&\"c\x27d ("))' "$TEST_TMP/h.json"
    if have_chromium; then
        out=$(timeout 120 node "$HERE/browser.js" "file://$TEST_TMP/h.svg" \
            "eval:[...document.querySelectorAll('g.f')].some(g=>g.fname==='a<b&\"c\\'d')" 2>&1)
        check hostile_comm_svg_loads_with_the_name [ "$(head -1 <<<"$out")" = '{"step":0,"value":true}' \
            -a -n "$(grep -x '{"errors":\[\]}' <<<"$out")" ]
    fi
fi
