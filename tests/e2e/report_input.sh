# SPDX-License-Identifier: MIT
# prospect report's inputs beyond a finished perf.data file (issue 9, sections 4 and 5): a FIFO
# never blocks, a recording killed with SIGKILL stays readable, perf's pipe-mode and
# zstd-compressed files are read and agree with perf report.
. "$(dirname "$0")/lib.sh"

d=$TEST_TMP/report_input
mkdir -p "$d"

# A FIFO given to -i: refused at once with one line, never a wait for a writer.
mkfifo "$d/fifo.data"
timeout 10 "$PROSPECT" report -i "$d/fifo.data" >"$d/fifo.out" 2>"$d/fifo.err"
r=$?
check fifo_does_not_hang [ $r -ne 124 ]
check fifo_refused_status [ $r -eq 1 ]
check fifo_refused_message grep -q "fifo.data: not a regular file" "$d/fifo.err"
check fifo_one_line [ "$(wc -l <"$d/fifo.err")" -eq 1 ]

# A recording killed with SIGKILL: what was written before is read to the end of the file, with
# a warning. The workload says when it has burned 300 ms of CPU (samples exist); the next
# write to the file after that (a round: they are flushed) holds some of them.
build_workload burn_tell burn_tell -O2 || { fail killed_record_workload "cannot build"; exit 0; }
mkfifo "$d/burn.fifo"
"$PROSPECT" record -o "$d/killed.data" -- "$WL/burn_tell" "$d/burn.fifo" 300 \
    >/dev/null 2>"$d/killed_rec.err" &
rec=$!
read -r wpid <"$d/burn.fifo"
size0=$(stat -c %s "$d/killed.data")
timeout 60 tail -c +$((size0 + 1)) -f "$d/killed.data" | head -c 1 >/dev/null
kill -9 "$rec"; wait "$rec" 2>/dev/null
kill "$wpid"
timeout 60 "$PROSPECT" report -i "$d/killed.data" >"$d/killed.out" 2>"$d/killed.err"
check killed_record_readable [ $? -eq 0 ]
check killed_record_warns grep -q "the recording did not finish" "$d/killed.err"
check killed_record_has_samples grep -qE "^ +[1-9][0-9]* +[0-9.]+% .* burn " "$d/killed.out"
# perf reads it too: the header's data size is brought up to date at every round (perf 6.1
# fails on a data-size-0 file, its own killed recordings included).
perf report -i "$d/killed.data" --stdio --sort sym >"$d/killed.perf" 2>"$d/killed.perf.err"
check killed_record_perf_reads_it grep -qE "^ +[0-9.]+% +\[\.\] burn$" "$d/killed.perf"
