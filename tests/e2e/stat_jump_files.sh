#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# The jump-entry files are private (issue 9): the hook's directory is 0700 and its files 0600, so
# another user can neither read the plan nor write to the log; Prospect reads the log only if it
# is still a private regular file of its own, and says so when lines do not parse. The cleanup of
# stale directories removes only real 0700 directories of our own, never through a symlink.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/stat_lib.sh"
if ! uprobes_ready; then
    skip stat_jump_files "no writable tracefs uprobe_events (region tracing needs it)"
    exit 0
fi
build_workload jf_waiter waiter -O1 || { fail build jf_waiter; exit 0; }
# A sticky world-writable TMPDIR like /tmp (TEST_TMP itself is private), ours to remove.
export TMPDIR=$(mktemp -d /tmp/prospect-jf.XXXXXX)
chmod 1777 "$TMPDIR"
trap 'rm -rf "$TMPDIR"' EXIT
err=$TEST_TMP/jf.err
fifo=$TEST_TMP/jf.fifo
mkfifo "$fifo"
isroot=false
[ "$(id -u)" = 0 ] && command -v setpriv >/dev/null && isroot=true

# Stale directories of a dead prospect: a symlink to someone's directory, one not 0700, one of
# another user, and a genuine one.
dead=$(sh -c 'echo $$')
victim=$TEST_TMP/jf_victim
mkdir -p "$victim" && : >"$victim/plan" && : >"$victim/log"
ln -s "$victim" "$TMPDIR/prospect-jump-$dead-Sym123"
mkdir -m 755 "$TMPDIR/prospect-jump-$dead-Pub123" && : >"$TMPDIR/prospect-jump-$dead-Pub123/plan"
mkdir -m 700 "$TMPDIR/prospect-jump-$dead-Own123" && : >"$TMPDIR/prospect-jump-$dead-Own123/plan"
if $isroot; then
    mkdir -m 700 "$TMPDIR/prospect-jump-$dead-Oth123"
    chown 65534 "$TMPDIR/prospect-jump-$dead-Oth123"
fi

# run_waiting ACTION: stat -r main of a program waiting for a signal; ACTION runs with $jd the
# hook's directory while the command runs; then SIGTERM, passed on (SIGINT would not do: a
# background job ignores it). stderr in $err.
run_waiting() {
    "$PROSPECT" stat -v -r main -o "$TEST_TMP/jf.out" -- "$WL/jf_waiter" "$fifo" 2>"$err" &
    local ppid=$!
    exec 7<"$fifo"
    read -r _ <&7
    jd=$(ls -d "$TMPDIR"/prospect-jump-$ppid-* 2>/dev/null | head -1)
    "$@"
    kill -TERM "$ppid"
    wait "$ppid"
    exec 7<&-
}

while_running() {
    check jump_dir_exists [ -d "$jd" ]
    check jump_dir_private [ "$(stat -c %a "$jd")" = 700 ]
    check jump_log_private [ "$(stat -c %a "$jd/log")" = 600 ]
    check jump_plan_private [ "$(stat -c %a "$jd/plan")" = 600 ]
    check jump_trampoline_private [ "$(stat -c %a "$jd/trampoline")" = 600 ]
    if $isroot; then
        setpriv --reuid=65534 --regid=65534 --clear-groups \
            sh -c "echo '$$ fail - injected by another user' >>'$jd/log'" 2>/dev/null
        check other_user_cannot_write_log [ -z "$(grep injected "$jd/log")" ]
    fi
    echo "not a log line" >>"$jd/log"
}
run_waiting while_running
check jump_entry_used grep -q "main: jump entry" "$err"
# With -o the notes go with the results, into jf.out.
check malformed_log_line_reported grep -q "entry hook's log .*: 1 malformed line(s) ignored (first: line 2)" "$err" "$TEST_TMP/jf.out"
check no_injected_failure [ -z "$(grep injected "$err")" ]
check jump_dir_removed [ -z "$(ls -d "$TMPDIR"/prospect-jump-*-??????  2>/dev/null | grep -v "$dead")" ]
check stale_symlink_not_followed test -e "$victim/plan" -a -e "$victim/log"
check stale_symlink_left [ -L "$TMPDIR/prospect-jump-$dead-Sym123" ]
check stale_non_private_left [ -e "$TMPDIR/prospect-jump-$dead-Pub123/plan" ]
check stale_own_removed [ ! -e "$TMPDIR/prospect-jump-$dead-Own123" ]
if $isroot; then
    check stale_other_user_left [ -d "$TMPDIR/prospect-jump-$dead-Oth123" ]
else
    skip stale_other_user_left "needs root and setpriv to own a directory as another user"
fi

# A log that someone else could have written (mode changed) is not trusted, and that is said.
loosen() { chmod 666 "$jd/log"; echo "$$ fail - forged" >>"$jd/log"; }
run_waiting loosen
check loose_log_not_trusted grep -q "entry hook's log .*: it is not a private regular file of ours" "$err" "$TEST_TMP/jf.out"
check loose_log_not_used [ -z "$(grep forged "$err")" ]
