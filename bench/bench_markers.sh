#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# In-program markers (`stat --markers`, libprospect) vs `stat -r` on the same region: a function
# whose body is one marked region, called N times. Per crossing = the target's own loop time /
# N (process start and setup are outside the loop), medians of REPS runs, pinned to one CPU as
# bench_stat.sh does. Also the
# markers' cost outside Prospect (one predictable branch each). Issue 13's target: <= 1.1 us per
# crossing with software events (here task-clock, read as the thread's CPU clock), and the
# same with two events (task-clock,page-faults: one read of the counter group per end).
set -eu
cd "$(dirname "$0")/.."
T=${BENCH_TMP:-$(mktemp -d)}
N=${BENCH_MARKERS_N:-200000}
REPS=${BENCH_MARKERS_REPS:-3}
PROSPECT=${PROSPECT:-$PWD/prospect}
make -s --no-print-directory lib
gcc -O2 -g -Iinclude -o "$T/markers_target" bench/markers_target.c build/lib/libprospect.a -lm
CPU=${BENCH_CPU:-$(( $(nproc) - 1 ))}
# loop CMD...: the target's own ns per call (its standard output), pinned.
loop() { taskset -c "$CPU" "$@" 2>/dev/null | tail -1; }
median() { sort -g | sed -n "$(( (REPS + 1) / 2 ))p"; }

"$PROSPECT" stat --markers -e task-clock -o "$T/m.txt" "$T/markers_target" "$N" >/dev/null 2>&1
grep -q "unit: $N calls, $N crossings" "$T/m.txt" || { echo "markers missed crossings"; cat "$T/m.txt"; exit 1; }
: >"$T/b"; : >"$T/m"; : >"$T/m2"; : >"$T/r"
for _ in $(seq "$REPS"); do
    loop "$T/markers_target" "$N" >>"$T/b"
    loop "$PROSPECT" stat --markers -e task-clock "$T/markers_target" "$N" >>"$T/m"
    loop "$PROSPECT" stat --markers -e task-clock,page-faults "$T/markers_target" "$N" >>"$T/m2"
    loop "$PROSPECT" stat -e task-clock -r unit "$T/markers_target" "$N" >>"$T/r"
done
b=$(median <"$T/b"); m=$(median <"$T/m"); m2=$(median <"$T/m2"); r=$(median <"$T/r")
printf 'region "unit" (a function around one marked region), %d crossings, median of %d, CPU %d:\n' \
    "$N" "$REPS" "$CPU"
printf '  outside Prospect (markers off)     : %8.1f ns per crossing (the whole call)\n' "$b"
printf '  stat --markers -e task-clock       : %8.1f ns per crossing (%.1f over the call; target <= 1100)\n' \
    "$m" "$(echo "$m - $b" | bc -l)"
printf '  stat --markers -e task-clock,page-faults: %8.1f ns per crossing\n' "$m2"
printf '  stat -r unit (probes)              : %8.1f ns per crossing\n' "$r"
printf '  ratio markers/stat -r: %.2f\n' "$(echo "$m / $r" | bc -l)"
