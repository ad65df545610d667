#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# An attached process that exits while its parent never reaps it (a zombie: kill(pid, 0) still
# answers) ends the measurement as a process that is gone does: stat -p, trace -p and lines -p
# return with their results instead of waiting for ever.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/stat_lib.sh"
build_workload stat_loop stat_loop -O2 -g -lpthread || { fail zombie_build stat_loop; exit 0; }

# target NAME: a stat_loop whose parent (sh, then sleep) never reaps it; its pid in $zpid,
# the parent's in $zparent.
target() {
    local fifo=$TEST_TMP/zombie_$1
    mkfifo "$fifo"
    sh -c '"$1" >"$2" & exec sleep 600' sh "$WL/stat_loop" "$fifo" &
    zparent=$!
    read -r _ zpid <"$fifo"
}
# measure NAME LINE_RE CMD...: runs CMD (attached to $zpid) until its stderr has a line matching
# LINE_RE (it is measuring), then kills the target and waits for CMD: $rc, 124 if it hung.
measure() {
    local name=$1 re=$2 errf=$TEST_TMP/zombie_$1.err
    shift 2
    mkfifo "$errf.fifo"
    timeout 60 "$@" >"$TEST_TMP/zombie_$name.out" 2>"$errf.fifo" &
    local mpid=$!
    exec 3<"$errf.fifo"
    while IFS= read -r line <&3; do
        printf '%s\n' "$line" >>"$errf"
        grep -Eq "$re" <<<"$line" && break
    done
    kill -TERM "$zpid"
    cat <&3 >>"$errf"
    exec 3<&-
    wait "$mpid"
    rc=$?
    kill "$zparent"; wait "$zparent" 2>/dev/null
}

target stat
measure stat 'task-clock' "$PROSPECT" stat -I 100 -e task-clock -p "$zpid"
check zombie_stat_returns [ "$rc" = 0 ]
check zombie_stat_counted [ "$(grep -c 'task-clock' "$TEST_TMP/zombie_stat.err")" -ge 1 ]

target lines
measure lines 'counting process' "$PROSPECT" lines -p "$zpid"
check zombie_lines_returns [ "$rc" = 0 ]
check zombie_lines_counted grep -q '^Execution Summary' "$TEST_TMP/zombie_lines.err"   # lines reports on stderr

if uprobes_ready; then
    target trace
    measure trace 'tracing|Tracing|attached|probe' "$PROSPECT" trace -p "$zpid" -e malloc
    check zombie_trace_returns [ "$rc" != 124 ]
    check zombie_trace_no_crash [ "$rc" -lt 128 ]
else
    skip zombie_trace "no writable tracefs uprobe_events (trace -p needs it)"
fi
