#!/usr/bin/env bash
# prospect trace and the traced process's safety (issue 19): a killed prospect costs the target
# nothing and leaves nothing the next run does not reclaim; a second -p on the same process;
# -e libc:dlsym with the built-in functions; Ctrl-C ends a -p --uprobes trace.
. "$(dirname "$0")/lib.sh"
build_workload trace_alloc trace_alloc -O1 -pthread || { fail build trace_alloc; exit 0; }
T=$WL/trace_alloc
export TMPDIR=$TEST_TMP/tmp     # the interposer's private directories go here
mkdir -p "$TMPDIR"
not() { ! "$@"; }

# kill -9 of a launched trace: the target goes on through more calls than its ring holds (which
# waited 10 s per thread for the dead prospect before), answers and exits 0. `sh` reports the
# status (-f: its child, the target, is traced), as the target is no longer our child's child
# once prospect is gone.
d=$TEST_TMP/kill_launch
mkdir -p "$d" && mkfifo "$d/in" "$d/out"
"$PROSPECT" trace -f -e malloc+free -o "$d/calls.txt" -- sh -c "\"$T\" attach; echo exit \$?" \
    <"$d/in" >"$d/out" 2>"$d/err" & ppid=$!
exec 7>"$d/in" 8<"$d/out"
read -r ready tpid <&8
echo "go 1000" >&7; read -r did <&8
check kill9_launched_traced_before [ "$did" = "did 1000" ]
kill -9 "$ppid"; wait "$ppid" 2>/dev/null
echo "go 300000" >&7; read -r did <&8
check kill9_launched_target_worked [ "$did" = "did 300000" ]
exec 7>&-; read -r ex <&8; exec 8<&-
check kill9_launched_target_exit_0 [ "$ex" = "exit 0" ]

# kill -9 of trace -p: the interposer sees the socket's end and writes the GOT back; the
# private directory (library, attach.conf, socket) is removed by the next prospect run.
if [ "$(cat /proc/sys/kernel/yama/ptrace_scope 2>/dev/null || echo 0)" -le 1 ] || [ "$(id -u)" = 0 ]; then
    d=$TEST_TMP/kill_attach
    mkdir -p "$d" && mkfifo "$d/in" "$d/out" "$d/err"
    "$T" attach <"$d/in" >"$d/out" & tpid=$!
    exec 7>"$d/in" 8<"$d/out"
    read -r ready pid <&8
    "$PROSPECT" trace -p "$tpid" -e malloc+free -o "$d/calls.txt" 2>"$d/err" & ppid=$!
    exec 9<"$d/err"
    read -r line <&9
    check kill9_attach_attached [ "$line" = "prospect trace: attached" ]
    echo "go 1000" >&7; read -r did <&8
    kill -9 "$ppid"; wait "$ppid" 2>/dev/null; exec 9<&-
    echo "go 300000" >&7; read -r did <&8
    check kill9_attach_target_worked [ "$did" = "did 300000" ]
    check kill9_attach_dir_left [ -n "$(ls -A "$TMPDIR")" ]
    # Any run that makes a private directory reclaims those of dead prospects.
    "$PROSPECT" trace -e malloc -o /dev/null -- "$T" none >/dev/null 2>&1
    check kill9_attach_dir_reclaimed [ -z "$(ls -A "$TMPDIR")" ]
    exec 7>&-; wait "$tpid"
    check kill9_attach_target_exit_0 [ $? = 0 ]
    exec 8<&-
else
    skip kill9_attach "ptrace is not allowed here (kernel.yama.ptrace_scope)"
fi
