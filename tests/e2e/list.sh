#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# prospect list: only events that really open here.
. "$(dirname "$0")/lib.sh"
out=$TEST_TMP/list_out
"$PROSPECT" list software >"$out" 2>&1
check list_software_exit_0 [ $? = 0 ]
check list_software_task_clock grep -q '^  task-clock ' "$out"
check list_software_page_faults grep -q '^  page-faults ' "$out"
"$PROSPECT" list hardware >"$out" 2>&1
if grep -q '^  cycles ' "$out"; then
    pass list_hardware_lists_what_opens
else
    check list_hardware_explains_none grep -q "exposes no hardware" "$out"
fi
"$PROSPECT" list tracepoint >"$out" 2>&1
# As root Prospect mounts tracefs when a fresh machine has not: the list must be there.
if [ "$(id -u)" -eq 0 ] && grep -qw tracefs /proc/filesystems; then
    check list_tracepoint_sched_switch grep -q '^  sched:sched_switch ' "$out"
elif [ -d /sys/kernel/tracing/events/sched ]; then
    check list_tracepoint_sched_switch grep -q '^  sched:sched_switch ' "$out"
else
    skip list_tracepoint_sched_switch "not root and no readable tracefs here"
fi
"$PROSPECT" list pmu >"$out" 2>&1
check list_pmu_software grep -Eq '^  software +type 1$' "$out"
"$PROSPECT" list --bogus >/dev/null 2>&1
check list_bad_option_usage_2 [ $? = 2 ]
