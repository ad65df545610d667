#!/usr/bin/env bash
# prospect lines (exact counts per source line of the unmodified binary) vs gcc --coverage
# (gcov: the same counts from a rebuilt program), on bench/lines_target.c at -O0: N passes
# through a few lines. Cost per counted execution = (time for N passes - time for 1) / (block
# executions counted for N - for 1), so start-up and probe setup are not counted; medians of
# REPS runs, every command pinned to one CPU. Prospect is measured with its default (jump
# entries where blocks qualify) and with --entry trap (a uprobe on every block: the kernel
# emulates some first instructions, single-steps the others); gcov's run time includes
# writing its .gcda file, and `gcov` itself to print the counts.
set -eu
cd "$(dirname "$0")/.."
T=${BENCH_TMP:-$(mktemp -d)}
N=${BENCH_LINES_N:-20000}
REPS=${BENCH_LINES_REPS:-3}
PROSPECT=${PROSPECT:-$PWD/prospect}
CPU=${BENCH_CPU:-$(( $(nproc) - 1 ))}
mkdir -p "$T/lines" "$T/cov"
gcc -O0 -g -o "$T/lines/target" bench/lines_target.c
gcc -O0 -g --coverage -o "$T/cov/target" bench/lines_target.c
now() { date +%s.%N; }
elapsed() { local a b; a=$(now); taskset -c "$CPU" "$@" >/dev/null 2>&1; b=$(now); echo "$b - $a" | bc -l; }
median() { sort -n | sed -n "$(( (REPS + 1) / 2 ))p"; }
# hits MODE N: block executions prospect counted (from the header).
hits() {
    "$PROSPECT" lines $1 -o "$T/lines/out.txt" -- "$T/lines/target" "$2" >/dev/null 2>&1
    sed -n 's/.*this run: \([0-9]*\) block executions.*/\1/p' "$T/lines/out.txt"
}
gcov_run() { (cd "$T/cov" && rm -f ./*.gcda && ./target "$1" && gcov -t target-lines_target.gcda target.gcda) >/dev/null 2>&1 || true; }
cd_gcov() { gcov_run "$1"; }

declare -A per
for mode in "--entry=jump" "--entry=trap"; do
    h1=$(hits "$mode" 1); hn=$(hits "$mode" "$N")
    probes=$(grep "^# [0-9]* counting probes" "$T/lines/out.txt" | sed 's/^# //')
    : >"$T/b"; : >"$T/p"
    for _ in $(seq "$REPS"); do
        b1=$(elapsed "$T/lines/target" 1); bn=$(elapsed "$T/lines/target" "$N")
        echo "$bn - $b1" | bc -l >>"$T/b"
        p1=$(elapsed "$PROSPECT" lines "$mode" -o /dev/null -- "$T/lines/target" 1)
        pn=$(elapsed "$PROSPECT" lines "$mode" -o /dev/null -- "$T/lines/target" "$N")
        echo "$pn - $p1" | bc -l >>"$T/p"
    done
    base=$(median <"$T/b"); pr=$(median <"$T/p")
    per[$mode]=$(echo "($pr - $base) * 1000000 / ($hn - $h1)" | bc -l)
    printf 'prospect lines %s: %d block executions counted for N=%d (%s)\n' "$mode" \
        "$((hn - h1))" "$N" "$probes"
    printf '  %.2f us per counted execution (%.3f s for N passes, the program alone %.3f s)\n' \
        "${per[$mode]}" "$pr" "$base"
done
: >"$T/g"
for _ in $(seq "$REPS"); do
    g1=$(elapsed bash -c "cd '$T/cov' && ./target 1 && gcov -t target-lines_target.gcda >/dev/null 2>&1")
    gn=$(elapsed bash -c "cd '$T/cov' && ./target $N && gcov -t target-lines_target.gcda >/dev/null 2>&1")
    echo "$gn - $g1" | bc -l >>"$T/g"
done
hn=$(hits "--entry=jump" "$N"); h1=$(hits "--entry=jump" 1)
gc=$(median <"$T/g")
us_g=$(echo "$gc * 1000000 / ($hn - $h1)" | bc -l)
printf 'gcc --coverage (rebuilt program) + gcov: %.4f s for N passes: %.4f us per block execution\n' \
    "$gc" "$us_g"
printf 'ratio prospect/gcov per counted execution: %.0fx (jump), %.0fx (trap); prospect needs no rebuild\n' \
    "$(echo "${per[--entry=jump]} / ($us_g + 0.000001)" | bc -l)" \
    "$(echo "${per[--entry=trap]} / ($us_g + 0.000001)" | bc -l)"
