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
