# SPDX-License-Identifier: MIT
# Odd maps never kill annotate or report --sort srcline (issue 11: perf report --sort srcline
# died on a memfd map): code run from a memfd (a file no tool can open afterwards), a program
# deleted after its recording, and one replaced by a FIFO.
. "$(dirname "$0")/lib.sh"
unset DEBUGINFOD_URLS   # no network: files not found here stay not found

if ! command -v perf >/dev/null || ! perf record -q -o "$TEST_TMP/probe.data" -- true >/dev/null 2>&1; then
    skip annotate_odd_maps "perf is not installed or cannot record here"
    exit 0
fi
# perf record keeps copies of what ran in its build-id cache: the test's own.
export PERF_BUILDID_DIR=$TEST_TMP/bid-cache
build_workload annotate_memfd annotate_memfd -O2 || { fail annotate_odd_maps "cannot build"; exit 0; }
perf record -q -o "$TEST_TMP/mf.data" -- "$WL/annotate_memfd" 300 >/dev/null 2>&1 ||
    { fail annotate_odd_maps "perf record failed"; exit 0; }
out=$("$PROSPECT" annotate -i "$TEST_TMP/mf.data" 2>&1 >/dev/null); rc=$?
check annotate_memfd_exit_status [ $rc = 0 ]
check annotate_memfd_named grep -q "samples are in code without a function name, as in /memfd:spin (deleted)" <<<"$out"
"$PROSPECT" report -i "$TEST_TMP/mf.data" --sort srcline > "$TEST_TMP/mf.sl" 2>&1; rc=$?
check srcline_memfd_exit_status [ $rc = 0 ]
# The spin loop is nearly every sample: they are "??:0" (no line information), not lost.
check srcline_memfd_rows awk '$2 == "??:0" { sub("%", "", $1); f = ($1 >= 50) } END { exit !f }' "$TEST_TMP/mf.sl"

# JIT code (anonymous memory named by /tmp/perf-PID.map): named, and why it is not listed.
perf record -q -o "$TEST_TMP/jit.data" -- "$WL/annotate_memfd" 300 jit > "$TEST_TMP/jit.out" 2>/dev/null
map=$(head -1 "$TEST_TMP/jit.out")
out=$("$PROSPECT" annotate -i "$TEST_TMP/jit.data" spin_jit 2>&1); rc=$?
case "$map" in /tmp/perf-[0-9]*.map) rm -f "$map" ;; esac
# The reason follows on "# " lines when the line would pass 100 columns.
check annotate_jit_named grep -q "JIT code" \
    <<<"$(grep -A1 "^spin_jit  ([0-9]* samples\?, [^)]*): not annotated:" <<<"$out")"
check annotate_jit_fits_100_columns [ "$(awk '{ if (length($0) > m) m = length($0) } END { print m + 0 }' <<<"$out")" -le 100 ]
check annotate_jit_exit_status [ $rc = 0 ]

# A program deleted, then one replaced by a FIFO, after its recording.
build_workload annotate_div annotate_div -O2 -g || { fail annotate_odd_maps "cannot build"; exit 0; }
cp "$WL/annotate_div" "$TEST_TMP/gone"
perf record -q -o "$TEST_TMP/gone.data" -- "$TEST_TMP/gone" 5000000 >/dev/null 2>&1 ||
    { fail annotate_odd_maps "perf record failed"; exit 0; }
rm -f "$TEST_TMP/gone"
export PERF_BUILDID_DIR=$TEST_TMP/empty-cache
out=$(timeout 60 "$PROSPECT" annotate -i "$TEST_TMP/gone.data" divide 2>&1); rc=$?
check annotate_deleted_says_why [ $rc = 1 ]
check annotate_deleted_names_file grep -q "as in $TEST_TMP/gone (file not found)" <<<"$out"
timeout 60 "$PROSPECT" report -i "$TEST_TMP/gone.data" --sort srcline >/dev/null 2>&1
check srcline_deleted_exit_status [ $? = 0 ]
mkfifo "$TEST_TMP/gone"
timeout 60 "$PROSPECT" annotate -i "$TEST_TMP/gone.data" divide >/dev/null 2>&1
check annotate_fifo_no_hang [ $? = 1 ]
timeout 60 "$PROSPECT" report -i "$TEST_TMP/gone.data" --sort srcline >/dev/null 2>&1
check srcline_fifo_no_hang [ $? = 0 ]
