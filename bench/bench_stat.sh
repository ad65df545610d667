#!/usr/bin/env bash
# prospect stat -r vs a minimal ptrace+int3 region tracer (Perforator's mechanism), on a
# region of a few instructions called N times. Prints microseconds per crossing (the tool's
# wall time minus the untraced run, divided by N) for both, and the ratio.
set -eu
cd "$(dirname "$0")/.."
T=${BENCH_TMP:-$(mktemp -d)}
N=${BENCH_STAT_N:-100000}
REPS=${BENCH_STAT_REPS:-3}
PROSPECT=${PROSPECT:-$PWD/prospect}
gcc -O2 -g -o "$T/stat_target" bench/stat_target.c
gcc -O2 -o "$T/ptrace_tracer" bench/ptrace_tracer.c
off=$(nm "$T/stat_target" | awk '$3 == "region" { print $1 }')

now() { date +%s.%N; }
# median of REPS wall times of a command
median_time() {
    local ts=()
    for _ in $(seq "$REPS"); do
        local a b
        a=$(now); "$@" >/dev/null 2>&1; b=$(now)
        ts+=("$(echo "$b - $a" | bc -l)")
    done
    printf '%s\n' "${ts[@]}" | sort -n | sed -n "$(( (REPS + 1) / 2 ))p"
}

base=$(median_time "$T/stat_target" "$N")
pt=$(median_time "$T/ptrace_tracer" "$off" "$T/stat_target" "$N")
pr=$(median_time "$PROSPECT" stat -e task-clock -r region "$T/stat_target" "$N")
# Check that both really saw every crossing.
"$T/ptrace_tracer" "$off" "$T/stat_target" "$N" 2>&1 >/dev/null | grep -q "crossings $N " ||
    { echo "ptrace tracer missed crossings"; exit 1; }
"$PROSPECT" stat -e task-clock -r region "$T/stat_target" "$N" 2>/dev/null |
    grep -q "$N calls, $N crossings" || { echo "prospect stat missed crossings"; exit 1; }
us_pt=$(echo "($pt - $base) * 1000000 / $N" | bc -l)
us_pr=$(echo "($pr - $base) * 1000000 / $N" | bc -l)
printf 'crossings: %d (median of %d runs; untraced run %.3f s)\n' "$N" "$REPS" "$base"
printf 'ptrace+int3 tracer : %8.2f us per crossing (%.3f s)\n' "$us_pt" "$pt"
printf 'prospect stat -r   : %8.2f us per crossing (%.3f s)\n' "$us_pr" "$pr"
printf 'ratio prospect/ptrace: %.2f (target <= 0.33)\n' "$(echo "$us_pr / $us_pt" | bc -l)"
