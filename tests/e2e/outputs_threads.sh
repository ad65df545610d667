# SPDX-License-Identifier: MIT
# The per-thread call-stack outputs (issue 23, section 4): --format pprof labels each sample with
# its tid and thread name (go tool pprof -tags against perf report --sort pid, perf's per-thread
# key, on the same perf file), and --format speedscope gives one profile per thread whose
# samples are in time order (against perf script's sample order on the same file).
. "$(dirname "$0")/lib.sh"

build_workload phases phases -O0 -g -fno-omit-frame-pointer -pthread ||
    { fail threads_build "cannot build tests/workloads/phases.c"; exit 0; }
build_workload threads_spin threads_spin -O1 -pthread ||
    { fail threads_build "cannot build tests/workloads/threads_spin.c"; exit 0; }
if ! precord -g -o "$TEST_TMP/ph.data" -- "$WL/phases" 4 10000000; then
    skip threads_outputs "perf record -g failed three times"
    exit 0
fi

# ---- speedscope: each thread's samples in perf script's order --------------------------------
"$PROSPECT" report -i "$TEST_TMP/ph.data" --format speedscope -o "$TEST_TMP/ph.json"
check speedscope_threads_written [ $? -eq 0 -a -s "$TEST_TMP/ph.json" ]
perf script -i "$TEST_TMP/ph.data" -F tid,ip,sym -G >"$TEST_TMP/ph.script" 2>/dev/null
out=$(python3 - "$TEST_TMP/ph.json" "$TEST_TMP/ph.script" <<'PY'
import json, re, sys
doc = json.load(open(sys.argv[1]))
names = [f['name'] for f in doc['shared']['frames']]
want = ('phase_a', 'phase_b')
def runs(seq):
    out = []
    for x in seq:
        if not out or out[-1] != x:
            out.append(x)
    return out
ours, bad = {}, []
for p in doc['profiles']:
    m = re.search(r'\((\d+)/(\d+)\)$', p['name'])
    if not m:
        bad.append('profile name %r has no (pid/tid)' % p['name'])
        continue
    if len(p['samples']) != len(p['weights']) or sum(p['weights']) != p['endValue']:
        bad.append('%s: samples, weights and endValue disagree' % p['name'])
    ours[int(m.group(2))] = runs([names[s[-1]] for s in p['samples'] if names[s[-1]] in want])
perf = {}
for l in open(sys.argv[2]):
    f = l.split()
    if len(f) >= 3 and f[2] in want:
        perf.setdefault(int(f[0]), []).append(f[2])
perf = {t: runs(v) for t, v in perf.items()}
if len(perf) != 2:
    bad.append('perf script shows %d threads in phase_a/phase_b, not 2' % len(perf))
for t, v in perf.items():
    if ours.get(t) != v:
        bad.append('tid %d: ours %s, perf script %s' % (t, ours.get(t), v))
    elif len(v) < 4:
        bad.append('tid %d: only %d phases sampled' % (t, len(v)))
print('; '.join(bad) or 'ok')
PY
)
if [ "$out" = ok ]; then pass speedscope_thread_samples_in_perf_script_order
else fail speedscope_thread_samples_in_perf_script_order "$(head -c 600 <<<"$out")"; fi

# ---- pprof: tid and thread labels ------------------------------------------------------------
if ! command -v go >/dev/null; then
    skip pprof_thread_labels "go (Debian golang-go) is not installed"
    exit 0
fi
export HOME=$TEST_TMP/gohome GOCACHE=$TEST_TMP/gohome/cache GOPATH=$TEST_TMP/gohome/path
mkdir -p "$HOME"
"$PROSPECT" report -i "$TEST_TMP/ph.data" --format pprof -o "$TEST_TMP/ph.pb.gz"
go tool pprof -tags "$TEST_TMP/ph.pb.gz" >"$TEST_TMP/ph.tags" 2>/dev/null
perf report -i "$TEST_TMP/ph.data" --stdio --no-children -g none --sort pid -q \
    >"$TEST_TMP/ph.perf" 2>/dev/null
out=$(python3 - "$TEST_TMP/ph.tags" "$TEST_TMP/ph.perf" <<'PY'
import re, sys
tags, key = {}, None
for l in open(sys.argv[1]):
    m = re.match(r'\s*(\w+): Total', l)
    if m:
        key = m.group(1)
        continue
    m = re.match(r'\s*\S+ \(\s*([\d.]+)%\): (.*)$', l)
    if m and key:
        tags.setdefault(key, {})[m.group(2).strip()] = float(m.group(1))
perf = {}
for l in open(sys.argv[2]):
    m = re.match(r'\s*([\d.]+)%\s+(\d+):(\S+)', l)
    if m:
        perf[m.group(2)] = float(m.group(1))
bad = []
for k in ('comm', 'pid', 'tid', 'thread'):
    if k not in tags:
        bad.append('no %s label' % k)
if 'tid' in tags:
    if set(tags['tid']) != set(perf):
        bad.append('tids %s, perf %s' % (sorted(tags['tid']), sorted(perf)))
    for t, v in perf.items():
        if t in tags['tid'] and abs(tags['tid'][t] - v) > 0.02:
            bad.append('tid %s: %.2f%%, perf %.2f%%' % (t, tags['tid'][t], v))
print('; '.join(bad) or 'ok')
PY
)
if [ "$out" = ok ]; then pass pprof_tid_labels_equal_perf_per_thread_shares
else fail pprof_tid_labels_equal_perf_per_thread_shares "$(head -c 600 <<<"$out")"; fi

# Thread names: threads_spin's workers rename themselves (pthread_setname_np).
if "$PROSPECT" record -g -o "$TEST_TMP/ts.data" -- "$WL/threads_spin" 3000000 >/dev/null 2>&1 &&
    "$PROSPECT" report -i "$TEST_TMP/ts.data" --format pprof -o "$TEST_TMP/ts.pb.gz"; then
    go tool pprof -tags "$TEST_TMP/ts.pb.gz" >"$TEST_TMP/ts.tags" 2>/dev/null
    names=$(sed -n '/^ thread:/,/^$/p' "$TEST_TMP/ts.tags" | grep -o 'worker-[123]' | sort -u | tr '\n' ' ')
    check pprof_thread_label_is_the_thread_name [ "$names" = "worker-1 worker-2 worker-3 " ]
else
    fail pprof_thread_label_is_the_thread_name "prospect record or report failed"
fi
