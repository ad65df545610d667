# SPDX-License-Identifier: MIT
# Off-CPU time on the HTML page's timeline (issue 21): a file with sched_switch waits (record
# --off-cpu) gets each thread's waits per slice beside its samples. The waits drawn plus the
# ones the page says it left out equal `report --off-cpu`'s total; no sample of a thread falls
# in a slice it waited through; the profile's numbers are the folded output's, waits or not.
. "$(dirname "$0")/lib.sh"
HERE=$(cd "$(dirname "$0")" && pwd)
verdict() { if [ "$2" = ok ]; then pass "$1"; else fail "$1" "$(head -c 600 <<<"$2")"; fi; }
browse() { timeout 120 node "$HERE/browser.js" "$@" 2>&1; }

build_workload callgraph callgraph -O0 -fno-omit-frame-pointer ||
    { fail html_offcpu_build "cannot build tests/workloads/callgraph.c"; exit 0; }
D=$TEST_TMP
# "nap": each round computes, then sleeps 1 ms (a wait longer than a slice of the recording)
out=$("$PROSPECT" record --off-cpu -g -e cpu-clock -c 1000000 -o "$D/w.data" -- \
      "$WL/callgraph" 100 nap 2>&1)
if [ $? -ne 0 ]; then
    if grep -qi "permission\|not supported\|tracepoint" <<<"$out"; then
        skip html_offcpu "record --off-cpu cannot trace sched_switch here: $(head -1 <<<"$out")"
    else
        fail html_offcpu_record "prospect record --off-cpu failed: $(head -3 <<<"$out")"
    fi
    exit 0
fi
"$PROSPECT" report -i "$D/w.data" --format html -o "$D/w.html" 2>/dev/null
check html_offcpu_written [ $? -eq 0 -a -s "$D/w.html" ]
check html_offcpu_has_waits grep -q '"off":"' "$D/w.html"
want=$("$PROSPECT" report -i "$D/w.data" --off-cpu --format folded 2>/dev/null |
       awk '{ s += $NF } END { print s + 0 }')
samples=$("$PROSPECT" report -i "$D/w.data" --format folded 2>/dev/null |
          awk '{ s += $NF } END { print s + 0 }')
# A file without waits: no off-CPU data in its page.
"$PROSPECT" record -g -o "$D/p.data" -- "$WL/callgraph" 20 >/dev/null 2>&1 &&
    "$PROSPECT" report -i "$D/p.data" --format html -o "$D/p.html" 2>/dev/null
no_waits() { [ -s "$1" ] && ! grep -q '"off":"' "$1"; }
check html_offcpu_none_without_switches no_waits "$D/p.html"

if ! command -v chromium >/dev/null || ! command -v node >/dev/null; then
    skip html_offcpu_chromium "chromium or node is not installed"
    exit 0
fi
# Per thread and slice: waited ns (the page's) and samples (its decoded runs, via the thread
# filter's accumulation over one slice); the slice's width in ns.
MODEL='(function(){var P=prospect,T=P.timeline,D=JSON.parse(document.getElementById("profile-data").textContent),tl=D.tl,NT=tl.thr.length/4,NS=tl.slices,w=(tl.span+1)/NS,drawn=0,full=0,clash=[];for(var t=0;t<NT;t++){drawn+=T.waited(t,0,NS);}var N=P.totW.length;for(var s=0;s<NS;s++){for(t=0;t<NT;t++){if(T.waited(t,s,s+1)<Math.floor(w))continue;full++;var self=new Float64Array(N),pw=new Float64Array(D.proc.length/2);T.accumulate({r:s+"-"+(s+1),t:String(tl.thr[4*t])},function(){return true},self,pw);var n=0;for(var i=0;i<N;i++)n+=self[i];if(n)clash.push([t,s,n])}}return JSON.stringify({drawn:drawn,dropped:tl.off_dropped,full:full,clash:clash,total:P.total(),head:document.querySelector(".tlhead").textContent})})()'
res=$(browse "file://$D/w.html#v=tl" "wait:document.getElementById('timeline')" "eval:$MODEL" |
      sed -n 's/^{"step":1,"value":"\(.*\)"}$/\1/p' | sed 's/\\"/"/g')
if [ -z "$res" ]; then
    fail html_offcpu_page "the page did not load: $(browse "file://$D/w.html#v=tl" | tail -2)"
    exit 0
fi
out=$(python3 - "$res" "$want" "$samples" <<'PY'
import json, sys
r, want, samples = json.loads(sys.argv[1]), int(sys.argv[2]), int(sys.argv[3])
print("ok" if r["drawn"] + r["dropped"] == want else
      "drawn %d + not drawn %d != report --off-cpu's %d ns" % (r["drawn"], r["dropped"], want))
print("ok" if not r["clash"] else "samples in slices the thread waited through: %s" % r["clash"][:5])
print("ok" if r["full"] else "skip")
print("ok" if r["total"] == samples else "page total %s != folded %d" % (r["total"], samples))
print("ok" if "Off-CPU waits" in r["head"] else "no legend: " + r["head"])
PY
)
verdict html_offcpu_waits_equal_off_cpu_total "$(sed -n 1p <<<"$out")"
if [ "$(sed -n 3p <<<"$out")" = skip ]; then
    skip html_offcpu_no_sample_while_waiting "no wait covered a whole slice of this recording"
else
    verdict html_offcpu_no_sample_while_waiting "$(sed -n 2p <<<"$out")"
fi
verdict html_offcpu_profile_unchanged "$(sed -n 4p <<<"$out")"
verdict html_offcpu_legend "$(sed -n 5p <<<"$out")"
