# SPDX-License-Identifier: MIT
# prospect run -F 4000 versus perf record -F 4000 + perf report --stdio on the same workload
# (issue 2, section 8): workload slowdown, profile+report wall time, peak memory. Medians of
# RUNS runs, interleaved so machine noise hits both alike.
set -u
RUNS=${RUNS:-5}
UNITS=${UNITS:-500}
T=$BENCH_TMP/run
mkdir -p "$T"
gcc -O2 -g -o "$T/wl" tests/workloads/split.c || exit 1
command -v perf >/dev/null || { echo "perf not installed: skipping"; exit 0; }

median() { sort -g | awk '{ a[NR] = $1 } END { print (NR % 2) ? a[(NR + 1) / 2] : (a[NR / 2] + a[NR / 2 + 1]) / 2 }'; }
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { printf("%.2f", (b > 0) ? a / b : 0) }'; }
# timed OUTVAR-PREFIX CMD...: runs CMD under GNU time; sets <prefix>_wall, <prefix>_rss (KiB).
timed() {
    local p=$1; shift
    /usr/bin/time -f "%e %M" -o "$T/time.txt" "$@" >"$T/out.txt" 2>"$T/err.txt" || return 1
    read -r w r < <(tail -1 "$T/time.txt")
    eval "${p}_wall=\$w; ${p}_rss=\$r"
}
wl_elapsed() { awk '$1 == "elapsed_s" { print $2 }' "$1"; }

: > "$T/bare"; : > "$T/pr_wl"; : > "$T/pr_total"; : > "$T/pr_rss"
: > "$T/pf_wl"; : > "$T/pf_total"; : > "$T/pf_rss"
for i in $(seq "$RUNS"); do
    "$T/wl" "$UNITS" > "$T/bare.txt"; wl_elapsed "$T/bare.txt" >> "$T/bare"

    timed pr ./prospect run -F 4000 -e cpu-clock -o "$T/report.txt" -- "$T/wl" "$UNITS" || { echo "prospect failed"; cat "$T/err.txt"; exit 1; }
    wl_elapsed "$T/out.txt" >> "$T/pr_wl"; echo "$pr_wall" >> "$T/pr_total"; echo "$pr_rss" >> "$T/pr_rss"

    timed rec perf record -q -F 4000 -e cpu-clock -o "$T/perf.data" -- "$T/wl" "$UNITS" || { echo "perf record failed"; cat "$T/err.txt"; exit 1; }
    wl_elapsed "$T/out.txt" >> "$T/pf_wl"
    timed rep perf report -i "$T/perf.data" --stdio || { echo "perf report failed"; exit 1; }
    awk -v a="$rec_wall" -v b="$rep_wall" 'BEGIN { print a + b }' >> "$T/pf_total"
    awk -v a="$rec_rss" -v b="$rep_rss" 'BEGIN { print (a > b) ? a : b }' >> "$T/pf_rss"
done
bare=$(median < "$T/bare")
pr_wl=$(median < "$T/pr_wl"); pf_wl=$(median < "$T/pf_wl")
pr_t=$(median < "$T/pr_total"); pf_t=$(median < "$T/pf_total")
pr_m=$(median < "$T/pr_rss"); pf_m=$(median < "$T/pf_rss")
samples=$(awk '$1 == "Samples" { print $2; exit }' "$T/report.txt")
echo "workload: tests/workloads/split.c, $UNITS units, ${RUNS} runs each, medians; $samples samples per prospect run"
printf "%-34s %12s %12s %10s\n" "" "prospect" "perf" "ratio p/perf"
printf "%-34s %12s %12s %10s\n" "workload slowdown (x bare ${bare}s)" "$(ratio "$pr_wl" "$bare")" "$(ratio "$pf_wl" "$bare")" "$(ratio "$(ratio "$pr_wl" "$bare")" "$(ratio "$pf_wl" "$bare")")"
printf "%-34s %12s %12s %10s\n" "profile + report wall time (s)" "$pr_t" "$pf_t" "$(ratio "$pr_t" "$pf_t")"
printf "%-34s %12s %12s %10s\n" "peak memory (MiB)" "$(awk -v k="$pr_m" 'BEGIN{printf "%.1f", k/1024}')" "$(awk -v k="$pf_m" 'BEGIN{printf "%.1f", k/1024}')" "$(ratio "$pr_m" "$pf_m")"
echo "targets: slowdown ratio <= 1.00, wall-time ratio <= 1.00"

# Hit storage: Prospect's hash + radix sort against a Judy array (the dtree's descendant).
if [ -f /usr/include/Judy.h ] && [ -f build/rel/libpcore.a ]; then
    gcc -O2 -Isrc -o "$T/hitbench" bench/hitstore_bench.c build/rel/libpcore.a -lJudy && "$T/hitbench"
fi
