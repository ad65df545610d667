#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# prospect list GLOB...: only the matching events, each with a description, within 100 columns.
. "$(dirname "$0")/lib.sh"
out=$TEST_TMP/list_glob_out
"$PROSPECT" list 'page*' >"$out" 2>&1
check list_glob_exit_0 [ $? = 0 ]
check list_glob_page_faults grep -Eq '^  page-faults +page faults \(minor and major\)$' "$out"
check list_glob_only_matches bash -c "! grep -q 'task-clock' '$out'"
check list_glob_no_empty_kinds bash -c "! grep -q '^cache events' '$out'"
"$PROSPECT" list fault >"$out" 2>&1
check list_word_is_substring grep -Eq "^  minor-faults +page faults served" "$out"
"$PROSPECT" list software >"$out" 2>&1
check list_describes_software grep -Eq '^  task-clock +CPU time of the task' "$out"
"$PROSPECT" list cache 'L1-dcache-load*' >"$out" 2>&1
check list_kind_and_glob grep -q 'none of the 2 cache events opens here\|^  L1-dcache-load-misses +L1 data cache: load misses' "$out"
if [ -r /sys/kernel/tracing/events/sched/sched_switch/format ]; then
    "$PROSPECT" list 'sched:*' >"$out" 2>&1
    check list_glob_tracepoints grep -Eq '^  sched:sched_switch +tracepoint: prev_comm prev_pid' "$out"
    check list_glob_tracepoints_only bash -c "! grep -E '^  ' '$out' | grep -vq '^  sched:'"
else
    skip list_glob_tracepoints "tracefs events are not readable here"
    skip list_glob_tracepoints_only "tracefs events are not readable here"
fi
"$PROSPECT" list >"$out" 2>&1
check list_fits_100_columns bash -c "! awk 'length > 100' '$out' | grep -q ."
"$PROSPECT" list 'no-such-event*' >"$out" 2>&1; rc=$?
check list_glob_no_match_status [ "$rc" = 1 ]
check list_glob_no_match_message grep -q "no event matches 'no-such-event\*'" "$out"
