#!/usr/bin/env bash
# The cost of one start/end pair of TSC reads for each barrier mode of prospect/cycles.h, next
# to a bare rdtsc pair and clock_gettime, so users see what each mode costs on this machine
# (cpuid is trapped by hypervisors: expect microseconds in a VM).
set -eu
cd "$(dirname "$0")/.."
make -s --no-print-directory lib >/dev/null
out=${BENCH_TMP:-/tmp}/timing_cost
gcc -std=gnu11 -O2 -Iinclude -o "$out" bench/timing_cost.c build/lib/libprospect.a -lm
"$out" "${TIMING_PAIRS:-200000}"
