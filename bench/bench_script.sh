# SPDX-License-Identifier: MIT
# prospect script vs perf script on the same files (issue 23, section 1): every sample printed,
# output to a file, RUNS runs interleaved, medians and the ratio; the two outputs must be equal.
#   flat: `perf record -a -F FREQ` (no call chains) while tests/workloads/split.c runs on every CPU
#   -g:   `perf record -a -F FREQ -g`, the same workload (bench_report.sh's file)
# Target: prospect much faster than perf script (the issue quotes 18 s for perf's stackcollapse
# of a 2.5M-sample file).
set -u
RUNS=${RUNS:-3}
SECONDS_REC=${BENCH_SECONDS:-20}
FREQ=${BENCH_FREQ:-10000}
T=$BENCH_TMP/script
mkdir -p "$T"
command -v perf >/dev/null || { echo "perf not installed: skipping"; exit 0; }
[ -x /usr/bin/time ] || { echo "/usr/bin/time (Debian package 'time') missing: skipping"; exit 0; }
gcc -O2 -g -o "$T/split" tests/workloads/split.c || exit 1

. bench/lib.sh

# record OUT [perf record options...]: system-wide while one CPU-bound process per CPU runs.
record() {
    local out=$1 pids="" rec; shift
    for c in $(seq "$(nproc)"); do "$T/split" 100000 >/dev/null & pids="$pids $!"; done
    perf record -q -a -F "$FREQ" "$@" -o "$out" -- sleep "$SECONDS_REC" >/dev/null 2>"$T/rec.err"
    rec=$?
    for p in $pids; do kill "$p" 2>/dev/null; done
    wait 2>/dev/null
    [ $rec -eq 0 ] || { echo "perf record failed:"; cat "$T/rec.err"; exit 1; }
}

# compare NAME FILE: both scripts RUNS times, interleaved; a table line.
compare() {
    local name=$1 data=$2 samples
    samples=$(./prospect report -i "$data" --header | awk '$1 == "samples" { print $2 }')
    : > "$T/p_t"; : > "$T/p_m"; : > "$T/q_t"; : > "$T/q_m"
    for i in $(seq "$RUNS"); do
        timed q "$T/ours.txt" ./prospect script -i "$data" ||
            { echo "prospect script failed"; cat "$T/err.txt"; exit 1; }
        echo "$q_wall" >> "$T/q_t"; echo "$q_rss" >> "$T/q_m"
        timed p "$T/perf.txt" perf script -i "$data" ||
            { echo "perf script failed"; cat "$T/err.txt"; exit 1; }
        echo "$p_wall" >> "$T/p_t"; echo "$p_rss" >> "$T/p_m"
    done
    local qt pt qm pm
    qt=$(median < "$T/q_t"); pt=$(median < "$T/p_t")
    qm=$(median < "$T/q_m"); pm=$(median < "$T/p_m")
    printf "%-34s %10s %10s %10s %16s\n" "$name ($samples samples)" "$qt" "$pt" \
        "$(ratio "$pt" "$qt")x" "$(mib "$qm") / $(mib "$pm")"
    cmp -s "$T/ours.txt" "$T/perf.txt" ||
        echo "warning: the outputs differ ($(diff "$T/ours.txt" "$T/perf.txt" | grep -c '^[<>]') lines)"
}

record "$T/flat.data"
record "$T/g.data" -g
echo "perf record -a -F $FREQ [-g], ${SECONDS_REC}s, $(nproc) CPU-bound workers; $RUNS runs each," \
     "interleaved, medians; output to a file"
printf "%-34s %10s %10s %10s %16s\n" "" "prospect (s)" "perf (s)" "speedup" "memory MiB (p/perf)"
compare "flat" "$T/flat.data"
compare "-g" "$T/g.data"
