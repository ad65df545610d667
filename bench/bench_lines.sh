#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# prospect lines (exact counts per source line of the unmodified binary) vs gcc --coverage +
# gcov (the same counts from a rebuilt program), on bench/lines_target.c at -O0: N passes
# through a few short lines. The target times its own loop, so start-up, probe setup and
# probe removal (a kernel grace period per probe) are not in the per-hit figures:
# cost per probe hit = (loop time under prospect - loop time alone) / probe hits; medians of
# REPS runs, every command pinned to one CPU. Prospect runs with its default (counters in
# relocated function copies: --engine inproc), --engine uprobe (jump entries where blocks
# qualify) and --entry trap (a uprobe on every probed block: the kernel
# emulates some first instructions, single-steps the others; the single-step cost is solved
# from the hits of each kind the JSON output gives, an emulated hit taken to cost what a jump
# hit does: a jump entry is an emulated uprobe on a nop). gcov's cost per block execution is
# measured the same way on 100 N passes; the whole runs (prospect lines; the --coverage
# program + gcov) are compared too.
set -eu
cd "$(dirname "$0")/.."
T=${BENCH_TMP:-$(mktemp -d)}
N=${BENCH_LINES_N:-100000}
REPS=${BENCH_LINES_REPS:-3}
PROSPECT=${PROSPECT:-$PWD/prospect}
CPU=${BENCH_CPU:-$(( $(nproc) - 1 ))}
mkdir -p "$T/lines" "$T/cov"
gcc -O0 -g -o "$T/lines/target" bench/lines_target.c
gcc -O0 -g --coverage -o "$T/cov/target" bench/lines_target.c
now() { date +%s.%N; }
median() { sort -g | sed -n "$(( (REPS + 1) / 2 ))p"; }
# loop_ns CMD...: median over REPS of the target's own loop time (ns).
loop_ns() {
    : >"$T/t"
    for _ in $(seq "$REPS"); do
        taskset -c "$CPU" "$@" 2>/dev/null | sed -n 's/^loop_ns \([0-9]*\) .*/\1/p' >>"$T/t"
    done
    median <"$T/t"
}
# stats MODE: "hits_jump hits_emulated hits_single_stepped block_executions" of a run.
stats() {
    "$PROSPECT" lines "$1" --format json -o "$T/lines/out.json" -- "$T/lines/target" "$N" \
        >/dev/null 2>&1
    python3 -c 'import json, sys; p = json.load(open(sys.argv[1]))["probes"]
print(p["hits_jump"], p["hits_emulated"], p["hits_single_stepped"], p["block_executions"])' \
        "$T/lines/out.json"
}
base=$(loop_ns "$T/lines/target" "$N")
declare -A us hits
declare -A opt=([inproc]=--engine=inproc [jump]=--engine=uprobe [trap]=--entry=trap)
for mode in inproc jump trap; do
    read -r dj de ds blocks < <(stats "${opt[$mode]}")
    t=$(loop_ns "$PROSPECT" lines "${opt[$mode]}" -o /dev/null -- "$T/lines/target" "$N")
    # in the process no probe is hit: the cost is per count (a block execution)
    n=$((dj + de + ds)); [ "$n" -gt 0 ] || n=${blocks:-1}
    us[$mode]=$(echo "($t - $base) / 1000 / $n" | bc -l)
    hits[$mode]=$((dj + de + ds))
    printf 'prospect lines %s: %d probe hits (%d jump or counter, %d emulated, %d single-stepped) ' \
        "${opt[$mode]}" $((dj + de + ds)) "$dj" "$de" "$ds"
    printf 'for %d block executions\n  %.1f ns per count or probe hit (loop %.4f s; alone %.4f s)\n' \
        "$blocks" "$(echo "${us[$mode]} * 1000" | bc -l)" "$(echo "$t / 10^9" | bc -l)" \
        "$(echo "$base / 10^9" | bc -l)"
    [ "$mode" = trap ] && te=$de tj=$dj ts=$ds
done
if [ "$ts" -gt 0 ]; then
    step_us=$(echo "(${us[trap]} * ($tj + $te + $ts) - ${us[jump]} * ($tj + $te)) / $ts" | bc -l)
    printf '  => per hit: jump entry %.2f us, single-stepped uprobe %.2f us\n' "${us[jump]}" "$step_us"
fi
big=$((N * 100))
gbig=$(loop_ns "$T/cov/target" "$big"); pbig=$(loop_ns "$T/lines/target" "$big")
gcov_ns=$(echo "($gbig - $pbig) / ($blocks * 100)" | bc -l)
per_block=$(echo "${us[jump]} * 1000 * ${hits[jump]} / $blocks" | bc -l)
printf 'gcc --coverage: %.3f ns per block execution (%d passes: loop %.3f s, unbuilt %.3f s)\n' \
    "$gcov_ns" "$big" "$(echo "$gbig / 10^9" | bc -l)" "$(echo "$pbig / 10^9" | bc -l)"
printf 'per block execution: prospect lines %.0f ns (%.2f probe hits each, jump entries) vs gcov %.3f ns: %.0fx\n' \
    "$per_block" "$(echo "${hits[jump]} / $blocks" | bc -l)" "$gcov_ns" \
    "$(echo "$per_block / $gcov_ns" | bc -l)"
# Whole runs on N passes: prospect lines (setup, run, probe removal) vs the --coverage program
# and gcov's report (the rebuild not counted).
: >"$T/w"; : >"$T/pw"
for _ in $(seq "$REPS"); do
    a=$(now)
    (cd "$T/cov" && rm -f ./*.gcda && taskset -c "$CPU" ./target "$N" >/dev/null &&
     gcov -t target-lines_target.gcda >/dev/null 2>&1)
    b=$(now); echo "$b - $a" | bc -l >>"$T/w"
    a=$(now)
    taskset -c "$CPU" "$PROSPECT" lines -o /dev/null -- "$T/lines/target" "$N" >/dev/null 2>&1
    b=$(now); echo "$b - $a" | bc -l >>"$T/pw"
done
gw=$(median <"$T/w"); pw=$(median <"$T/pw")
printf 'whole run of %d passes: prospect lines %.3f s, --coverage program + gcov %.3f s: %.1fx (no rebuild for prospect)\n' \
    "$N" "$pw" "$gw" "$(echo "$pw / $gw" | bc -l)"

# --- Against callgrind (which counts every instruction of the unmodified binary, the anchor of
# issue 22) and the program alone: whole runs, wall time, medians of REPS, pinned to one CPU.
# sha256 over 20 MiB at -O0 and -O2 (bench/sha256.c, its digest checked against sha256sum),
# the target above (N * 100 passes), and a pointer-chasing, branchy tree search
# (bench/lines_chase.c). Target: prospect lines at most 1/3 of callgrind's time.
MIB=${BENCH_LINES_MIB:-20}
gcc -O0 -g -o "$T/lines/sha_O0" bench/sha256.c
gcc -O2 -g -o "$T/lines/sha_O2" bench/sha256.c
gcc -O0 -g -o "$T/lines/chase" bench/lines_chase.c
head -c 1000000 /dev/zero | tr '\0' 'a' >"$T/lines/a.txt"
want=$(sha256sum <"$T/lines/a.txt" | cut -d' ' -f1)
for v in O0 O2; do
    got=$("$PROSPECT" lines -o /dev/null -- "$T/lines/sha_$v" 0 "$T/lines/a.txt" 2>/dev/null)
    [ "$got" = "$want" ] || { echo "sha256 -$v under prospect lines: digest $got, not $want"; exit 1; }
done
wall() {   # wall CMD...: median wall time over REPS (s)
    : >"$T/wall"
    for _ in $(seq "$REPS"); do
        a=$(now)
        taskset -c "$CPU" "$@" >/dev/null 2>&1
        b=$(now); echo "$b - $a" | bc -l >>"$T/wall"
    done
    median <"$T/wall"
}
printf '%-28s %9s %10s %10s %9s %9s\n' program alone callgrind prospect /callgrind /alone
for spec in "sha256 -O0 ${MIB} MiB|$T/lines/sha_O0 $MIB" "sha256 -O2 ${MIB} MiB|$T/lines/sha_O2 $MIB" \
            "lines_target $((N * 100))|$T/lines/target $((N * 100))" "lines_chase|$T/lines/chase"; do
    name=${spec%%|*}; cmd=${spec#*|}
    # shellcheck disable=SC2086
    alone=$(wall $cmd)
    # shellcheck disable=SC2086
    cg=$(wall valgrind --tool=callgrind --callgrind-out-file=/dev/null $cmd)
    # shellcheck disable=SC2086
    pl=$(wall "$PROSPECT" lines -o /dev/null -- $cmd)
    printf '%-28s %8.3fs %9.3fs %9.3fs %9.2f %8.1fx\n' "$name" "$alone" "$cg" "$pl" \
        "$(echo "$pl / $cg" | bc -l)" "$(echo "$pl / $alone" | bc -l)"
done
