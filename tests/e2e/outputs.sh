#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Outputs (issue 9, files and privileges): -o never follows a symlink (the target is untouched),
# a failed run leaves the previous file intact, existing devices still work (-o /dev/null),
# and a write error ("No space left on device") is said and makes the exit status non-zero.
. "$(dirname "$0")/lib.sh"
D=$TEST_TMP/outputs
mkdir -p "$D"
echo "precious" >"$D/target"
err=$D/err

# A symlink planted at the output path: refused with a one-line message, target untouched.
for cmd in run stat record; do
    ln -sf "$D/target" "$D/link-$cmd"
    "$PROSPECT" $cmd -o "$D/link-$cmd" -- true >/dev/null 2>"$err"; rc=$?
    check ${cmd}_symlink_refused [ $rc -ne 0 ]
    check ${cmd}_symlink_message grep -q "cannot write $D/link-$cmd: it is a symbolic link" "$err"
    check ${cmd}_symlink_target_untouched [ "$(cat "$D/target")" = precious ]
    check ${cmd}_symlink_kept [ -L "$D/link-$cmd" ]
done
# A dangling symlink (the usual plant: it would create the file it points to).
ln -sf "$D/created-through-link" "$D/dangling"
"$PROSPECT" stat -o "$D/dangling" -- true >/dev/null 2>&1
check dangling_symlink_not_followed [ ! -e "$D/created-through-link" ]
# report has no -o: its output is a shell redirection; its input (-i) may be a symlink.

# A failed run leaves a previous output as it was (the new one is renamed over it only when
# complete), and no temporary file behind.
for cmd in run stat; do
    echo "previous $cmd" >"$D/prev-$cmd"
    "$PROSPECT" $cmd -o "$D/prev-$cmd" -- "$D/no-such-command" >/dev/null 2>&1
    check ${cmd}_failed_run_keeps_previous [ "$(cat "$D/prev-$cmd")" = "previous $cmd" ]
    "$PROSPECT" $cmd -o "$D/prev-$cmd" -- true >/dev/null 2>&1
    check ${cmd}_success_replaces_previous grep -q "prospect\|Counter\|true" "$D/prev-$cmd"
done
check no_temporary_files_left [ -z "$(ls -A "$D" | grep '^\.')" ]
"$PROSPECT" record -o "$D/prev.data" -- true >/dev/null 2>&1
cp "$D/prev.data" "$D/prev.copy"
"$PROSPECT" record -o "$D/prev.data" -- "$D/no-such-command" >/dev/null 2>&1
check record_failed_run_keeps_previous cmp -s "$D/prev.data" "$D/prev.copy"
"$PROSPECT" record -o "$D/prev.data" -- true >/dev/null 2>&1
check record_keeps_old cmp -s "$D/prev.data.old" "$D/prev.copy"

# Existing character devices and our own descriptors are written as they are.
"$PROSPECT" stat -o /dev/null -- true 2>/dev/null
check stat_dev_null [ $? = 0 ]
"$PROSPECT" run -o /dev/null -- true 2>/dev/null
check run_dev_null [ $? = 0 ]
"$PROSPECT" stat -o /dev/stdout -- true 2>/dev/null >"$D/via-stdout"
check stat_dev_stdout grep -q "Counter stats" "$D/via-stdout"
# -o - is standard output (perf's meaning), not a file named "-".
( cd "$D" && "$PROSPECT" stat -o - -- true 2>/dev/null >"$D/via-dash" )
check stat_dash_is_stdout [ -n "$(grep "Counter stats" "$D/via-dash")" -a ! -e "$D/-" ]
if build_workload split split -O2 && "$PROSPECT" record -g -o "$D/split.data" -- "$WL/split" >/dev/null 2>&1; then
    ( cd "$D" && "$PROSPECT" diff split.data split.data -o - 2>/dev/null >"$D/diff-dash" )
    check diff_dash_is_stdout [ -n "$(grep work_fifty "$D/diff-dash")" -a ! -e "$D/-" ]
    ( cd "$D" && "$PROSPECT" report -i split.data --format folded -o - 2>/dev/null >"$D/folded-dash" )
    check report_dash_is_stdout [ -n "$(grep ';work_fifty [0-9]*$' "$D/folded-dash")" -a ! -e "$D/-" ]
else
    fail report_dash_is_stdout "cannot build or record tests/workloads/split.c"
fi
# A device node is neither re-moded nor removed (record once did both: chmod 0600, unlink).
if mknod "$D/null" c 1 3 2>/dev/null && chmod 666 "$D/null"; then
    "$PROSPECT" record -o "$D/null" -- true >/dev/null 2>&1
    check record_device_mode_kept [ "$(stat -c %a "$D/null")" = 666 ]
    "$PROSPECT" record -o "$D/null" -- "$D/no-such-command" >/dev/null 2>&1
    check record_device_not_removed [ -c "$D/null" ]
else
    skip record_device_mode_kept "cannot create a device node here (needs root, no nodev)"
fi
# A FIFO nobody reads: an error, not a hang.
mkfifo "$D/fifo"
timeout 120 "$PROSPECT" stat -o "$D/fifo" -- true >/dev/null 2>"$err"; rc=$?   # a guard: it used to hang
check fifo_without_reader_refused [ $rc -ne 0 ]
check fifo_without_reader_message grep -q "a FIFO with no reader" "$err"
mkdir "$D/dir"
"$PROSPECT" stat -o "$D/dir" -- true >/dev/null 2>"$err"
check directory_refused grep -q "cannot write $D/dir: Is a directory" "$err"

# Write errors: the real errno, the file named, a non-zero status.
if [ -w /dev/full ]; then
    "$PROSPECT" stat -o /dev/full -- true >/dev/null 2>"$err"; rc=$?
    check stat_full_status [ $rc -ne 0 ]
    check stat_full_message grep -q "writing /dev/full: No space left on device" "$err"
    "$PROSPECT" run -o /dev/full -- true >/dev/null 2>"$err"; rc=$?
    check run_full_status [ $rc -ne 0 ]
    check run_full_message grep -q "writing /dev/full: No space left on device" "$err"
    "$PROSPECT" list >/dev/full 2>"$err"; rc=$?
    check list_full_status [ $rc -ne 0 ]
    check list_full_message grep -q "standard output: No space left on device" "$err"
    "$PROSPECT" report -i "$D/prev.data" >/dev/full 2>"$err"; rc=$?
    check report_full_status [ $rc -ne 0 ]
    check report_full_message grep -q "No space left on device" "$err"
    "$PROSPECT" record -o /dev/full -- true >/dev/null 2>"$err"; rc=$?
    check record_full_status [ $rc -ne 0 ]
    check record_full_message grep -q "No space left on device" "$err"
    "$PROSPECT" --help >/dev/full 2>/dev/null
    check help_full_status [ $? -ne 0 ]
else
    skip write_errors "/dev/full is not writable here"
fi
