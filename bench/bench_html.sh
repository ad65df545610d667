# SPDX-License-Identifier: MIT
# The HTML page (issue 21) on a system-wide -g file (perf record -a -g for BENCH_HTML_SECONDS,
# default the issue's 60 s, at -F BENCH_HTML_FREQ, default 25000, while xz and python run on
# every CPU: about 2.5M samples on 2 CPUs; kept in BENCH_TMP for the next run) and on a
# ~10k-sample file:
#   write time of report --format html against report --format folded (target <= 2x), the
#   page's size (targets: 20 MB, 1 MB at 10k samples), its first render in headless Chromium
#   (targets 3 s, 0.5 s) and each interaction measured in the page (expand, zoom, search,
#   filter; target 200 ms); `go tool pprof -http` on the pprof output of the same file, to its
#   flame graph page loaded in Chromium, side by side.
set -u
RUNS=${RUNS:-5}
SECONDS_REC=${BENCH_HTML_SECONDS:-60}
FREQ=${BENCH_HTML_FREQ:-25000}
T=$BENCH_TMP/html
mkdir -p "$T"
command -v perf >/dev/null || { echo "perf not installed: skipping"; exit 0; }
[ -x /usr/bin/time ] || { echo "/usr/bin/time (Debian package 'time') missing: skipping"; exit 0; }
. bench/lib.sh

BIG=$T/big-${SECONDS_REC}s-${FREQ}.data
if [ ! -s "$BIG" ]; then
    pids=""
    for c in $(seq "$(nproc)"); do
        if [ $((c % 2)) = 1 ] && command -v xz >/dev/null; then
            head -c 2000000000 /dev/urandom | xz -6 >/dev/null &
        else
            python3 -c 'import json
while True: json.loads(json.dumps([{"k": i, "v": str(i) * 3} for i in range(20000)]))' &
        fi
        pids="$pids $!"
    done
    perf record -q -a -F "$FREQ" -g -o "$BIG" -- sleep "$SECONDS_REC" >/dev/null 2>"$T/rec.err"
    for p in $pids; do kill "$p" 2>/dev/null; done
    wait 2>/dev/null
    [ -s "$BIG" ] || { echo "perf record failed:"; cat "$T/rec.err"; exit 1; }
fi
SMALL=$T/small.data
gcc -O0 -fno-omit-frame-pointer -o "$T/callgraph" tests/workloads/callgraph.c || exit 1
perf record -q -F 4000 -g -o "$SMALL" -- "$T/callgraph" 8000 >/dev/null 2>&1 ||
    { echo "perf record of the small file failed"; exit 1; }

# page_times HTML: first render and ready (ms since navigation: the page shown, then what its
# views need beyond it prepared, as before a user's first move) and the interactions, in the page:
# "flame" and "timeline" are the views prepare drew in advance, "flameuser" (user-space samples)
# and "tlrange" (the timeline with the first half selected) ones drawn on demand.
INTERACT='(function(){var P=prospect,t,r={first:P.timings.first,ready:P.timings.ready};function ms(f){t=performance.now();f();return +(performance.now()-t).toFixed(1)}r.topdown=ms(function(){P.apply({v:"td",p:"",d:"",c:"",q:"",f:"",t:"",r:""})});var n=P.rows()[0]&&P.rows()[0].n;r.expand=ms(function(){P.open[n]=!P.open[n];P.render()});r.search=ms(function(){P.apply({v:"td",p:"",d:"",c:"",q:"^sp",f:"",t:"",r:""})});r.filter=ms(function(){P.apply({v:"td",p:"",d:"",c:"u",q:"",f:"",t:"",r:""})});r.flame=ms(function(){P.apply({v:"flame",p:"",d:"",c:"",q:"",f:"",t:"",r:""})});var g=document.querySelectorAll("#flame g.f")[3];r.zoom=ms(function(){zoom(g)});r.flamesearch=ms(function(){search("^sp")});r.flameuser=ms(function(){P.apply({v:"flame",p:"",d:"",c:"u",q:"",f:"",t:"",r:""})});r.bottomup=ms(function(){P.apply({v:"bu",p:"",d:"",c:"",q:"",f:"",t:"",r:""})});r.functions=ms(function(){P.apply({v:"fn",p:"",d:"",c:"",q:"",f:"main",t:"",r:""})});r.timeline=ms(function(){P.apply({v:"tl",p:"",d:"",c:"",q:"",f:"",t:"",r:""})});r.range=ms(function(){P.apply({v:"td",p:"",d:"",c:"",q:"",f:"",t:"",r:"0-500"})});r.tlrange=ms(function(){P.apply({v:"tl",p:"",d:"",c:"",q:"",f:"",t:"",r:"0-500"})});return JSON.stringify(r)})()'
page_times() {
    timeout 300 node tests/e2e/browser.js "file://$1" "wait:window.prospect&&prospect.ready" \
        "eval:$INTERACT" 2>&1 | sed -n 's/^{"step":1,"value":"\(.*\)"}$/\1/p' | tr -d '\\'
}

for f in big small; do
    DATA=$T/$f.data
    [ $f = big ] && DATA=$BIG
    [ $f = small ] && DATA=$SMALL
    rm -f "$T/fold_wall" "$T/html_wall"
    for i in $(seq "$RUNS"); do
        timed fold "$T/out.folded" "$PROSPECT" report -i "$DATA" --format folded || exit 1
        echo "$fold_wall" >>"$T/fold_wall"
        timed html /dev/null "$PROSPECT" report -i "$DATA" --format html -o "$T/$f.html" || exit 1
        echo "$html_wall" >>"$T/html_wall"
    done
    samples=$(awk '{ s += $NF } END { print s }' "$T/out.folded")
    fw=$(median <"$T/fold_wall") hw=$(median <"$T/html_wall")
    printf "%-6s %9s samples  folded %7ss  html %7ss  (%sx folded)  %6.2f MB\n" "$f" \
        "$samples" "$fw" "$hw" "$(ratio "$hw" "$fw")" \
        "$(awk -v b="$(stat -c %s "$T/$f.html")" 'BEGIN { print b / 1e6 }')"
    if command -v chromium >/dev/null && command -v node >/dev/null; then
        echo "       in Chromium (ms): $(page_times "$T/$f.html")"
    else
        echo "       chromium or node not installed: no render times"
    fi
done

# go tool pprof -http on the same big file's pprof output: seconds until its flame graph page
# has loaded in Chromium (the server parses the profile first).
if ! command -v go >/dev/null || ! command -v chromium >/dev/null; then
    echo "pprof -http: go or chromium not installed: skipping the comparison"
    exit 0
fi
"$PROSPECT" report -i "$BIG" --format pprof -o "$T/big.pb.gz" || exit 1
export HOME=$T/gohome GOCACHE=$T/gohome/cache GOPATH=$T/gohome/path
mkdir -p "$HOME"
port=$((20000 + RANDOM % 20000))
t0=$EPOCHREALTIME
go tool pprof -http="127.0.0.1:$port" -no_browser "$T/big.pb.gz" >"$T/pprof.log" 2>&1 &
pp=$!
for i in $(seq 600); do     # the server parses the profile before it listens
    curl -s -o /dev/null "http://127.0.0.1:$port/" && break
    kill -0 "$pp" 2>/dev/null || break
    sleep 0.1
done
out=$(timeout 300 node tests/e2e/browser.js "http://127.0.0.1:$port/ui/flamegraph" \
      "wait:document.readyState==='complete'&&document.querySelector('#stack-chart, #flamegraph, svg, canvas')" 2>&1)
t1=$EPOCHREALTIME
kill "$pp" 2>/dev/null
wait "$pp" 2>/dev/null
if grep -q '"failure"' <<<"$out"; then
    echo "pprof -http: its page did not load ($(grep -m1 failure <<<"$out" | head -c 200))"
else
    echo "pprof -http: server start + flame graph page loaded in $(awk -v a="$t0" -v b="$t1" \
        'BEGIN { printf "%.2f", b - a }') s (html above: write + first render)"
fi
