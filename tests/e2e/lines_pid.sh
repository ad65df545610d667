#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# prospect lines -p with the in-process counters (docs/lines.md, "-p PID"): a process whose
# main thread waits in a read(2) its own code makes (that function keeps uprobes), another
# thread in libc's read(2), a child it forks during the window and a thread looping in a copy
# when Prospect leaves. The window is exact (commands on a pipe, each answered): every line's
# count equals the uprobe engine's over the same commands; after the detach the code in the
# process and in its child is the file's byte for byte (/proc/PID/mem against the ELF), the
# looping thread no longer counts (the counters read through /proc/PID/mem do not move while
# it turns 1000 more times), no read failed with EINTR, and the output and exit status are
# those of a run without Prospect.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/stat_lib.sh"
. "$(dirname "$0")/procmem_lib.sh"
if ! uprobes_ready; then
    skip lines_pid "no writable tracefs uprobe_events (the uprobe engine is the reference)"
    exit 0
fi
SRC=$(cd "$(dirname "$0")/../workloads" && pwd)
W=$WL
TEST_TMP=$(mktemp -d "$TEST_TMP/lines_pid.XXXXXX")
export TMPDIR=$TEST_TMP/tmpdir
mkdir -p "$TMPDIR"
build_workload lines_pid lines_pid -O0 -g -pthread || { fail build lines_pid; exit 0; }
EXE=$W/lines_pid
line_of() { grep -n "/\* L:$1 \*/" "$SRC/lines_pid.c" | cut -d: -f1; }

# start OUT: the target on a FIFO it reads commands from (fd 9), its answers in OUT; sets A.
start() {
    OUT=$1
    rm -f "$TEST_TMP/fifo"
    mkfifo "$TEST_TMP/fifo"
    "$EXE" <"$TEST_TMP/fifo" >"$OUT" &
    A=$!
    exec 9>"$TEST_TMP/fifo"
    until_true 60 grep -qsx ready "$OUT"
}
# answered N RE: OUT has more than N lines, the last one matching RE.
answered() { [ "$(grep -c . "$OUT")" -gt "$1" ] && tail -n1 "$OUT" | grep -qx "$2"; }
# send CMD ANSWER: one command, then waits for its answer line (a regular expression).
send() {
    local n
    n=$(grep -c . "$OUT")
    printf %s "$1" >&9
    until_true 60 answered "$n" "$2"
}
# unmoved BEFORE PID: the counters were readable and have not changed.
unmoved() { [ -n "$1" ] && [ "$(counters "$2")" = "$1" ]; }
# counters PID: the bytes of the counter mapping Prospect left in the process.
counters() {
    local range s e
    range=$(awk '$6 ~ /\/counters$/ || ($6 ~ /\/counters/ && $7 == "(deleted)") { print $1 }' \
            "/proc/$1/maps" | head -n1)
    [ -n "$range" ] || return 1
    s=$((16#${range%-*})) e=$((16#${range#*-}))
    mem "$1" $s $((e - s)) | md5sum
}

# --- the reference: the same commands without Prospect --------------------------------------
start "$TEST_TMP/plain.out"
send r rounds && send c "child [0-9]*" && send s spinning && send p progress && send q done
exec 9>&-
wait $A
plain_status=$?
sed -i 's/^child [0-9]*$/child N/' "$TEST_TMP/plain.out"

# session NAME ENGINE...: lines -p over r, c, s (Ctrl-C after them: exit 0 with the counts, as
# for a process it did not start); checks what is left in
# the process and its child; then p and q.
session() {
    local name=$1 child st; shift
    start "$TEST_TMP/$name.out"
    attach_lines "$name" "$@" || return 1
    send r rounds && send c "child [0-9]*" && send s spinning
    child=$(sed -n 's/^child \([0-9]*\)$/\1/p' "$TEST_TMP/$name.out")
    detach_lines "$name"
    check "${name}_child_code_is_the_file_s" same_code "$child"
    if [ "$name" = inproc ]; then
        before=$(counters $A)
        send p progress
        check inproc_spinner_left_the_copy unmoved "$before" $A
    else
        send p progress
    fi
    send q done
    exec 9>&-
    wait $A
    st=$?
    sed -i 's/^child [0-9]*$/child N/' "$TEST_TMP/$name.out"
    check "${name}_exit_status_kept" [ "$st$plain_status" = 00 ]
    check "${name}_output_unchanged" cmp -s "$TEST_TMP/plain.out" "$TEST_TMP/$name.out"
}

session inproc
check inproc_used grep -q "^prospect lines: in-process: spin relocated" "$TEST_TMP/inproc.err"
check inproc_busy_function_keeps_uprobes grep -q \
    "^prospect lines: in-process: raw_read keeps uprobes: a thread was in it at the attach" \
    "$TEST_TMP/inproc.err"
check inproc_no_warning not grep -q "warning" "$TEST_TMP/inproc.err"
session uprobe --engine uprobe

# --- the counts: equal to the uprobe engine's on every line but the busy loops' ---------------
skip_lines=" $(line_of spin_while) $(line_of spin_add) $(line_of wait_spun)"
skip_lines="$skip_lines $(line_of wait_progress) "
strip() { awk -F, -v s="$skip_lines" 'NR > 1 && index(s, " " $2 " ") == 0' "$1"; }
strip "$TEST_TMP/inproc.csv" >"$TEST_TMP/inproc.cmp"
strip "$TEST_TMP/uprobe.csv" >"$TEST_TMP/uprobe.cmp"
check inproc_equals_uprobe_engine cmp -s "$TEST_TMP/inproc.cmp" "$TEST_TMP/uprobe.cmp"
diff "$TEST_TMP/inproc.cmp" "$TEST_TMP/uprobe.cmp" | head -n 10
count() { awk -F, -v l="$2" 'NR > 1 && $2 == l { print $3 }' "$1"; }
check inproc_rounds_1000 [ "$(count "$TEST_TMP/inproc.csv" "$(line_of rounds_body)")" = 1000 ]
check inproc_spinner_counted [ "$(count "$TEST_TMP/inproc.csv" "$(line_of spin_add)")" -gt 0 ]
check inproc_no_files_left [ -z "$(ls -A "$TMPDIR")" ]
