#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# The cost of one start/end pair of TSC reads for each barrier mode of prospect/cycles.h, next
# to a bare rdtsc pair and clock_gettime, so users see what each mode costs on this machine
# (cpuid is trapped by hypervisors: expect microseconds in a VM).
set -eu
cd "$(dirname "$0")/.."
make -s --no-print-directory lib >/dev/null
out=${BENCH_TMP:-/tmp}/timing_cost
gcc -std=gnu11 -O2 -Iinclude -o "$out" bench/timing_cost.c build/lib/libprospect.a -lm
"$out" "${TIMING_PAIRS:-200000}"
# The kernel's own figure, for comparison with the calibration above (when dmesg is readable).
k=$( (dmesg 2>/dev/null || true) | grep -E 'tsc: (Refined TSC clocksource calibration|Detected [0-9.]+ MHz)' | tail -1 | sed 's/^\[[^]]*\] //')
khz=$(cat /sys/devices/system/cpu/cpu0/tsc_freq_khz 2>/dev/null || true)
echo "kernel: ${k:-no TSC line in dmesg}${khz:+; tsc_freq_khz $khz}"
