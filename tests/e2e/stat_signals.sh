# SPDX-License-Identifier: MIT
# prospect stat with a command that survives Ctrl-C: the first SIGINT is passed on, the second
# ends the wait, prints the counts and leaves the command running (never a hang).
. "$(dirname "$0")/lib.sh"

build_workload stubborn stubborn -O1
fifo=$TEST_TMP/stat_stubborn.fifo
mkfifo "$fifo"
"$PROSPECT" stat -e task-clock -o "$TEST_TMP/stat_stubborn.txt" -- "$WL/stubborn" "$fifo" 2>"$TEST_TMP/stat_stubborn.err" &
ppid=$!
exec 7<"$fifo"
read -r _ <&7
kill -INT "$ppid"
read -r ack <&7
kill -INT "$ppid"
wait "$ppid"; rc=$?
exec 7<&-
spid=$(pgrep -f "$WL/stubborn $fifo")
check stat_second_sigint_forwarded [ "$ack" = got ]
check stat_second_sigint_status [ "$rc" -eq 130 ]
check stat_second_sigint_counts_printed grep -q "task-clock" "$TEST_TMP/stat_stubborn.txt"
check stat_second_sigint_says_left_running grep -q "counting interrupted by SIGINT twice; the command was left running" "$TEST_TMP/stat_stubborn.err"
[ -n "$spid" ] && kill -KILL $spid
