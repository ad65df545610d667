#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# prospect stat -r vs a minimal ptrace+int3 region tracer (Perforator's mechanism) on a region
# of a few instructions called N times. Per crossing = (time for N calls - time for 1 call) /
# (N - 1), so process start and probe setup/teardown are not counted; medians of REPS runs,
# the tools alternating. Two regions: a leaf whose first instruction a uprobe must single-step
# (prospect enters it by a jump entry by default), and a function whose first instruction
# (call) the kernel emulates (it keeps its uprobe). `--entry trap` (a uprobe on every function
# start) is measured too, to show what the jump entry saves.
# Also prints the task-clock prospect attributes to one crossing of these near-empty regions:
# the measurement skew (their own work is a few nanoseconds).
# Every command runs pinned to one CPU: a ptrace tracer whose tracee runs on the other CPU pays
# a cross-CPU wakeup per stop (measured here: 155 us per crossing unpinned, 25 us pinned), and
# the peer must be measured at its best.
set -eu
cd "$(dirname "$0")/.."
T=${BENCH_TMP:-$(mktemp -d)}
N=${BENCH_STAT_N:-100000}
REPS=${BENCH_STAT_REPS:-3}
PROSPECT=${PROSPECT:-$PWD/prospect}
gcc -O2 -g -o "$T/stat_target" bench/stat_target.c
gcc -O2 -o "$T/ptrace_tracer" bench/ptrace_tracer.c

CPU=${BENCH_CPU:-$(( $(nproc) - 1 ))}
now() { date +%s.%N; }
elapsed() { local a b; a=$(now); taskset -c "$CPU" "$@" >/dev/null 2>&1; b=$(now); echo "$b - $a" | bc -l; }
median() { sort -n | sed -n "$(( (REPS + 1) / 2 ))p"; }

for variant in leaf prologue; do
    fn=region_$variant
    off=$(nm "$T/stat_target" | awk -v f="$fn" '$3 == f { print $1 }')
    first=$(objdump -d --no-show-raw-insn "$T/stat_target" | sed -n "/<$fn>:/{n;p}" | cut -f2-)
    # Both tools must see every crossing.
    "$T/ptrace_tracer" "$off" "$T/stat_target" "$N" "$variant" 2>&1 >/dev/null |
        grep -q "crossings $N " || { echo "ptrace tracer missed crossings"; exit 1; }
    "$PROSPECT" stat -e task-clock -r "$fn" -o "$T/pr.txt" "$T/stat_target" "$N" "$variant" \
        >/dev/null 2>"$T/pr.err"
    grep -q "$N calls, $N crossings" "$T/pr.txt" ||
        { echo "prospect stat missed crossings:"; cat "$T/pr.txt"; grep -v "note:" "$T/pr.err"; exit 1; }
    # "| task-clock (us) | total | mean | min | max |" -> "mean us"
    skew=$(awk -F'|' '/^\| task-clock/ { u = $2; gsub(/.*\(|\).*/, "", u); gsub(/ /, "", $4);
                                         print $4 " " u }' "$T/pr.txt")
    : >"$T/pt"; : >"$T/pr"; : >"$T/tr"; : >"$T/b"
    for _ in $(seq "$REPS"); do
        b1=$(elapsed "$T/stat_target" 1 "$variant"); bn=$(elapsed "$T/stat_target" "$N" "$variant")
        echo "($bn - $b1)" | bc -l >>"$T/b"
        p1=$(elapsed "$T/ptrace_tracer" "$off" "$T/stat_target" 1 "$variant")
        pn=$(elapsed "$T/ptrace_tracer" "$off" "$T/stat_target" "$N" "$variant")
        echo "($pn - $p1)" | bc -l >>"$T/pt"
        r1=$(elapsed "$PROSPECT" stat -e task-clock -r "$fn" "$T/stat_target" 1 "$variant")
        rn=$(elapsed "$PROSPECT" stat -e task-clock -r "$fn" "$T/stat_target" "$N" "$variant")
        echo "($rn - $r1)" | bc -l >>"$T/pr"
        t1=$(elapsed "$PROSPECT" stat --entry trap -e task-clock -r "$fn" "$T/stat_target" 1 "$variant")
        tn=$(elapsed "$PROSPECT" stat --entry trap -e task-clock -r "$fn" "$T/stat_target" "$N" "$variant")
        echo "($tn - $t1)" | bc -l >>"$T/tr"
    done
    base=$(median <"$T/b"); pt=$(median <"$T/pt"); pr=$(median <"$T/pr"); tr=$(median <"$T/tr")
    us_tr=$(echo "($tr - $base) * 1000000 / ($N - 1)" | bc -l)
    entry=$("$PROSPECT" stat -v -e task-clock -r "$fn" "$T/stat_target" 1 "$variant" 2>&1 >/dev/null |
            grep -o "jump entry\|entry stays a uprobe: .*" | head -1)
    us_pt=$(echo "($pt - $base) * 1000000 / ($N - 1)" | bc -l)
    us_pr=$(echo "($pr - $base) * 1000000 / ($N - 1)" | bc -l)
    printf '%s (%s, first instruction: %s), %d crossings, median of %d, all on CPU %d:\n' \
        "$variant" "$fn" "$first" "$N" "$REPS" "$CPU"
    printf '  ptrace+int3 tracer : %8.2f us per crossing\n' "$us_pt"
    printf '  prospect stat -r   : %8.2f us per crossing (%s)\n' "$us_pr" "${entry:-?}"
    printf '  ... --entry trap   : %8.2f us per crossing (uprobe on the first instruction)\n' "$us_tr"
    printf '  ratio prospect/ptrace: %.2f (target <= 0.33); with --entry trap: %.2f\n' \
        "$(echo "$us_pr / $us_pt" | bc -l)" "$(echo "$us_tr / $us_pt" | bc -l)"
    printf '  skew: prospect reports a task-clock of %s per crossing of this near-empty region\n' \
        "$skew"
done
