# SPDX-License-Identifier: MIT
# prospect annotate vs perf annotate --stdio, every symbol of one perf.data (issue 11): the
# profile is prospect itself (-O2 -g, ~80 functions with samples, libc with its debug info)
# reading a 40k-sample file 10 times; RUNS runs of each, interleaved, medians of wall time.
# Also report --sort srcline vs perf report --sort srcline on the same file.
# Target: annotate at least 10x faster, srcline 20x (issue 11).
set -u
RUNS=${RUNS:-5}
T=$BENCH_TMP/annotate
mkdir -p "$T"
command -v perf >/dev/null || { echo "perf not installed: skipping"; exit 0; }
gcc -O2 -g -o "$T/div" tests/workloads/annotate_div.c || exit 1
cp "$PROSPECT" "$T/prospect-profiled"
perf record -q -F 20000 -o "$T/input.data" -- "$T/div" 300000000 >/dev/null 2>&1 &&
perf record -q -F 20000 -o "$T/self.data" -- sh -c "for i in 1 2 3 4 5; do
    '$T/prospect-profiled' report -i '$T/input.data' --flat >/dev/null
    '$T/prospect-profiled' report -i '$T/input.data' >/dev/null; done" >/dev/null 2>&1 ||
    { echo "perf record failed"; exit 1; }

median() { sort -g | awk '{ a[NR] = $1 } END { print (NR % 2) ? a[(NR + 1) / 2] : (a[NR / 2] + a[NR / 2 + 1]) / 2 }'; }
wall() {    # wall OUT CMD...: the command's wall time in seconds
    local out=$1 t0 t1; shift
    t0=$EPOCHREALTIME
    "$@" > "$out" 2>/dev/null
    t1=$EPOCHREALTIME
    awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.4f\n", b - a }'
}
# Prospect keeps compressed debug files (libc's) decompressed in its cache: the first run after
# an empty cache (cold: pays the decompression and the copy) is timed apart from the others.
export XDG_CACHE_HOME=$T/xdg
: > "$T/ours_t"; : > "$T/perf_t"; : > "$T/osl_t"; : > "$T/psl_t"; : > "$T/ocold_t"; : > "$T/slcold_t"
for i in $(seq "$RUNS"); do
    rm -rf "$XDG_CACHE_HOME"
    wall "$T/osl.txt" "$PROSPECT" report -i "$T/self.data" --sort srcline >> "$T/slcold_t"
    rm -rf "$XDG_CACHE_HOME"
    wall "$T/ours.txt" "$PROSPECT" annotate -i "$T/self.data" --top 0 >> "$T/ocold_t"
    wall "$T/ours.txt" "$PROSPECT" annotate -i "$T/self.data" --top 0 >> "$T/ours_t"
    wall "$T/perf.txt" perf annotate --stdio -i "$T/self.data" >> "$T/perf_t"
    wall "$T/osl.txt" "$PROSPECT" report -i "$T/self.data" --sort srcline >> "$T/osl_t"
    wall "$T/psl.txt" perf report --stdio -i "$T/self.data" --sort srcline >> "$T/psl_t"
done
n=$(grep -cE '^[^ #].*  \([0-9]+ samples?, ' "$T/ours.txt")
pn=$(grep -c 'Percent |' "$T/perf.txt")
ot=$(median < "$T/ours_t"); pt=$(median < "$T/perf_t")
echo "perf.data: $("$PROSPECT" report -i "$T/self.data" --header | awk '$1 == "samples" { print $2 }')" \
     "samples; functions listed: prospect $n, perf $pn; $RUNS runs each, interleaved, medians"
printf "%-36s %10s %10s %10s\n" "" "time (s)" "perf (s)" "speedup"
row() { printf "%-36s %10s %10s %10s\n" "$1" "$2" "$3" \
    "$(awk -v a="$3" -v b="$2" 'BEGIN { printf("%.1fx", b > 0 ? a / b : 0) }')"; }
row "prospect annotate --top 0" "$ot" "$pt"
row "  first run (empty debug cache)" "$(median < "$T/ocold_t")" "$pt"
row "prospect report --sort srcline" "$(median < "$T/osl_t")" "$(median < "$T/psl_t")"
row "  first run (empty debug cache)" "$(median < "$T/slcold_t")" "$(median < "$T/psl_t")"
