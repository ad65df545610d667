# SPDX-License-Identifier: MIT
# The seed examples (built by `make examples` into build/examples/) run and print what they
# promise. Structure only: no timing thresholds (the cold first call is printed, not asserted).
source "$(dirname "$0")/lib.sh"
EX=build/examples

# Seed 003 (make seed003): both programs under prospect run and stat, times and where the
# samples fall; the cache events sampled where there is a PMU, else prospect's reason.
if [ -x "$EX/no_alignment" ] && [ -x "$EX/alignment" ]; then
    SEED003_LOOPS=1000 PROSPECT=$PROSPECT scripts/seed003 >"$TEST_TMP/seed003.txt" 2>&1
    check seed003_runs test $? -eq 0
    for p in no_alignment alignment; do
        sec=$(sed -n "/^== $p:/,/^$/p" "$TEST_TMP/seed003.txt")
        check "seed003_${p}_time_under_run" grep -qE "under prospect run: $p: [0-9.]+ s" <<<"$sec"
        check "seed003_${p}_time_under_stat" grep -qE "under prospect stat: [0-9.]+ s elapsed" <<<"$sec"
        # Both loops run the same work on two threads: each gets samples.
        check "seed003_${p}_hits_in_both_loops" \
            bash -c 'grep -qE "proc1_loop +[1-9]" <<<"$1" && grep -qE "proc2_loop +[1-9]" <<<"$1"' _ "$sec"
        if [ -r /sys/bus/event_source/devices/cpu/type ]; then
            check "seed003_${p}_cache_samples" grep -q "samples fall (the line" <<<"$sec"
        else
            check "seed003_${p}_says_why_no_cache_events" \
                grep -q "not sampled: .*hardware counters are not available to this machine" <<<"$sec"
        fi
    done
    check seed003_compares grep -qE "^no_alignment / alignment: [0-9.]+x" "$TEST_TMP/seed003.txt"
else
    fail seed003_built "$EX/no_alignment or $EX/alignment missing (make examples)"
fi
if grep -qw constant_tsc /proc/cpuinfo && grep -qw nonstop_tsc /proc/cpuinfo; then :; else
    skip examples "the TSC is not invariant here; the examples refuse to run"; exit 0
fi
for b in sqrt_timing malloc_bench; do
    [ -x "$EX/$b" ] || { fail "example_$b_built" "$EX/$b missing (make examples)"; exit 0; }
done

out=$("$EX/sqrt_timing" 2>&1); rc=$?
check sqrt_timing_exits_0 test "$rc" -eq 0
first=$(head -1 <<<"$out")
check sqrt_timing_prints_ten_numbers_on_one_line \
    grep -qE '^( [0-9]+){10}$' <<<"$first"
check sqrt_timing_explains_floor grep -q 'measurement floor of [0-9]* ticks' <<<"$out"
# Every figure is positive: a pair of serialized reads cannot take zero ticks.
check sqrt_timing_numbers_positive bash -c '! grep -qw 0 <<<"$1"' _ "$first"
# Without rdtscp the example says once which reads it used instead; with rdtscp, nothing.
if grep -qw rdtscp /proc/cpuinfo; then want=0; else want=1; fi
check sqrt_timing_names_tsc_fallback \
    test "$(grep -c '^note: no rdtscp: end reads are lfence;rdtsc;lfence' <<<"$out")" -eq "$want"

svg=$TEST_TMP/malloc.svg csv=$TEST_TMP/malloc.csv
out=$("$EX/malloc_bench" -n 3000 -o "$svg" --csv "$csv" 2>&1); rc=$?
check malloc_bench_exits_0 test "$rc" -eq 0
check malloc_bench_pins grep -qE '^pinned to CPU [0-9]+' <<<"$out"
check malloc_bench_table_has_four_series \
    test "$(grep -cE '^(glibc malloc|bump allocator).* 3000 ' <<<"$out")" -eq 4
check malloc_bench_csv_has_header_and_four_rows test "$(wc -l <"$csv")" -eq 5
check malloc_bench_svg_well_formed_with_four_series python3 - "$svg" <<'PY'
import sys, xml.etree.ElementTree as ET
ns = '{http://www.w3.org/2000/svg}'
root = ET.parse(sys.argv[1]).getroot()
lines = [p for p in root.iter(ns + 'polyline') if p.get('class') == 'series']
assert root.tag == ns + 'svg', root.tag
assert len(lines) == 4, len(lines)
for p in lines:
    pts = [tuple(map(float, xy.split(','))) for xy in p.get('points').split()]
    assert len(pts) > 100
    xs = [x for x, _ in pts]
    assert xs == sorted(xs), 'x must be the percentile, increasing'
    # y is inverted in SVG: higher percentiles are never faster
    ys = [y for _, y in pts]
    assert ys == sorted(ys, reverse=True), 'curve must be non-decreasing'
texts = ''.join(t.text or '' for t in root.iter(ns + 'text'))
assert 'percentile of calls' in texts and 'bump allocator 16 B' in texts
PY
out=$("$EX/malloc_bench" -b cpuid -n 200 2>&1); rc=$?
check malloc_bench_cpuid_barrier_runs test "$rc" -eq 0
"$EX/malloc_bench" -c 99999 >/dev/null 2>&1; rc=$?
check malloc_bench_rejects_bad_cpu test "$rc" -ne 0
