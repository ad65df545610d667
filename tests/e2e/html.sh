# SPDX-License-Identifier: MIT
# report --format html and run --html (issue 21): the page in headless Chromium loads without
# errors or requests; its call tree equals the folded output, its functions the --children
# table; a click zooms the flame graph and its search gives the SVG's matched share; a URL
# hash reopens the same view; hostile names stay text; run --html still prints the report; the
# source view's hits equal annotate's, its reasons annotate's, hostile source text stays text.
. "$(dirname "$0")/lib.sh"
HERE=$(cd "$(dirname "$0")" && pwd)
# verdict NAME OUT: pass when the checker printed "ok", else fail with what it printed.
verdict() { if [ "$2" = ok ]; then pass "$1"; else fail "$1" "$(head -c 600 <<<"$2")"; fi; }
browse() { timeout 120 node "$HERE/browser.js" "$@" 2>&1; }
# steps_equal FILE A B: "ok" when steps A and B of a browse output gave the same value (more
# than 100 characters of it: frames or pixels) and the page no error; else what differed.
steps_equal() {
    python3 - "$@" <<'PY'
import json, sys
v = [json.loads(l) for l in open(sys.argv[1]) if l.startswith('{')]
st = {l['step']: l['value'] for l in v if 'step' in l}
errs = [l.get('failure') for l in v if 'failure' in l] + [e for l in v for e in l.get('errors', [])]
a, b = str(st.get(int(sys.argv[2]), '')), str(st.get(int(sys.argv[3]), ''))
print('ok' if len(a) > 100 and a == b and not errs else
      'lengths %d/%d, equal %s, %s' % (len(a), len(b), a == b, errs[:2]))
PY
}

build_workload callgraph callgraph -O0 -fno-omit-frame-pointer ||
    { fail html_build "cannot build tests/workloads/callgraph.c"; exit 0; }
CG=$WL/callgraph
if ! "$PROSPECT" record -g -o "$TEST_TMP/p.data" -- "$CG" 1500 >/dev/null 2>&1; then
    fail html_record "prospect record -g failed"
    exit 0
fi
FILES="p"
if precord -g -o "$TEST_TMP/perf.data" -- "$CG" 1500; then
    FILES="p perf"
else
    skip html_perf_file "perf record -g failed three times"
fi

# ---- the file: written whole, one page, nothing outside it --------------------------------
for f in $FILES; do
    "$PROSPECT" report -i "$TEST_TMP/$f.data" --format html -o "$TEST_TMP/$f.html"
    check "html_written_$f" [ $? -eq 0 -a -s "$TEST_TMP/$f.html" ]
    "$PROSPECT" report -i "$TEST_TMP/$f.data" --format folded >"$TEST_TMP/$f.folded"
    "$PROSPECT" report -i "$TEST_TMP/$f.data" --children --sort sym >"$TEST_TMP/$f.children"
done
# Self-contained: no src= or href= to anything, one script of data, a policy that forbids
# fetching.
check html_no_external_reference [ -z "$(grep -Eio '(src|href)=' "$TEST_TMP/p.html")" -a \
    -n "$(grep -F "default-src 'none'" "$TEST_TMP/p.html")" ]
"$PROSPECT" report -i "$TEST_TMP/p.data" --format html >"$TEST_TMP/stdout.html"
check html_to_stdout_equals_file cmp -s "$TEST_TMP/stdout.html" "$TEST_TMP/p.html"
"$PROSPECT" report -i "$TEST_TMP/p.data" --format html --inverted -o "$TEST_TMP/x.html" 2>/dev/null
check html_inverted_is_for_svg [ $? -eq 2 -a ! -e "$TEST_TMP/x.html" ]
"$PROSPECT" report -i "$TEST_TMP/p.data" --format html --title 'My <run>' -o "$TEST_TMP/t.html"
check html_title_escaped [ -n "$(grep -F '"title":"My \u003crun\u003e"' "$TEST_TMP/t.html")" ]

if ! command -v chromium >/dev/null || ! command -v node >/dev/null; then
    skip html_chromium "chromium or node is not installed"
    exit 0
fi

# ---- in Chromium: numbers against the folded output and the --children table ---------------
# paths: every call-tree node's path (comm first, kernel frames marked _[k] as in the folded
# output), total, self and total period; funcs: every function's name, kind, self, total and
# self period.
MODEL='(function(){var P=prospect,N=P.totW.length,path=new Array(N),out=[];path[0]=[];for(var n=1;n<N;n++){var k=P.nodeKind(n);path[n]=path[P.par[n]].concat([P.nodeName(n)+(k===3?"_[k]":"")]);if(P.totW[n])out.push([path[n].join(";"),P.totW[n],P.selfW[n],P.totP[n]]);}return JSON.stringify({total:P.total(),paths:out,funcs:P.funcs().map(f=>[f.name,f.kind,f.self,f.total,f.selfP])})})()'
center_js() {
    echo "(function(){var g=[...document.querySelectorAll('#flame g.f')].find(g=>g.fname==='$1');g.scrollIntoView({block:'center',inline:'center'});var r=g.querySelector('rect').getBoundingClientRect();return {x:r.x+r.width/2,y:r.y+r.height/2}})()"
}
for f in $FILES; do
    browse "file://$TEST_TMP/$f.html" "wait:window.prospect&&prospect.ready" "eval:$MODEL" \
        "eval:location.hash='v=td'" "wait:document.querySelectorAll('.vbox .row').length" \
        "eval:[...document.querySelectorAll('.vbox .row')].map(r=>[...r.children].map(c=>c.textContent))" \
        "eval:location.hash='v=flame'" "wait:document.querySelectorAll('#flame g.f').length" \
        "click:$(center_js via_b)" "wait:document.getElementById('flame').getAttribute('data-zoomed')" \
        "eval:search('^via_')" "eval:document.querySelector('#flame #matched').textContent" \
        "eval:location.hash='v=flame&q=%5Evia_'" "wait:document.getElementById('share').textContent" \
        >"$TEST_TMP/$f.browser"
    "$PROSPECT" report -i "$TEST_TMP/$f.data" --format svg -o "$TEST_TMP/$f.svg"
    browse "file://$TEST_TMP/$f.svg" "eval:search('^via_')" >"$TEST_TMP/$f.svgbrowser"
    perf report -i "$TEST_TMP/$f.data" --no-children --sort sym -F period,sym --stdio -q -g none \
        2>/dev/null >"$TEST_TMP/$f.period"
    out=$(python3 - "$TEST_TMP/$f.browser" "$TEST_TMP/$f.folded" "$TEST_TMP/$f.children" \
                    "$TEST_TMP/$f.svgbrowser" "$TEST_TMP/$f.period" <<'PY'
import json, re, sys
def steps_of(fn):
    lines = [json.loads(l) for l in open(fn) if l.startswith('{')]
    st = {l['step']: l['value'] for l in lines if 'step' in l}
    errs = [l['failure'] for l in lines if 'failure' in l] + [e for l in lines for e in l.get('errors', [])]
    reqs = [r for l in lines for r in l.get('requests', [])]
    return st, errs, reqs
steps, errs, reqs = steps_of(sys.argv[1])
res = {}
def say(k, ok, why=''):
    res[k] = 'ok' if ok else why or 'failed'
say('loads', steps.get(0) is True and not errs, '%s %s' % (steps.get(0), errs[:3]))
say('no_request', not reqs, str(reqs[:3]))
m = json.loads(steps.get(1) or '{"total":0,"paths":[],"funcs":[]}')
# Every path prefix of the folded output, and its samples.
pref, total = {}, 0
for l in open(sys.argv[2]):
    path, n = l.rsplit(' ', 1)
    n = int(n); total += n
    fr = path.split(';')
    for i in range(1, len(fr) + 1):
        pref[';'.join(fr[:i])] = pref.get(';'.join(fr[:i]), 0) + n
got = {}
for p, t, s, _ in m['paths']:
    got[p] = got.get(p, 0) + t
bad = [(p, got.get(p), n) for p, n in pref.items() if got.get(p) != n]
bad += [(p, n, None) for p, n in got.items() if p not in pref]
say('calltree_equals_folded', m['total'] == total and not bad and len(pref) > 5,
    'total %s/%s %s' % (m['total'], total, bad[:4]))
# The functions against --children --sort sym (shares to 2 decimals), rows of 0.5% or more.
ch = {}
for l in open(sys.argv[3]):
    r = re.match(r'\s*([\d.]+)%\s+([\d.]+)%\s+.*?\[(.)\]\s+(.*)$', l)
    if r:
        key = (r.group(4).strip(), r.group(3) == 'k')
        ch[key] = (float(r.group(1)), float(r.group(2)))
fn = {}
for name, kind, s, t, _ in m['funcs']:
    if kind == 1:
        continue
    k = (name, kind == 3)
    a = fn.get(k, (0, 0))
    fn[k] = (a[0] + 100.0 * t / total, a[1] + 100.0 * s / total)
keys = [k for k in set(ch) | set(fn) if max(ch.get(k, (0, 0))[0], fn.get(k, (0, 0))[0]) >= 0.5]
bad = [(k, fn.get(k), ch.get(k)) for k in keys
       if k not in fn or k not in ch or any(abs(a - b) > 0.006 for a, b in zip(fn[k], ch[k]))]
say('functions_equal_children', not bad and len(keys) >= 4, '%d rows %s' % (len(keys), bad[:4]))
# The top-down rows in the DOM: Total, Self, Share, Time of the model's nodes.
rows = steps.get(4) or []
tot = {p.split(';')[-1]: (t, s, tp) for p, t, s, tp in m['paths'] if len(p.split(';')) <= 3}
okrows = [r for r in rows if r[5] in tot and r[0] == str(int(tot[r[5]][0])) and
          r[2] == '%.2f%%' % (100.0 * tot[r[5]][0] / total) and
          r[3] == '%.3f ms' % (tot[r[5]][2] / 1e6)]
say('calltree_rows_shown', len(rows) >= 3 and rows[0][5] in ('callgraph',) and len(okrows) >= 3,
    str(rows[:4]))
# Each function's self period (Time: cpu-clock's ns) against perf report's Period column, for
# the functions of 0.5% or more.
per = {}
for l in open(sys.argv[5]):
    r = re.match(r'\s*(\d+)\s+\[(.)\]\s+(.*?)\s*$', l)
    if r:
        k = (r.group(3), r.group(2) == 'k')
        per[k] = per.get(k, 0) + int(r.group(1))
mine = {}
for name, kind, s, t, sp in m['funcs']:
    if kind != 1:
        mine[(name, kind == 3)] = mine.get((name, kind == 3), 0) + sp
ptotal = sum(per.values())
keys = [k for k in per if per[k] >= 0.005 * ptotal]
bad = [(k, mine.get(k), per[k]) for k in keys if mine.get(k) != per[k]]
if not per:
    res['self_time_equals_perf_period'] = 'skip'
else:
    say('self_time_equals_perf_period', len(keys) >= 1 and not bad and
        sum(mine.values()) == ptotal, '%d rows %s total %s/%s' % (len(keys), bad[:4],
        sum(mine.values()), ptotal))
say('click_zooms', steps.get(8) == 'via_b', str(steps.get(8)))
svg, serrs, _ = steps_of(sys.argv[4])
va = svg.get(0)
say('search_share_equals_svg', isinstance(va, (int, float)) and va > 0 and
    abs(steps.get(9, -1) - va) < 1e-9 and steps.get(10) == 'Matched: %.2f%%' % va and
    steps.get(12) == 'Matched: %.2f%%' % va and not serrs,
    'html %s %s %s svg %s %s' % (steps.get(9), steps.get(10), steps.get(12), va, serrs[:2]))
print('\n'.join('%s=%s' % kv for kv in res.items()))
PY
)
    for k in loads no_request calltree_equals_folded functions_equal_children calltree_rows_shown \
             self_time_equals_perf_period click_zooms search_share_equals_svg; do
        v=$(sed -n "s/^$k=//p" <<<"$out")
        if [ "$v" = skip ]; then
            skip "html_${k}_$f" "perf report printed no periods (perf missing or refused the file)"
        else
            verdict "html_${k}_$f" "${v:-$out}"
        fi
    done
done

# ---- the URL hash: a filtered view's link reopens the same view -----------------------------
pid=$(awk '/^ *[0-9]+ +callgraph/ { print $1; exit }' <("$PROSPECT" report -i "$TEST_TMP/p.data"))
VIEW="JSON.stringify([prospect.state(),document.getElementById('f-proc').value,document.getElementById('f-ctx').value,document.getElementById('q').value,document.getElementById('share').textContent,document.querySelector('.main').textContent.length,[...document.querySelectorAll('#callers td')].map(t=>t.textContent)])"
browse "file://$TEST_TMP/p.html" "eval:prospect.go({v:'fn',p:'$pid',c:'u',q:'^via',f:'leaf'}),1" \
    "wait:location.hash.length>1&&document.querySelector('#callers')" "eval:location.hash" \
    "eval:$VIEW" >"$TEST_TMP/h1.browser"
hash=$(python3 -c 'import json,sys
for l in open(sys.argv[1]):
    if l.startswith("{\"step\": 2") or l.startswith("{\"step\":2"): print(json.loads(l)["value"])' "$TEST_TMP/h1.browser")
browse "file://$TEST_TMP/p.html$hash" "wait:document.querySelector('#callers')" "eval:$VIEW" \
    >"$TEST_TMP/h2.browser"
out=$(python3 - "$TEST_TMP/h1.browser" "$TEST_TMP/h2.browser" "$pid" <<'PY'
import json, sys
def last(fn):
    v = [json.loads(l) for l in open(fn) if l.startswith('{')]
    st = {l['step']: l['value'] for l in v if 'step' in l}
    errs = [l.get('failure') for l in v if 'failure' in l] + [e for l in v for e in l.get('errors', [])]
    return st, errs
a, ea = last(sys.argv[1]); b, eb = last(sys.argv[2])
va, vb = json.loads(a.get(3) or 'null'), json.loads(b.get(1) or 'null')
ok = (va and va == vb and va[0]['p'] == sys.argv[3] and va[1] == sys.argv[3] and va[2] == 'u' and
      'via_a' in va[6] and not ea and not eb)
print('ok' if ok else '%s | %s | %s %s' % (va, vb, ea[:2], eb[:2]))
PY
)
verdict html_url_hash_reopens_the_view "$out"

# The flame graph made in advance (prepare, once the page has shown) is the one drawn when the
# view is opened later: its frames equal a graph drawn then (after the user-space selection).
FRAMES="JSON.stringify([...document.querySelectorAll('#flame g.f')].map(g=>[g.fname,g.fx,g.fv,g.fd,g.fr.getAttribute('x'),g.fr.getAttribute('width'),g.fr.getAttribute('fill'),g.ft?g.ft.textContent:'']))"
browse "file://$TEST_TMP/p.html" "wait:window.prospect&&prospect.ready" \
    "eval:location.hash='v=flame'" "wait:document.querySelector('#flame g.f')" "eval:$FRAMES" \
    "eval:location.hash='v=flame&c=u'" "wait:prospect.state().c==='u'&&document.querySelector('#flame g.f')" \
    "eval:location.hash='v=flame'" "wait:prospect.state().c===''&&document.querySelector('#flame g.f')" \
    "eval:$FRAMES" >"$TEST_TMP/fm.browser"
verdict html_flame_made_in_advance_equals_drawn "$(steps_equal "$TEST_TMP/fm.browser" 3 8)"

# The icicle (#...&i=1): the flame graph with the root on top, frame for frame the SVG's
# (name, x and width in samples, depth), each frame at its depth's row from the top.
ICE="JSON.stringify([...document.querySelectorAll('#flame g.f, svg > g.f')].map(g=>[g.fname,g.fx,g.fv,g.fd,+g.fr.getAttribute('y')]))"
browse "file://$TEST_TMP/p.html#v=flame&i=1" "wait:document.querySelector('#flame g.f')" \
    "eval:$ICE" "eval:document.getElementById('icicle').textContent" >"$TEST_TMP/pi.browser"
browse "file://$TEST_TMP/p.svg" "eval:$ICE" >"$TEST_TMP/pisvg.browser"
out=$(python3 - "$TEST_TMP/pi.browser" "$TEST_TMP/pisvg.browser" <<'PY'
import json, sys
def steps(fn):
    v = [json.loads(l) for l in open(fn) if l.startswith('{')]
    errs = [l.get('failure') for l in v if 'failure' in l] + [e for l in v for e in l.get('errors', [])]
    return {l['step']: l['value'] for l in v if 'step' in l}, errs
h, he = steps(sys.argv[1]); g, ge = steps(sys.argv[2])
a, b = json.loads(h.get(1) or '[]'), json.loads(g.get(0) or '[]')
rows = [f for f in a if f[4] != 54 + 16 * f[3]]
ok = (a and sorted(f[:4] for f in a) == sorted(f[:4] for f in b) and len(a) > 5 and not rows and
      h.get(2, '').startswith('Flame graph') and not he and not ge)
print('ok' if ok else '%d/%d frames, off their row %s, %s %s' % (len(a), len(b), rows[:2], he[:2], ge[:2]))
PY
)
verdict html_icicle_is_the_svg_root_on_top "$out"

# ---- the timeline: the first half of the recording as report --time 0%-50% gives it ----------
# phases: two threads running phase_a, then phase_b (one round): the halves differ.
build_workload phases phases -O0 -fno-omit-frame-pointer -pthread ||
    fail html_timeline_build "cannot build tests/workloads/phases.c"
TLFILES=""
"$PROSPECT" record -g -o "$TEST_TMP/ph_p.data" -- "$WL/phases" 1 40000000 >/dev/null 2>&1 &&
    TLFILES="p"
if precord -g -o "$TEST_TMP/ph_perf.data" -- "$WL/phases" 1 40000000; then
    TLFILES="$TLFILES perf"
else
    skip html_timeline_perf_file "perf record -g failed three times"
fi
# DRAG: mouse down at the timeline's start, up at its middle (slice 500 of 1000).
DRAG="(function(){var c=document.getElementById('timeline'),b=c.getBoundingClientRect(),l=+c.getAttribute('data-left'),w=+c.getAttribute('data-width');function ev(t,x){c.dispatchEvent(new MouseEvent(t,{clientX:b.left+x,clientY:b.top+30,bubbles:true}))}ev('mousedown',l);ev('mousemove',l+w/4);ev('mouseup',l+w/2);return 1})()"
# CLICK: clicks along the first thread's track until a stack shows; its frames, outermost first.
CLICK="(function(){var c=document.getElementById('timeline'),b=c.getBoundingClientRect(),l=+c.getAttribute('data-left'),w=+c.getAttribute('data-width');for(var x=l+1;x<l+w;x+=2){['mousedown','mouseup'].forEach(function(t){c.dispatchEvent(new MouseEvent(t,{clientX:b.left+x,clientY:b.top+22+16+8,bubbles:true}))});var o=document.querySelector('#tl-stack ol');if(o)return [...o.querySelectorAll('.name')].map(e=>e.textContent+(e.classList.contains('kkernel')?'_[k]':'')).reverse().join(';')}return ''})()"
PICK="(function(){var s=document.getElementById('f-thr');s.value=s.options[1].value;s.dispatchEvent(new Event('change'));return s.value})()"
TLMODEL="JSON.stringify([prospect.state(),prospect.total(),prospect.funcs().filter(f=>f.total>0).map(f=>[f.name,f.kind,f.self,f.total])])"
for f in $TLFILES; do
    d="$TEST_TMP/ph_$f"
    "$PROSPECT" report -i "$d.data" --format html -o "$d.html" &&
        "$PROSPECT" report -i "$d.data" --format folded >"$d.folded" &&
        "$PROSPECT" report -i "$d.data" --time 0%-50% --children --sort sym >"$d.half"
    check "html_timeline_written_$f" [ $? -eq 0 -a -s "$d.html" ]
    perf report -i "$d.data" --time 0%-50% --children --sort sym --stdio -g none \
        >"$d.perfhalf" 2>/dev/null || rm -f "$d.perfhalf"
    browse "file://$d.html#v=tl" "wait:document.getElementById('timeline')" "eval:$DRAG" \
        "wait:prospect.state().r" "eval:$TLMODEL" "eval:location.hash" "eval:$CLICK" \
        "shot:$d.png" >"$d.browser"
    hash=$(python3 -c 'import json,sys
for l in open(sys.argv[1]):
    v = json.loads(l) if l.startswith("{") else {}
    if v.get("step") == 4: print(v["value"])' "$d.browser")
    # Reopened from the URL, then the busiest thread chosen in the thread filter.
    browse "file://$d.html$hash" "wait:window.prospect&&prospect.ready" "eval:$TLMODEL" \
        "eval:$PICK" "wait:prospect.state().t" "eval:[prospect.state().t,prospect.total()]" \
        >"$d.browser2"
    tid=$(python3 -c 'import json,sys
for l in open(sys.argv[1]):
    v = json.loads(l) if l.startswith("{") else {}
    if v.get("step") == 4: print(v["value"][0])' "$d.browser2")
    "$PROSPECT" report -i "$d.data" --time 0%-50% --tid "${tid:-0}" --format folded \
        >"$d.tid" 2>&1
    out=$(python3 - "$d.browser" "$d.browser2" "$d.half" "$d.folded" "$d.perfhalf" "$d.tid" <<'PY'
import json, os, re, sys
def steps_of(fn):
    v = [json.loads(l) for l in open(fn) if l.startswith('{')]
    st = {l['step']: l['value'] for l in v if 'step' in l}
    bad = [l['failure'] for l in v if 'failure' in l] + [e for l in v for e in l.get('errors', [])]
    return st, bad + [r for l in v for r in l.get('requests', [])]
a, ea = steps_of(sys.argv[1]); b, eb = steps_of(sys.argv[2])
m = json.loads(a.get(3) or '[{},0,[]]')
res = {}
def say(k, ok, why=''):
    res[k] = 'ok' if ok else why or 'failed'
def children(fn):
    ch, n = {}, 0
    for l in open(fn):
        r = re.match(r'#\s*Samples:\s*(\d+)([KMG]?)', l)
        if r:       # perf writes 1237 samples as "1K": then the count is not compared
            n = int(r.group(1)) if not r.group(2) else None
        r = re.match(r'\s*([\d.]+)%\s+([\d.]+)%\s+.*?\[(.)\]\s+(.*)$', l)
        if r:
            ch[(r.group(4).strip(), r.group(3) == 'k')] = (float(r.group(1)), float(r.group(2)))
    # perf's two ld.so rows (disjoint samples) are the one _start row Prospect prints.
    u = ch.pop(('_dl_start_user', False), None)
    if u:
        s = ch.get(('_start', False), (0, 0))
        ch[('_start', False)] = (s[0] + u[0], s[1] + u[1])
    return ch, n
def compare(ch, n):
    """The page's functions over the range against a --children table, rows of 3% or more
    (the startup's few samples are named apart: ld.so's and crt1's _start, perf's [unknown]):
    shares within two samples (a sample at the exact middle may fall on either side)."""
    total = m[1]
    fn = {}
    for name, kind, s, t in m[2]:
        if kind != 1:
            k = (name, kind == 3)
            x = fn.get(k, (0, 0))
            fn[k] = (x[0] + 100.0 * t / total, x[1] + 100.0 * s / total)
    tol = 0.006 + (100.0 * 2 / total if total else 0)
    keys = [k for k in set(ch) | set(fn) if max(ch.get(k, (0, 0))[0], fn.get(k, (0, 0))[0]) >= 3]
    bad = [(k, fn.get(k), ch.get(k)) for k in keys
           if k not in fn or k not in ch or any(abs(x - y) > tol for x, y in zip(fn[k], ch[k]))]
    return not bad and len(keys) >= 3 and (n is None or abs(total - n) <= 2), '%s/%s %d rows %s' % (total, n, len(keys), bad[:4])
say('loads', not ea and not eb, str((ea + eb)[:3]))
say('drag_selects_first_half', m[0].get('r') == '0-500', str(m[0]))
ok, why = compare(*children(sys.argv[3]))
say('first_half_equals_report_time', ok, why)
if os.path.exists(sys.argv[5]):
    ok, why = compare(*children(sys.argv[5]))
    say('first_half_equals_perf_report_time', ok, why)
else:
    res['first_half_equals_perf_report_time'] = 'skip'
folded = set(l.rsplit(' ', 1)[0] for l in open(sys.argv[4]))
say('click_shows_a_recorded_stack', a.get(5) and any(p.endswith(';' + a.get(5)) or p == a.get(5) for p in folded), str(a.get(5)))
say('url_range_reopens_view', b.get(1) == a.get(3), '%s | %s' % (str(a.get(3))[:200], str(b.get(1))[:200]))
tid = sum(int(l.rsplit(' ', 1)[1]) for l in open(sys.argv[6]) if l.strip() and l.rsplit(' ', 1)[1].strip().isdigit())
t = b.get(4) or ['', -1]
say('thread_filter_equals_report_tid', t[1] == tid and tid > 0, 'page %s, report --tid %s' % (t, tid))
print('\n'.join('%s=%s' % kv for kv in res.items()))
PY
)
    for k in loads drag_selects_first_half first_half_equals_report_time \
             first_half_equals_perf_report_time click_shows_a_recorded_stack url_range_reopens_view \
             thread_filter_equals_report_tid; do
        v=$(sed -n "s/^$k=//p" <<<"$out")
        if [ "$v" = skip ]; then
            skip "html_timeline_${k}_$f" "perf report --time could not read the file"
        else
            verdict "html_timeline_${k}_$f" "${v:-$out}"
        fi
    done
done
# The timeline drawn in advance (prepare) is the one shown when the view is opened later: its
# pixels equal the timeline drawn then (after another view).
if [ -s "$TEST_TMP/ph_p.html" ]; then
    PIXELS="document.getElementById('timeline').toDataURL()"
    browse "file://$TEST_TMP/ph_p.html" "wait:window.prospect&&prospect.ready" \
        "eval:location.hash='v=tl'" "wait:document.getElementById('timeline')" "eval:$PIXELS" \
        "eval:location.hash='v=td'" "wait:prospect.state().v==='td'" \
        "eval:location.hash='v=tl'" "wait:prospect.state().v==='tl'&&document.getElementById('timeline')" \
        "eval:$PIXELS" >"$TEST_TMP/tm.browser"
    verdict html_timeline_made_in_advance_equals_drawn "$(steps_equal "$TEST_TMP/tm.browser" 3 8)"
fi

# ---- hostile names: a symbol and a command that try to end the script, stay text ----------
evil=$'x</script><img src=x onerror="window.pwned=1"><!--\x01\xff\xfe\'"&amp;'
if ! command -v objcopy >/dev/null; then
    skip html_hostile_names "objcopy (binutils) is not installed"
elif gcc -O0 -fno-omit-frame-pointer -o "$TEST_TMP/names0" "$(dirname "$0")/../workloads/names.c" &&
     objcopy --redefine-sym "hot_name=$evil" "$TEST_TMP/names0" "$TEST_TMP/<b>&\"'" &&
     "$PROSPECT" record -g -o "$TEST_TMP/n.data" -- "$TEST_TMP/<b>&\"'" 100000000 >/dev/null 2>&1; then
    "$PROSPECT" report -i "$TEST_TMP/n.data" --format html -o "$TEST_TMP/n.html"
    check html_hostile_no_raw_markup [ "$(grep -c '</script>' "$TEST_TMP/n.html")" = 5 -a \
        -z "$(grep -F 'onerror="window' "$TEST_TMP/n.html")" ]
    browse "file://$TEST_TMP/n.html#v=fn" "wait:document.querySelectorAll('.vbox .row').length" \
        "eval:JSON.stringify([window.pwned===undefined,document.querySelectorAll('img').length,prospect.funcs().map(f=>f.name).filter(n=>n.indexOf('</script>')>=0),[...document.querySelectorAll('.vbox .name')].some(e=>e.textContent.indexOf('<img src=x')>=0),prospect.funcs().some(f=>f.name==='<b>&\"\\'')])" \
        >"$TEST_TMP/n.browser"
    out=$(python3 - "$TEST_TMP/n.browser" <<'PY'
import json, sys
v = [json.loads(l) for l in open(sys.argv[1]) if l.startswith('{')]
st = {l['step']: l['value'] for l in v if 'step' in l}
errs = [l.get('failure') for l in v if 'failure' in l] + [e for l in v for e in l.get('errors', [])]
r = json.loads(st.get(1) or '[]')
want = 'x</script><img src=x onerror="window.pwned=1"><!--\ufffd\ufffd\ufffd\'"&amp;'
ok = r and r[0] is True and r[1] == 0 and len(r[2]) == 1 and r[2][0].startswith('x</script><img') and r[3] and not errs
print('ok' if ok else '%s %s' % (r, errs[:2]))
PY
)
    verdict html_hostile_names_are_text "$out"
else
    skip html_hostile_names "could not build or record the renamed workload"
fi

# ---- source and assembly: annotate's numbers, its reasons, hostile source text ------------
# hot's loop line carries markup that tries to end the script and run code.
# (directories of their own: the suite shares TEST_TMP, where another test made a FIFO "gone")
mkdir -p "$TEST_TMP/html_srcv" "$TEST_TMP/html_gone"
cat >"$TEST_TMP/html_srcv/hostile.c" <<'EOF'
#include <stdlib.h>
volatile unsigned long sink;
__attribute__((noinline)) static void hot(unsigned long n)
{
    for (unsigned long i = 0; i < n; i++)
        sink += i * 3; /* x</script><img src=x onerror="window.pwned=1"><!-- & */
}
int main(int argc, char **argv)
{
    unsigned long n = argc > 1 ? strtoul(argv[1], 0, 10) : 100000000;
    for (int k = 0; k < 4; k++)
        hot(n);
    return 0;
}
EOF
cp "$TEST_TMP/html_srcv/hostile.c" "$TEST_TMP/html_gone/gone.c"
if gcc -g -O1 -fno-omit-frame-pointer -o "$TEST_TMP/html_srcv/hostile" "$TEST_TMP/html_srcv/hostile.c" &&
   gcc -g -O1 -fno-omit-frame-pointer -o "$TEST_TMP/html_gone/gone" "$TEST_TMP/html_gone/gone.c" &&
   rm "$TEST_TMP/html_gone/gone.c" &&
   "$PROSPECT" record -g -o "$TEST_TMP/s.data" -- "$TEST_TMP/html_srcv/hostile" 30000000 >/dev/null 2>&1 &&
   "$PROSPECT" record -g -o "$TEST_TMP/g.data" -- "$TEST_TMP/html_gone/gone" 30000000 >/dev/null 2>&1; then
    for f in s g; do "$PROSPECT" report -i "$TEST_TMP/$f.data" --format html -o "$TEST_TMP/$f.html"; done
    "$PROSPECT" annotate -i "$TEST_TMP/s.data" --source --format json hot >"$TEST_TMP/s.lines.json"
    "$PROSPECT" annotate -i "$TEST_TMP/s.data" --format json hot >"$TEST_TMP/s.insns.json"
    "$PROSPECT" annotate -i "$TEST_TMP/g.data" --source hot >"$TEST_TMP/g.lines.txt"
    "$PROSPECT" annotate -i "$TEST_TMP/p.data" --source leaf >"$TEST_TMP/p.lines.txt"
    check html_source_hostile_no_raw_markup [ -z "$(grep -F 'onerror="window' "$TEST_TMP/s.html")" ]
    LISTING="JSON.stringify([[...document.querySelectorAll('.sline')].map(r=>[r.dataset.file,+r.dataset.line,+r.dataset.hits,r.querySelector('.code').textContent]),[...document.querySelectorAll('.sasm')].map(r=>[parseInt(r.dataset.addr,16),+r.dataset.hits]),window.pwned===undefined,document.querySelectorAll('img').length])"
    browse "file://$TEST_TMP/s.html#v=src&f=hot" "wait:document.querySelectorAll('.sline').length" \
        "eval:document.getElementById('src-expand').click(),1" "eval:$LISTING" \
        "eval:location.hash='v=fn&f=hot'" "wait:document.getElementById('to-src')" \
        "click:(function(){var r=document.getElementById('to-src').getBoundingClientRect();return {x:r.x+4,y:r.y+4}})()" \
        "wait:location.hash.indexOf('v=src')>=0&&document.querySelectorAll('.sline').length" \
        "eval:location.hash='v=src&f=no_such_function'" "wait:document.querySelector('.nolisting')" \
        "eval:document.querySelector('.nolisting').textContent" >"$TEST_TMP/s.browser"
    browse "file://$TEST_TMP/g.html#v=src&f=hot" "wait:document.querySelector('.sfile')" \
        "eval:[...document.querySelectorAll('.sfile')].map(e=>e.textContent)" >"$TEST_TMP/g.browser"
    browse "file://$TEST_TMP/p.html#v=src&f=leaf" "wait:document.querySelector('.nosrc')" \
        "eval:document.querySelector('.nosrc').textContent" >"$TEST_TMP/p.srcbrowser"
    out=$(python3 - "$TEST_TMP" <<'PY'
import json, re, sys
t = sys.argv[1]
def steps_of(fn):
    v = [json.loads(l) for l in open(fn) if l.startswith('{')]
    st = {l['step']: l['value'] for l in v if 'step' in l}
    bad = [l['failure'] for l in v if 'failure' in l] + [e for l in v for e in l.get('errors', [])]
    bad += [r for l in v for r in l.get('requests', [])]
    return st, bad
res = {}
def say(k, ok, why=''):
    res[k] = 'ok' if ok else why or 'failed'
st, bad = steps_of(t + '/s.browser')
got = json.loads(st.get(2) or '[[],[],false,1]')
lines = json.load(open(t + '/s.lines.json'))['functions'][0]['lines']
want = [[l['source_file'] or '', l['line'], l['hits'], l['source'] or ''] for l in lines]
rows = [r if r[0] else r[:3] + [''] for r in got[0]]
say('source_lines_equal_annotate', rows == want and sum(r[2] for r in want) > 0 and not bad,
    'html %s annotate %s %s' % (rows[:3], want[:3], bad[:2]))
ins = json.load(open(t + '/s.insns.json'))['functions'][0]['instructions']
wi = [[i['address'], i['hits']] for i in ins]
say('source_insns_equal_annotate', sorted(got[1]) == sorted(wi) and len(wi) > 3,
    'html %s annotate %s' % (got[1][:4], wi[:4]))
evil = 'x</script><img src=x onerror="window.pwned=1"><!-- &'
say('source_hostile_text', got[2] is True and got[3] == 0 and
    any(evil in r[3] and r[2] > 0 for r in rows), str(got[2:]) + str([r for r in rows if 'x<' in r[3]]))
say('source_opens_from_callers', st.get(6) is not None and st.get(6) is not False, str(st.get(6)))
say('source_unlisted_said', 'no_such_function' in (st.get(9) or '') and
    '--html-source-top' in (st.get(9) or ''), str(st.get(9)))
g, gbad = steps_of(t + '/g.browser')
gone = t + '/html_gone/gone.c'
txt = open(t + '/g.lines.txt').read()
say('source_missing_file_said', g.get(1) == ['source not found: ' + gone] and
    ('# source not found: ' + gone) in txt and not gbad, '%s %s' % (g.get(1), gbad[:2]))
p, pbad = steps_of(t + '/p.srcbrowser')
m = re.search(r'^# (no DWARF line information for .*)$', open(t + '/p.lines.txt').read(), re.M)
say('source_no_dwarf_reason_as_annotate', m is not None and p.get(1) == m.group(1) and not pbad,
    '%s / %s %s' % (p.get(1), m and m.group(1), pbad[:2]))
print('\n'.join('%s=%s' % kv for kv in res.items()))
PY
)
    for k in source_lines_equal_annotate source_insns_equal_annotate source_hostile_text \
             source_opens_from_callers source_unlisted_said source_missing_file_said \
             source_no_dwarf_reason_as_annotate; do
        v=$(sed -n "s/^$k=//p" <<<"$out")
        verdict "html_$k" "${v:-$out}"
    done
else
    skip html_source "could not build or record the source view's workloads"
fi

# ---- run --html: the text report as before, and the page --------------------------------
out=$("$PROSPECT" run --html "$TEST_TMP/run.html" -- "$CG" 300 2>&1)
check html_run_prints_report_and_writes_page [ $? -eq 0 -a -s "$TEST_TMP/run.html" -a \
    -n "$(grep '^Statistics of Run' <<<"$out")" -a -n "$(grep -F '"samples":' "$TEST_TMP/run.html")" ]
browse "file://$TEST_TMP/run.html#v=td" "wait:document.querySelectorAll('.vbox .row').length" \
    "eval:prospect.total()>0" >"$TEST_TMP/run.browser"
check html_run_page_loads [ -n "$(grep -x '{"step":1,"value":true}' "$TEST_TMP/run.browser")" -a \
    -n "$(grep -x '{"errors":\[\]}' "$TEST_TMP/run.browser")" ]
# A path that cannot be written fails before the command runs, as -o does.
"$PROSPECT" run --html "$TEST_TMP/nodir/x.html" -- echo ran >"$TEST_TMP/run.out" 2>"$TEST_TMP/run.err"
check html_run_unwritable_said_before_the_run [ $? -eq 1 -a ! -s "$TEST_TMP/run.out" -a \
    -n "$(grep "cannot write $TEST_TMP/nodir/x.html" "$TEST_TMP/run.err")" ]

# ---- diff --format html: the text table and the differential SVG, in one page --------------
# q: the same program, then phases (two functions of its own): the table has three rows or
# more whatever else the machine ran (p against q alone had leaf and what noise there was).
if [ -x "$WL/phases" ] &&
   "$PROSPECT" record -g -o "$TEST_TMP/q.data" -- sh -c '"$1" 800 && "$2" 1 20000000' sh "$CG" \
       "$WL/phases" >/dev/null 2>&1; then
    d() { "$PROSPECT" diff "$TEST_TMP/p.data" "$TEST_TMP/q.data" "$@"; }
    d --format html -o "$TEST_TMP/d.html" && d --wide >"$TEST_TMP/d.txt" &&
        d --format svg -o "$TEST_TMP/d.svg"
    check html_diff_written [ $? -eq 0 -a -s "$TEST_TMP/d.html" ]
    GRAPH="JSON.stringify([search('^via_'),[...document.querySelectorAll('g.f')].map(g=>[g.fname,g.fx,g.fv,g.fd,g.querySelector('rect').getAttribute('fill')])])"
    browse "file://$TEST_TMP/d.html" "eval:document.getElementById('table').textContent" \
        "eval:$GRAPH" >"$TEST_TMP/d.browser"
    browse "file://$TEST_TMP/d.svg" "eval:$GRAPH" >"$TEST_TMP/dsvg.browser"
    out=$(python3 - "$TEST_TMP/d.browser" "$TEST_TMP/dsvg.browser" "$TEST_TMP/d.txt" <<'PY'
import json, sys
def steps_of(fn):
    v = [json.loads(l) for l in open(fn) if l.startswith('{')]
    st = {l['step']: l['value'] for l in v if 'step' in l}
    bad = [l['failure'] for l in v if 'failure' in l] + [e for l in v for e in l.get('errors', [])]
    bad += [r for l in v for r in l.get('requests', [])]
    return st, bad
h, hb = steps_of(sys.argv[1]); s, sb = steps_of(sys.argv[2])
text = open(sys.argv[3]).read()
hg, sg = json.loads(h.get(1) or '[0,[]]'), json.loads(s.get(0) or '[1,[]]')
ok = h.get(0) == text and hg == sg and hg[0] > 0 and len(hg[1]) > 5 and not hb and not sb
print('ok' if ok else 'table %s graph %s/%s %s %s' % (h.get(0) == text, hg[0], sg[0], hb[:2], sb[:2]))
PY
)
    verdict html_diff_table_and_graph_equal_text_and_svg "$out"
    # The table: sorted by a click on a column as `diff --format csv` sorted likewise, filtered
    # by the search box (which searches the graph too).
    d --format csv >"$TEST_TMP/d.csv"
    ROWS="JSON.stringify([...document.querySelectorAll('#rows tr')].slice(1).map(r=>[...r.cells].map(c=>c.textContent)))"
    th() { echo "eval:document.querySelectorAll('#rows th')[$1].click(),1"; }
    browse "file://$TEST_TMP/d.html" "eval:$ROWS" "$(th 2)" "eval:$ROWS" "$(th 2)" "eval:$ROWS" \
        "$(th 4)" "eval:$ROWS" "$(th 0)" "eval:$ROWS" \
        "eval:(q=>(q.value='^leaf\$',q.dispatchEvent(new Event('input')),1))(document.getElementById('dq'))" \
        "eval:$ROWS" "eval:[document.getElementById('dq-note').textContent,document.querySelector('#matched').textContent]" \
        >"$TEST_TMP/dt.browser"
    out=$(python3 - "$TEST_TMP/dt.browser" "$TEST_TMP/d.csv" <<'PY'
import csv, json, re, sys
v = [json.loads(l) for l in open(sys.argv[1]) if l.startswith('{')]
st = {l['step']: l['value'] for l in v if 'step' in l}
bad = [l['failure'] for l in v if 'failure' in l] + [e for l in v for e in l.get('errors', [])]
want = [(float(r[0]), float(r[1]), float(r[2]), r[3], r[4]) for r in list(csv.reader(open(sys.argv[2])))[1:]]
def rows(i):
    return [(float(r[0][:-1]), float(r[1][:-1]), float(r[2][:-1]), r[3], r[4])
            for r in json.loads(st.get(i) or '[]')]
def same(got, exp):
    return len(got) == len(exp) and all(g[3:] == e[3:] and all(abs(a - b) < 0.0051 for a, b in
                                        zip(g[:3], e[:3])) for g, e in zip(got, exp))
checks = [(0, want), (2, sorted(want, key=lambda r: -r[2])), (4, sorted(want, key=lambda r: r[2])),
          (6, sorted(want, key=lambda r: r[4])), (8, sorted(want, key=lambda r: -r[0]))]
failed = [(i, rows(i)[:3], e[:3]) for i, e in checks if not same(rows(i), e)]
flt = [r for r in sorted(want, key=lambda r: -r[0])
       if re.search('^leaf$', r[3]) or re.search('^leaf$', r[4])]
note = st.get(11) or ['', '']
ok = (not failed and len(want) >= 3 and same(rows(10), flt) and len(flt) > 0 and
      note[0] == '%d of %d rows' % (len(flt), len(want)) and note[1].startswith('Matched: ') and not bad)
print('ok' if ok else 'sorts %s filter %s/%s %s %s' % (failed[:2], rows(10)[:3], flt[:3], note, bad[:2]))
PY
)
    verdict html_diff_table_sorts_and_filters_as_csv "$out"
else
    skip html_diff "second recording failed"
fi
