#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# prospect lines -p on a process whose main thread is inside a signal handler at the attach
# (docs/lines.md, "-p PID"), on its stack and on a sigaltstack: the pc the handler
# interrupted lies in busy()'s loop, only in the signal frame; busy() keeps uprobes (-v says
# so); after the handler returns and Prospect leaves, the code in the process is the file's
# byte for byte (/proc/PID/mem against the ELF), and the output and exit status are those of
# a run without Prospect. Bytes on a pipe release the handler and the end; no sleeps.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/stat_lib.sh"
. "$(dirname "$0")/procmem_lib.sh"
if ! uprobes_ready; then
    skip lines_pid_sig "no writable tracefs uprobe_events (busy() keeps uprobes)"
    exit 0
fi
TEST_TMP=$(mktemp -d "$TEST_TMP/lines_pid_sig.XXXXXX")
export TMPDIR=$TEST_TMP/tmpdir
mkdir -p "$TMPDIR"
build_workload lines_pid_sig lines_pid_sig -O0 -g -pthread || { fail build lines_pid_sig; exit 0; }
EXE=$WL/lines_pid_sig
# start OUT ARGS...: the target reading a FIFO (fd 9), its output in OUT, in its handler; sets A.
start() {
    OUT=$1; shift
    rm -f "$TEST_TMP/fifo"
    mkfifo "$TEST_TMP/fifo"
    "$EXE" "$@" <"$TEST_TMP/fifo" >"$OUT" &
    A=$!
    exec 9>"$TEST_TMP/fifo"
    until_true 60 grep -qsx handler "$OUT"
}
# finish: the byte that ends the target; its status in ST.
finish() {
    printf q >&9
    exec 9>&-
    wait $A
    ST=$?
}

# session NAME ARGS...: the run without Prospect, then lines -p attached while the target
# waits in its handler, Ctrl-C once the handler returned and busy() ended.
session() {
    local name=$1 plain; shift
    start "$TEST_TMP/$name.plain" "$@" && printf r >&9
    finish
    plain=$ST
    start "$TEST_TMP/$name.out" "$@"
    attach_lines "$name" || return 1
    printf r >&9
    until_true 60 grep -qsx spun "$TEST_TMP/$name.out"
    detach_lines "$name"
    finish
    check "${name}_exit_status_kept" [ "$ST$plain" = 77 ]
    check "${name}_output_unchanged" cmp -s "$TEST_TMP/$name.plain" "$TEST_TMP/$name.out"
    check "${name}_interrupted_function_keeps_uprobes" grep -q "^prospect lines: in-process: \
busy keeps uprobes: a thread's stack points into it" "$TEST_TMP/$name.err"
    check "${name}_no_warning" not grep -q "warning" "$TEST_TMP/$name.err"
}

session sig_stack
session sig_altstack alt
check lines_pid_sig_no_files_left [ -z "$(ls -A "$TMPDIR")" ]
