#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# A fresh machine: tracefs not mounted (Prospect mounts it, as perf's tools do), `make` builds
# prospect, the symbol fuzzer builds. tests/run-tests also reruns the tracefs suites in a
# private mount namespace with tracefs unmounted.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/stat_lib.sh"
root=$(cd "$(dirname "$0")/../.." && pwd)

# `make` with no target builds prospect (pretend its main file changed: a dry run lists the link).
check make_default_builds_prospect grep -q -- "-o prospect " <(make -n -W src/prospect.c -C "$root" 2>&1)

# tracefs unmounted in a private mount namespace: region tracing, tracepoints and the list work.
fresh() { unshare -m bash -c 'umount /sys/kernel/debug/tracing /sys/kernel/tracing 2>/dev/null
    [ "$(stat -f -c %T /sys/kernel/tracing)" != tracefs ] || { echo "still mounted"; exit 99; }
    "$@"' _ "$@"; }
if [ "$(id -u)" -ne 0 ] || ! unshare -m true 2>/dev/null; then
    skip fresh_tracefs "needs root and unshare -m for a private mount namespace"
elif ! grep -qw tracefs /proc/filesystems; then
    skip fresh_tracefs "this kernel has no tracefs"
else
    build_workload stat_fib stat_fib -O0 -g
    fresh "$PROSPECT" stat -s --csv -o "$TEST_TMP/fresh.csv" -r fib "$WL/stat_fib" \
        >"$TEST_TMP/fresh.out" 2>"$TEST_TMP/fresh.err"; rc=$?
    check fresh_region_status [ "$rc" -eq 0 ]
    check fresh_region_counts [ "$(csv_get "$TEST_TMP/fresh.csv" fib calls)" = 3946 ]
    check fresh_region_program_output [ "$(cat "$TEST_TMP/fresh.out")" = "610 610" ]
    fresh bash -c '"$1" run -e sched:sched_switch -o /dev/null -- true &&
        [ "$(stat -f -c %T /sys/kernel/tracing)" = tracefs ]' _ "$PROSPECT" 2>"$TEST_TMP/fresh.err"
    check fresh_tracepoint_event_mounts [ $? -eq 0 ]
    fresh "$PROSPECT" list tracepoint >"$TEST_TMP/fresh.list" 2>&1
    check fresh_list_tracepoints grep -q '^  sched:sched_switch ' "$TEST_TMP/fresh.list"
    # Someone else's files under the mount point: Prospect never mounts over them.
    fresh bash -c 'mount -t tmpfs none /sys/kernel/tracing && touch /sys/kernel/tracing/keep &&
        "$1" run -e sched:sched_switch -o /dev/null -- true; echo "rc=$?";
        ls /sys/kernel/tracing' _ "$PROSPECT" >"$TEST_TMP/fresh.busy" 2>&1
    check fresh_never_mounts_over_files grep -qx keep "$TEST_TMP/fresh.busy"
    check fresh_busy_mount_point_says_what_to_run grep -q "as root run 'mount -t tracefs" "$TEST_TMP/fresh.busy"
fi

# The symbol fuzzer builds (libdw too) and runs its DWARF paths.
if command -v clang >/dev/null; then
    bash "$root/tests/fuzz/fuzz-symbols.sh" 2 >"$TEST_TMP/fuzz.txt" 2>&1
    check fuzz_symbols_builds_and_runs grep -q "^Done [0-9]* runs" "$TEST_TMP/fuzz.txt"
else
    skip fuzz_symbols_builds_and_runs "clang is not installed"
fi
