# Call-graph reports vs perf on one system-wide `-a -g` file (issue 10, section 3): a
# `perf record -a -F FREQ -g` while a CPU-bound worker per CPU runs (or bench_report.sh's file,
# $BENCH_TMP/report/big.data, when it is there). RUNS runs interleaved, medians:
#   A: prospect report --children         vs  perf report --stdio (children with call graphs, perf's default)
#   B: prospect report --format folded    vs  perf script | stackcollapse-perf.pl (perf script
#      alone when stackcollapse-perf.pl is not installed: then the ratio flatters perf)
#   C: prospect report --format svg, pprof and speedscope (-o FILE) beside B, against the same
#      peer (what a flame graph costs via perf: perf script | stackcollapse-perf.pl, before
#      flamegraph.pl, which is not timed; so these ratios flatter perf)
# Targets: A >= 10x at <= 1/10 of perf's memory, B >= 30x.
set -u
RUNS=${RUNS:-5}
SECONDS_REC=${BENCH_SECONDS:-20}
FREQ=${BENCH_FREQ:-10000}
T=$BENCH_TMP/callgraph
mkdir -p "$T"
command -v perf >/dev/null || { echo "perf not installed: skipping"; exit 0; }
[ -x /usr/bin/time ] || { echo "/usr/bin/time (Debian package 'time') missing: skipping"; exit 0; }

. bench/lib.sh

DATA=$BENCH_TMP/report/big.data
if [ ! -s "$DATA" ]; then
    DATA=$T/big.data
    gcc -O2 -g -o "$T/split" tests/workloads/split.c || exit 1
    pids=""
    for c in $(seq "$(nproc)"); do "$T/split" 100000 >/dev/null & pids="$pids $!"; done
    perf record -q -a -F "$FREQ" -g -o "$DATA" -- sleep "$SECONDS_REC" >/dev/null 2>"$T/rec.err"
    rec=$?
    for p in $pids; do kill "$p" 2>/dev/null; done
    wait 2>/dev/null
    [ $rec -eq 0 ] || { echo "perf record failed:"; cat "$T/rec.err"; exit 1; }
fi
collapse=$(command -v stackcollapse-perf.pl || true)
folded_peer() {
    if [ -n "$collapse" ]; then perf script -i "$DATA" | "$collapse" --all; else perf script -i "$DATA"; fi
}
samples=$(./prospect report -i "$DATA" --header | awk '$1 == "samples" { print $2 }')
echo "perf.data: $(du -mL "$DATA" | cut -f1) MB, $samples samples ($DATA); $RUNS runs each," \
     "interleaved, medians"

for f in c_t c_m pc_t pc_m f_t f_m pf_t pf_m s_t s_m g_t g_m j_t j_m; do : > "$T/$f"; done
for i in $(seq "$RUNS"); do
    timed c "$T/children.txt" ./prospect report -i "$DATA" --children ||
        { echo "prospect report --children failed"; cat "$T/err.txt"; exit 1; }
    echo "$c_wall" >> "$T/c_t"; echo "$c_rss" >> "$T/c_m"
    timed pc "$T/perf_children.txt" perf report -i "$DATA" --stdio ||
        { echo "perf report failed"; cat "$T/err.txt"; exit 1; }
    echo "$pc_wall" >> "$T/pc_t"; echo "$pc_rss" >> "$T/pc_m"
    timed f "$T/folded.txt" ./prospect report -i "$DATA" --format folded ||
        { echo "prospect report --format folded failed"; cat "$T/err.txt"; exit 1; }
    echo "$f_wall" >> "$T/f_t"; echo "$f_rss" >> "$T/f_m"
    timed pf "$T/perf_folded.txt" bash -c "$(declare -f folded_peer); DATA='$DATA' collapse='$collapse' folded_peer" ||
        { echo "perf script failed"; cat "$T/err.txt"; exit 1; }
    echo "$pf_wall" >> "$T/pf_t"; echo "$pf_rss" >> "$T/pf_m"
    for x in s:svg:flame.svg g:pprof:prof.pb.gz j:speedscope:prof.json; do
        IFS=: read -r k fmt out <<<"$x"
        timed "$k" /dev/null ./prospect report -i "$DATA" --format "$fmt" -o "$T/$out" ||
            { echo "prospect report --format $fmt failed"; cat "$T/err.txt"; exit 1; }
        eval "echo \"\$${k}_wall\" >> \"$T/${k}_t\"; echo \"\$${k}_rss\" >> \"$T/${k}_m\""
    done
done
row() {   # row NAME OURS_T PEER_T OURS_M PEER_M
    printf "%-36s %10s %10s %10s %14s %10s\n" "$1" "$2" "$3" "$(ratio "$3" "$2")x" \
        "$(mib "$4") / $(mib "$5")" "$(ratio "$4" "$5")"
}
printf "%-36s %10s %10s %10s %14s %10s\n" "" "time (s)" "perf (s)" "speedup" "memory (MiB)" "mem ratio"
row "report --children" "$(median < "$T/c_t")" "$(median < "$T/pc_t")" "$(median < "$T/c_m")" \
    "$(median < "$T/pc_m")"
row "report --format folded" "$(median < "$T/f_t")" "$(median < "$T/pf_t")" "$(median < "$T/f_m")" \
    "$(median < "$T/pf_m")"
for x in s:svg g:pprof j:speedscope; do
    IFS=: read -r k fmt <<<"$x"
    row "report --format $fmt *" "$(median < "$T/${k}_t")" "$(median < "$T/pf_t")" \
        "$(median < "$T/${k}_m")" "$(median < "$T/pf_m")"
done
echo "* against the folded peer (a flame graph via perf costs that, plus flamegraph.pl, not timed)"
[ -n "$collapse" ] || echo "note: stackcollapse-perf.pl not installed: the folded peer is perf script alone"
echo "targets: --children >= 10x at memory ratio <= 0.10; folded >= 30x"
