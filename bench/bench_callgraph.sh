# SPDX-License-Identifier: MIT
# Call-graph reports vs perf (issue 10, section 3) on two -g files of ~400k samples:
#   shallow: `perf record -a -F FREQ -g` while tests/workloads/split.c runs on every CPU (or
#            bench_report.sh's file, $BENCH_TMP/report/big.data)
#   deep:    `perf record -c 50000 -g` of tests/workloads/cg_shapes.c chain on every CPU: 48
#            distinct functions, stacks 16-47 deep (the workers' own samples only: a -a file
#            would be mostly other processes' shallow stacks on a shared machine)
# RUNS runs interleaved, medians of wall time, CPU time (user + system: steadier when other
# jobs share the machine) and peak RSS:
#   report --children         vs  perf report --stdio (children with call graphs, perf's default)
#   report --format folded    vs  perf script | stackcollapse-perf.pl, else perf's own folded
#                                 writer (perf script report stackcollapse), else perf script
#   report --format svg, pprof, speedscope (-o FILE) against the folded peer (a flame graph
#                                 via perf costs that plus flamegraph.pl, not timed: flatters perf)
# Targets: --children >= 10x (shallow) and >= 50x (deep) at <= 1/10 of perf's memory; folded
# >= 30x.
set -u
RUNS=${RUNS:-5}
SECONDS_REC=${BENCH_SECONDS:-20}
FREQ=${BENCH_FREQ:-10000}
T=$BENCH_TMP/callgraph
mkdir -p "$T"
command -v perf >/dev/null || { echo "perf not installed: skipping"; exit 0; }
[ -x /usr/bin/time ] || { echo "/usr/bin/time (Debian package 'time') missing: skipping"; exit 0; }

. bench/lib.sh

# record_with OUT CMD...: perf record -a -g while one CMD per CPU runs.
record_with() {
    local out=$1 pids="" rec; shift
    for c in $(seq "$(nproc)"); do "$@" >/dev/null & pids="$pids $!"; done
    perf record -q -a -F "$FREQ" -g -o "$out" -- sleep "$SECONDS_REC" >/dev/null 2>"$T/rec.err"
    rec=$?
    for p in $pids; do kill "$p" 2>/dev/null; done
    wait 2>/dev/null
    [ $rec -eq 0 ] || { echo "perf record failed:"; cat "$T/rec.err"; exit 1; }
}
SHALLOW=$BENCH_TMP/report/big.data
if [ ! -s "$SHALLOW" ]; then
    SHALLOW=$T/big.data
    gcc -O2 -g -o "$T/split" tests/workloads/split.c || exit 1
    [ -s "$SHALLOW" ] || record_with "$SHALLOW" "$T/split" 100000
fi
DEEP=$T/deep.data
gcc -O0 -fno-omit-frame-pointer -g -pthread -o "$T/cg_shapes" tests/workloads/cg_shapes.c || exit 1
if [ ! -s "$DEEP" ]; then
    w=""
    for c in $(seq "$(nproc)"); do w="$w '$T/cg_shapes' chain 1000000000 &"; done
    perf record -q -c 50000 -g -o "$DEEP" -- timeout "$SECONDS_REC" sh -c "$w wait" \
        >/dev/null 2>"$T/rec.err"
    [ -s "$DEEP" ] || { echo "perf record failed:"; cat "$T/rec.err"; exit 1; }
fi

# The folded peer: stackcollapse-perf.pl after perf script when installed (no Debian package),
# else perf's own folded writer, `perf script report stackcollapse` (its --kernel marks kernel
# frames _[k] as ours do), else perf script alone (flatters perf: it does not fold).
collapse=$(command -v stackcollapse-perf.pl || true)
peer_kind=script
if [ -n "$collapse" ]; then peer_kind=pl
elif perf script -l 2>/dev/null | grep -q '^ *stackcollapse '; then peer_kind=py
fi
folded_peer() {
    case $peer_kind in
    pl) perf script -i "$DATA" | "$collapse" --all ;;
    py) perf script report stackcollapse -i "$DATA" -- --kernel ;;
    *) perf script -i "$DATA" ;;
    esac
}
# timed3 PREFIX OUT CMD...: <prefix>_wall, <prefix>_cpu (user + system, s), <prefix>_rss (KiB).
timed3() {
    local p=$1 out=$2 w c r; shift 2
    /usr/bin/time -f "%e %U %S %M" -o "$T/time.txt" "$@" >"$out" 2>"$T/err.txt" || return 1
    read -r w u s r < <(tail -1 "$T/time.txt")
    c=$(awk -v u="$u" -v s="$s" 'BEGIN { printf "%.2f", u + s }')
    eval "${p}_wall=\$w; ${p}_cpu=\$c; ${p}_rss=\$r"
}
row() {   # row NAME PREFIX_OURS PREFIX_PEER
    local o=$2 p=$3
    printf "%-38s %7s %7s %7s  %6s %6s %6s  %8s %8s %6s\n" "$1" \
        "$(median < "$T/${o}_wall")" "$(median < "$T/${p}_wall")" \
        "$(ratio "$(median < "$T/${p}_wall")" "$(median < "$T/${o}_wall")")x" \
        "$(median < "$T/${o}_cpu")" "$(median < "$T/${p}_cpu")" \
        "$(ratio "$(median < "$T/${p}_cpu")" "$(median < "$T/${o}_cpu")")x" \
        "$(mib "$(median < "$T/${o}_rss")")" "$(mib "$(median < "$T/${p}_rss")")" \
        "$(ratio "$(median < "$T/${o}_rss")" "$(median < "$T/${p}_rss")")"
}
for name in shallow deep; do
    DATA=$SHALLOW; [ $name = deep ] && DATA=$DEEP
    samples=$(./prospect report -i "$DATA" --header | awk '$1 == "samples" { print $2 }')
    echo "$name: $(du -mL "$DATA" | cut -f1) MB, $samples samples ($DATA)"
    for f in c pc f pf s g j; do for k in wall cpu rss; do : > "$T/$name$f.$k"; done; done
    for i in $(seq "$RUNS"); do
        timed3 c "$T/children.txt" ./prospect report -i "$DATA" --children ||
            { echo "prospect report --children failed"; cat "$T/err.txt"; exit 1; }
        timed3 pc "$T/perf_children.txt" perf report -i "$DATA" --stdio ||
            { echo "perf report failed"; cat "$T/err.txt"; exit 1; }
        timed3 f "$T/folded.txt" ./prospect report -i "$DATA" --format folded ||
            { echo "prospect report --format folded failed"; cat "$T/err.txt"; exit 1; }
        timed3 pf "$T/perf_folded.txt" bash -c "$(declare -f folded_peer); DATA='$DATA' collapse='$collapse' peer_kind=$peer_kind folded_peer" ||
            { echo "perf script failed"; cat "$T/err.txt"; exit 1; }
        for x in s:svg:flame.svg g:pprof:prof.pb.gz j:speedscope:prof.json; do
            IFS=: read -r k fmt out <<<"$x"
            timed3 "$k" /dev/null ./prospect report -i "$DATA" --format "$fmt" -o "$T/$out" ||
                { echo "prospect report --format $fmt failed"; cat "$T/err.txt"; exit 1; }
        done
        for f in c pc f pf s g j; do
            for k in wall cpu rss; do eval "echo \$${f}_$k" >> "$T/$name$f.$k"; done
        done
    done
    for f in c pc f pf s g j; do for k in wall cpu rss; do mv "$T/$name$f.$k" "$T/${name}${f}_$k"; done; done
done
printf "\n%-38s %7s %7s %7s  %6s %6s %6s  %8s %8s %6s\n" "" "wall s" "perf" "speedup" "cpu s" \
    "perf" "ratio" "MiB" "perf MiB" "mem"
for name in shallow deep; do
    row "$name: report --children" "${name}c" "${name}pc"
    row "$name: report --format folded" "${name}f" "${name}pf"
    for x in s:svg g:pprof j:speedscope; do
        IFS=: read -r k fmt <<<"$x"
        row "$name: report --format $fmt *" "${name}$k" "${name}pf"
    done
done
echo "* against the folded peer (a flame graph via perf costs that, plus flamegraph.pl, not timed)"
case $peer_kind in
pl) echo "folded peer: perf script | stackcollapse-perf.pl --all" ;;
py) echo "folded peer: perf script report stackcollapse -- --kernel (perf's own folded writer;" \
        "stackcollapse-perf.pl is not installed)" ;;
*) echo "note: no folded writer for perf found: the folded peer is perf script alone (flatters perf)" ;;
esac
echo "targets: --children >= 10x (shallow), >= 50x (deep), memory ratio <= 0.10; folded >= 30x"

# DWARF unwinding (issue 10, section 3), on one `perf record --call-graph dwarf` file of xz
# (stripped, with stripped liblzma; the unwinding workload when xz is missing):
#   C: prospect report --children   vs  perf report --stdio   (target >= 5x)
# and the cost of recording, as the CPU time a fixed amount of work takes (medians):
#   D: prospect record -g / --call-graph dwarf  vs  perf record -g / --call-graph dwarf
#      (target: no worse than perf's)
DW=$T/dwarf.data
gcc -O2 -fno-omit-frame-pointer -o "$T/unw" tests/workloads/unwind.c || exit 1
if command -v xz >/dev/null; then
    # 16 MiB of binaries: about 7 s of xz -6, 14k samples at 2 kHz (as the issue's file).
    cat /usr/bin/* 2>/dev/null | head -c $((16 << 20)) > "$T/xz.in"
    DWCMD="xz -T1 -6 -c $T/xz.in"
else
    DWCMD="$T/unw split 600000"
fi
if [ ! -s "$DW" ]; then
    perf record -q -F 2000 --call-graph dwarf -o "$DW" -- sh -c "$DWCMD > /dev/null" \
        >/dev/null 2>"$T/rec.err" || { echo "perf record --call-graph dwarf failed:"; cat "$T/rec.err"; exit 1; }
fi
samples=$(./prospect report -i "$DW" --header | awk '$1 == "samples" { print $2 }')
echo
echo "DWARF file: $(du -mL "$DW" | cut -f1) MB, $samples samples of '$DWCMD'; $RUNS runs, medians"
for f in d pd; do for k in wall cpu rss; do : > "$T/dw$f.$k"; done; done
for i in $(seq "$RUNS"); do
    timed3 d "$T/dchildren.txt" ./prospect report -i "$DW" --children ||
        { echo "prospect report --children (dwarf) failed"; cat "$T/err.txt"; exit 1; }
    timed3 pd "$T/pdchildren.txt" perf report -i "$DW" --stdio ||
        { echo "perf report (dwarf) failed"; cat "$T/err.txt"; exit 1; }
    for f in d pd; do for k in wall cpu rss; do eval "echo \$${f}_$k" >> "$T/dw$f.$k"; done; done
done
for f in d pd; do for k in wall cpu rss; do mv "$T/dw$f.$k" "$T/dw${f}_$k"; done; done
printf "%-38s %7s %7s %7s  %6s %6s %6s  %8s %8s %6s\n" "" "wall s" "perf" "speedup" "cpu s" \
    "perf" "ratio" "MiB" "perf MiB" "mem"
row "DWARF file: report --children" dwd dwpd
echo "target: DWARF-unwound report >= 5x"

# D: the same work alone, then under each recorder (-F 4000). The work's
# own CPU time (user + sys: the kernel's sample copies are charged to it) is taken inside the
# recording (/usr/bin/time around it): the cost the profiled program pays, apart from each
# recorder's start-up and write-out, and steadier than wall time on a shared machine.
WORK="$T/unw split 300000"
RF=${BENCH_REC_FREQ:-4000}   # a high rate, so the cost stands out of /usr/bin/time's 10 ms
cpu() { awk '{ t = $1 + $2 } END { print t }' "$T/w.txt"; }
work() {   # work PREFIX [RECORDER...]: the work's CPU seconds under RECORDER into $T/o_PREFIX
    local p=$1; shift
    "$@" /usr/bin/time -f "%U %S" -o "$T/w.txt" $WORK >/dev/null 2>&1 && cpu >> "$T/o_$p"
}
for f in base pg og pdw odw; do : > "$T/o_$f"; done
for i in $(seq "$RUNS"); do
    work base
    work pg perf record -q -F "$RF" -g -o "$T/o.data" --
    work og ./prospect record -F "$RF" -g -o "$T/o.data" --
    work pdw perf record -q -F "$RF" --call-graph dwarf -o "$T/o.data" --
    work odw ./prospect record -F "$RF" --call-graph dwarf -o "$T/o.data" --
done
base=$(median < "$T/o_base")
over() { awk -v t="$1" -v b="$base" 'BEGIN { printf "%.1f%%", (b > 0) ? (t - b) / b * 100 : 0 }'; }
echo
echo "recording overhead: '$WORK' alone $base s CPU; its CPU while recorded at -F $RF (medians of $RUNS)"
printf "%-28s %10s %10s %12s %12s\n" "" "prospect" "perf" "prospect +" "perf +"
for m in g dw; do
    o=$(median < "$T/o_o$m"); p=$(median < "$T/o_p$m")
    printf "%-28s %10s %10s %12s %12s\n" "record $([ $m = g ] && echo -g || echo '--call-graph dwarf')" \
        "$o" "$p" "$(over "$o")" "$(over "$p")"
done
echo "target: prospect's overhead no worse than perf's"
