#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# prospect trace and the traced process's safety (issue 19): a killed prospect costs the target
# nothing and leaves nothing the next run does not reclaim; a second -p on the same process;
# -e libc:dlsym with the built-in functions; Ctrl-C ends a -p --uprobes trace.
. "$(dirname "$0")/lib.sh"
build_workload trace_alloc trace_alloc -O1 -pthread || { fail build trace_alloc; exit 0; }
T=$WL/trace_alloc
export TMPDIR=$TEST_TMP/tmp     # the interposer's private directories go here
mkdir -p "$TMPDIR"
not() { ! "$@"; }
# got_owner PID FUNC: which mapping the program's GOT entry of FUNC points into (libc,
# interposer or other), read from /proc/PID/mem (as in trace.sh).
got_owner() {
    local off base addr val exe
    exe=$(readlink "/proc/$1/exe")
    off=$(readelf -rW "$exe" | awk -v f="$2" '$5 ~ ("^" f "@") { print $1; exit }')
    base=$(awk -v exe="$exe" '$6 == exe { split($1, a, "-"); print a[1]; exit }' /proc/$1/maps)
    # A non-PIE program's relocation offsets are addresses already.
    readelf -hW "$exe" | grep -q 'Type: *EXEC' && base=0
    [ -n "$off" ] && [ -n "$base" ] || { echo none; return; }
    addr=$((0x$base + 0x$off))
    val=$(dd if=/proc/$1/mem bs=8 count=1 iflag=skip_bytes skip=$addr 2>/dev/null | od -An -tx8 | tr -d ' \n')
    awk -v v="$val" '
        function hex(s,   i, n, c) { n = 0; for (i = 1; i <= length(s); i++) { c = index("0123456789abcdef", substr(s, i, 1)) - 1; n = n * 16 + c } return n }
        { split($1, a, "-"); if (hex(v) >= hex(a[1]) && hex(v) < hex(a[2])) {
              print ($6 ~ /calltrace_preload/) ? "interposer" : ($6 ~ /libc/) ? "libc" : "other"; found = 1; exit } }
        END { if (!found) print "none" }' /proc/$1/maps
}

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

# -e libc:dlsym with built-in functions: the interposer's own lookups (dlsym(RTLD_NEXT) gives
# NULL under the return probe) neither turn tracing off nor show as the program's calls.
if [ -w /sys/kernel/tracing/uprobe_events ] || [ -w /sys/kernel/debug/tracing/uprobe_events ]; then
    d=$TEST_TMP/dlsym
    mkdir -p "$d"
    "$PROSPECT" trace -e libc:dlsym -e malloc+free -o "$d/calls.txt" -- "$T" dlsym >"$d/out" 2>"$d/err"
    check dlsym_exit_0 [ $? = 0 ]
    check dlsym_stdout [ "$(cat "$d/out")" = dlsym ]
    check dlsym_program_calls [ "$(grep -cE '^[0-9]+ trace_alloc->dlsym\(0, ' "$d/calls.txt")" = 5 ]
    check dlsym_malloc_traced [ "$(grep -cF 'trace_alloc->malloc(150) ' "$d/calls.txt")" = 5 ]
    check dlsym_free_traced [ "$(grep -cF 'trace_alloc->free(0x' "$d/calls.txt")" = 5 ]
    check dlsym_no_interposer_calls not grep -q 'calltrace_preload' "$d/calls.txt"
else
    skip dlsym "no writable tracefs uprobe_events (-e libc:dlsym needs uprobes)"
fi

# Debian's python3.11 (non-PIE, takes free's address: it died of SIGSEGV at its first free)
# reading a FIFO under trace -p: its 1000 bytearray(200000) allocations exactly, as --uprobes
# counts them; its output and exit status unchanged.
py_attach() {   # py_attach NAME [--uprobes]: "<target status> <trace status> <count> <output>"
    local d=$TEST_TMP/py_$1 line l bye; shift
    mkdir -p "$d" && mkfifo "$d/in" "$d/out" "$d/err"
    /usr/bin/python3.11 -c '
import sys
print("ready", flush=True)
for line in sys.stdin:
    if line.startswith("go"):
        for i in range(1000):
            x = bytearray(200000)
        print("done", flush=True)
print("bye", flush=True)' <"$d/in" >"$d/out" & local tp=$!
    exec 7>"$d/in" 8<"$d/out"
    read -r l <&8
    "$PROSPECT" trace "$@" -p "$tp" -e malloc+free -o "$d/calls.txt" 2>"$d/err" & local pp=$!
    exec 9<"$d/err"
    while read -r line <&9; do [ "$line" = "prospect trace: attached" ] && break; done
    echo go >&7; read -r l <&8
    kill -INT "$pp" 2>/dev/null; wait "$pp"; local rp=$?
    exec 7>&- 9<&-; read -r bye <&8; exec 8<&-
    wait "$tp"; local rt=$?
    echo "$rt $rp $(grep -cE -- '->malloc\(2000[0-9][0-9]\) ' "$d/calls.txt") $l/$bye"
}
if [ ! -x /usr/bin/python3.11 ]; then
    skip python_attach "no /usr/bin/python3.11 (scripts/install-deps installs python3.11-minimal)"
elif ! { [ "$(cat /proc/sys/kernel/yama/ptrace_scope 2>/dev/null || echo 0)" -le 1 ] ||
         [ "$(id -u)" = 0 ]; }; then
    skip python_attach "ptrace is not allowed here (kernel.yama.ptrace_scope)"
else
    check python_attach_got [ "$(py_attach got)" = "0 0 1000 done/bye" ]
    if [ -w /sys/kernel/tracing/uprobe_events ]; then
        check python_attach_uprobes_agree [ "$(py_attach uprobes --uprobes)" = "0 0 1000 done/bye" ]
    else
        skip python_attach_uprobes_agree "no writable tracefs uprobe_events"
    fi
fi

# A second -p on the same process: the first one's interposer stays loaded (a second copy
# could not load: its thread-local data needs the static TLS room the first took), and takes
# the new trace: through the GOT again, exact, restored after. While one -p is on, another is
# told why it uses uprobes, and both count exactly.
if { [ "$(cat /proc/sys/kernel/yama/ptrace_scope 2>/dev/null || echo 0)" -le 1 ] ||
     [ "$(id -u)" = 0 ]; } && [ -w /sys/kernel/tracing/uprobe_events ]; then
    d=$TEST_TMP/second
    mkdir -p "$d" && mkfifo "$d/in" "$d/out" "$d/err1" "$d/err2" "$d/err3"
    "$T" attach <"$d/in" >"$d/out" & tpid=$!
    exec 7>"$d/in" 8<"$d/out"
    read -r ready pid <&8
    echo "go 10" >&7; read -r did <&8     # malloc's GOT entry bound (to libc) before the attach
    # attach_said K: starts trace -p number K; its stderr lines before "attached" in $said.
    attach_said() {
        "$PROSPECT" trace -p "$tpid" -e malloc+free -o "$d/calls$1.txt" 2>"$d/err$1" & ppid=$!
        exec 9<"$d/err$1"
        said=""
        while read -r line <&9; do
            [ "$line" = "prospect trace: attached" ] && break
            said="$said$line"
        done
    }
    for k in 1 2; do
        attach_said $k
        check "second_p_run${k}_no_fallback" [ -z "$said" ]
        check "second_p_run${k}_patched" [ "$(got_owner "$tpid" malloc)" = interposer ]
        echo "go 100" >&7; read -r did <&8
        kill -INT "$ppid"; wait "$ppid"
        check "second_p_run${k}_exit_0" [ $? = 0 ]
        exec 9<&-
        check "second_p_run${k}_exact" [ "$(grep -cF 'trace_alloc->malloc(144) ' "$d/calls$k.txt")" = 100 ]
        check "second_p_run${k}_only_its_calls" [ "$(wc -l <"$d/calls$k.txt")" = 200 ]
        check "second_p_run${k}_restored" [ "$(got_owner "$tpid" malloc)" = libc ]
    done
    attach_said 1; p1=$ppid; exec 6<&9 9<&-
    attach_said 3; p3=$ppid
    check second_p_busy_reason [ "$said" = "prospect trace: process $tpid is being traced by another trace -p; using uprobes" ]
    echo "go 100" >&7; read -r did <&8
    kill -INT "$p1" "$p3"; wait "$p1" "$p3"; exec 6<&- 9<&-
    check second_p_busy_first_exact [ "$(grep -cF 'trace_alloc->malloc(144) ' "$d/calls1.txt")" = 100 ]
    # (its probes see the calls made through the first one's wrappers: callers named so)
    check second_p_busy_second_exact [ "$(grep -cF -- '->malloc(144) ' "$d/calls3.txt")" = 100 ]
    exec 7>&-; wait "$tpid"
    check second_p_target_exit_0 [ $? = 0 ]
    exec 8<&-
else
    skip second_p "needs ptrace and a writable tracefs uprobe_events"
fi

# An exec that drops the interposer (LD_PRELOAD removed or replaced): the calls of the image it
# runs are not traced, and trace names the process and program. One that keeps it: no note.
d=$TEST_TMP/exec_drop
mkdir -p "$d"
note="^prospect trace: process [0-9]+ \\(trace_alloc\\) exec'd without LD_PRELOAD's interposer: not traced$"
"$PROSPECT" trace --summary -- env -u LD_PRELOAD "$T" one >"$d/out" 2>"$d/err"
check exec_unset_exit_0 [ $? = 0 ]
check exec_unset_stdout [ "$(cat "$d/out")" = one ]
check exec_unset_note grep -qE "$note" "$d/err"
jemalloc=$(ls /usr/lib/*/libjemalloc.so.2 2>/dev/null | head -1)
if [ -n "$jemalloc" ]; then
    "$PROSPECT" trace --summary -- env LD_PRELOAD="$jemalloc" "$T" one >"$d/out" 2>"$d/err"
    check exec_replaced_exit_0 [ $? = 0 ]
    check exec_replaced_note grep -qE "$note" "$d/err"
else
    skip exec_replaced "libjemalloc2 is not installed (scripts/install-deps installs it)"
fi
"$PROSPECT" trace -e malloc -o "$d/calls.txt" -- env "$T" one >"$d/out" 2>"$d/err"
check exec_kept_no_note not grep -q "exec'd without" "$d/err"
check exec_kept_traced grep -qF 'trace_alloc->malloc(' "$d/calls.txt"
# -f: a child of a shell drops it, its sibling keeps it: only the first is named.
"$PROSPECT" trace -f -e malloc -o "$d/calls.txt" -- sh -c "\"$T\" one; env -u LD_PRELOAD \"$T\" one" \
    >"$d/out" 2>"$d/err"
check exec_follow_one_note [ "$(grep -cE "$note" "$d/err")" = 1 ]

# Ctrl-C ends trace --uprobes (issue 19): three -p on three processes of the same program (the
# same libc functions probed three times at once), each exact, each ended by its SIGINT with
# status 0 (timeout's 124 or 137 if it hung), none leaving its probes in tracefs.
ints=/sys/kernel/tracing/uprobe_events
if [ -w "$ints" ]; then
    d=$TEST_TMP/int_p
    mkdir -p "$d"
    for k in 1 2 3; do
        mkfifo "$d/in$k" "$d/out$k" "$d/err$k"
        "$T" attach <"$d/in$k" >"$d/out$k" & tp[$k]=$!
        exec {wfd[$k]}>"$d/in$k" {rfd[$k]}<"$d/out$k"
        read -r ready pid <&${rfd[$k]}
        timeout --foreground -k 5 60 "$PROSPECT" trace --uprobes -p "${tp[$k]}" -e malloc+free \
            -o "$d/calls$k.txt" 2>"$d/err$k" & pp[$k]=$!
        exec {efd[$k]}<"$d/err$k"
    done
    for k in 1 2 3; do
        while read -r line <&${efd[$k]}; do [ "$line" = "prospect trace: attached" ] && break; done
        real[$k]=$(pgrep -P "${pp[$k]}")     # prospect itself, timeout's child
    done
    for k in 1 2 3; do echo "go 2000" >&${wfd[$k]}; done
    for k in 1 2 3; do read -r did <&${rfd[$k]}; done
    for k in 1 2 3; do
        kill -INT "${pp[$k]}"; wait "${pp[$k]}"
        check "sigint_uprobes_p${k}_status_0" [ $? = 0 ]
        check "sigint_uprobes_p${k}_exact" [ "$(grep -cF 'trace_alloc->malloc(144) ' "$d/calls$k.txt")" = 2000 ]
        rest=$(cat <&${efd[$k]})     # the stderr FIFO's lines after "attached"
        check "sigint_uprobes_p${k}_detached" [ "$rest" = "prospect trace: detached from ${tp[$k]}: 4000 calls" ]
        check "sigint_uprobes_p${k}_no_probes_left" not grep -qs "prospect_${real[$k]}/" "$ints"
    done
    # (each later process holds the earlier ones' FIFO ends: all closed, then the waits)
    for k in 1 2 3; do eval "exec ${wfd[$k]}>&- ${efd[$k]}<&-"; done
    for k in 3 2 1; do
        wait "${tp[$k]}"
        check "sigint_uprobes_p${k}_target_exit_0" [ $? = 0 ]
        eval "exec ${rfd[$k]}<&-"
    done
else
    skip sigint_uprobes_p "no writable tracefs uprobe_events"
fi

# A launched static program (traced with uprobes) that handles SIGINT and goes on: the first
# SIGINT is passed to it, the second ends the trace (it waited for the program for ever), with
# the calls so far, status 130, the probes removed and the program still running, unharmed.
S=$WL/trace_alloc_static
if [ -w "$ints" ] && { [ -x "$S" ] ||
    gcc -O1 -static -pthread -o "$S" "$(dirname "$0")/../workloads/trace_alloc.c" 2>/dev/null; }; then
    d=$TEST_TMP/int_static
    mkdir -p "$d" && mkfifo "$d/in" "$d/out"
    timeout --foreground -k 5 60 "$PROSPECT" trace -e malloc -o "$d/calls.txt" -- "$S" sigint \
        <"$d/in" >"$d/out" 2>"$d/err" & pp=$!
    exec 7>"$d/in" 8<"$d/out"
    read -r ready tpid <&8
    real=$(pgrep -P "$pp")
    echo "go 500" >&7; read -r did <&8
    kill -INT "$pp"; read -r got <&8
    check sigint_static_first_passed [ "$got" = sigint ]
    kill -INT "$pp"; wait "$pp"
    check sigint_static_second_status_130 [ $? = 130 ]
    check sigint_static_said grep -qx "prospect trace: stopped on the second signal; the command still runs (pid $tpid)" "$d/err"
    check sigint_static_calls [ "$(grep -cF 'trace_alloc_static->malloc(144) ' "$d/calls.txt")" = 500 ]
    check sigint_static_no_probes_left not grep -qs "prospect_$real/" "$ints"
    echo "go 100" >&7; read -r did <&8
    check sigint_static_program_goes_on [ "$did" = "did 100" ]
    exec 7>&- 8<&-
else
    skip sigint_static "no writable tracefs uprobe_events, or no static libc to build with"
fi
