#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# prospect trace -n (ltrace's --indent): a library call made inside another traced call of its
# thread (malloc inside strdup, inside fopen) is indented N spaces a level, whichever engine
# traced it (the interposer, uprobes for a static program, -p through the GOT or by uprobes);
# csv and json get its depth; the program's own calls stay in the order ltrace shows them.
. "$(dirname "$0")/lib.sh"
build_workload trace_nest trace_nest -O1 -fno-builtin -Wl,-z,lazy || { fail build trace_nest; exit 0; }
T=$WL/trace_nest
D=$TEST_TMP/nest; mkdir -p "$D"
export TMPDIR=$D
ROUNDS=50

# strdup's malloc: the interposer sees both (libc calls malloc through its PLT).
"$PROSPECT" trace -n 2 -e malloc+strdup+strlen+free -o "$D/n.txt" -- "$T" /etc/passwd $ROUNDS \
    >"$D/out" 2>"$D/err"
check nest_exit_and_stdout [ $? = 0 ] && [ "$(cat "$D/out")" = 6 ]
# after_strdup FILE: the line after each of the program's strdup calls, without the tid.
after_strdup() { awk 'f { sub(/^[0-9]+/, ""); print; f = 0 } /trace_nest->strdup\("nested"\)/ { f = 1 }' "$1"; }
check nest_strdup_malloc_indented [ "$(after_strdup "$D/n.txt" | grep -cE '^   libc\.so\.6->malloc\(7\) +=')" = $ROUNDS ]
check nest_top_level_flat [ "$(grep -cE '^[0-9]+ trace_nest->(strdup|strlen|free)\(' "$D/n.txt")" = $((3 * ROUNDS)) ]
# -n 4: two levels would be 8; one level is 4.
"$PROSPECT" trace -n 4 -e malloc+strdup -o "$D/n4.txt" -- "$T" /etc/passwd 3 >/dev/null 2>&1
check nest_n4_spaces [ "$(after_strdup "$D/n4.txt" | grep -cE '^     libc\.so\.6->malloc\(7\) ')" = 3 ]
# Without -n nothing is indented (ltrace's default).
"$PROSPECT" trace -e malloc+strdup -o "$D/flat.txt" -- "$T" /etc/passwd 3 >/dev/null 2>&1
check nest_default_flat not grep -qE '^[0-9]+  ' "$D/flat.txt"
"$PROSPECT" trace -n x -- true >/dev/null 2>"$D/bad"
check nest_bad_value_usage [ $? = 2 ] && grep -q -- "-n needs a number" "$D/bad"

# fopen by uprobes (no interposer wrapper), its malloc by the interposer: nested all the same.
if [ -w /sys/kernel/tracing/uprobe_events ] || [ -w /sys/kernel/debug/tracing/uprobe_events ]; then
    "$PROSPECT" trace -n 2 -e malloc -e libc:fopen -o "$D/f.txt" -- "$T" /etc/passwd $ROUNDS \
        >/dev/null 2>"$D/ferr"
    after_fopen() { awk 'f { sub(/^[0-9]+/, ""); print; f = 0 } /trace_nest->fopen\(/ { f = 1 }' "$1"; }
    check nest_fopen_malloc_indented [ "$(after_fopen "$D/f.txt" | grep -cE '^   libc\.so\.6->malloc\([0-9]+\) ')" = $ROUNDS ]
else
    skip nest_fopen_malloc_indented "no writable tracefs uprobe_events (-e libc:fopen needs it)"
fi

# ltrace -n 2 on the same program: its lines (the program's own calls) in the same order.
if command -v ltrace >/dev/null; then
    ltrace -n 2 -e malloc+strdup+strlen+free -o "$D/l.txt" "$T" /etc/passwd 5 >/dev/null 2>&1
    "$PROSPECT" trace -n 2 -e malloc+strdup+strlen+free -o "$D/p.txt" -- "$T" /etc/passwd 5 \
        >/dev/null 2>&1
    own() { grep -oE '^([0-9]+ )?trace_nest->[a-z]+\(("[^"]*")?' "$1" | sed -E 's/^[0-9]+ //'; }
    if [ -s "$D/l.txt" ] && diff <(own "$D/l.txt") <(own "$D/p.txt") >"$D/lp.diff"; then
        pass nest_ltrace_same_calls
    else
        fail nest_ltrace_same_calls "$(head -c 400 "$D/lp.diff")"
    fi
else
    skip nest_ltrace_same_calls "ltrace is not installed (scripts/install-deps installs it)"
fi

# csv and json: a depth field, 1 for strdup's malloc, 0 for the program's own calls (in
# ltrace's order above).
"$PROSPECT" trace -n 2 --format csv -e malloc+strdup+strlen+free -o "$D/n.csv" -- "$T" \
    /etc/passwd 5 >/dev/null 2>&1
check nest_csv_header [ "$(head -1 "$D/n.csv")" = "time_ns,pid,tid,caller,function,args,ret,duration_ns,depth" ]
check nest_csv_strdup_malloc_depth_1 [ "$(grep -cE '^[0-9]+,[0-9]+,[0-9]+,libc\.so\.6,malloc,7,0x[0-9a-f]+,[0-9]+,1$' "$D/n.csv")" = 5 ]
check nest_csv_own_depth_0 [ "$(grep -cE '^[0-9]+,[0-9]+,[0-9]+,trace_nest,[a-z]+,.*,0$' "$D/n.csv")" = "$(grep -c ',trace_nest,' "$D/n.csv")" ]
if [ -s "${D}/l.txt" ]; then
    csv_own() { awk -F, '$4 == "trace_nest" { print $5 }' "$1"; }
    l_own() { grep -oE '^([0-9]+ )?trace_nest->[a-z]+' "$1" | sed -E 's/^.*->//'; }
    if diff <(l_own "$D/l.txt") <(csv_own "$D/n.csv") >"$D/lc.diff"; then
        pass nest_csv_ltrace_same_calls
    else
        fail nest_csv_ltrace_same_calls "$(head -c 400 "$D/lc.diff")"
    fi
fi
"$PROSPECT" trace -n 2 --format json -e malloc+strdup -o "$D/n.json" -- "$T" /etc/passwd 5 \
    >/dev/null 2>&1
if command -v jq >/dev/null; then
    check nest_json_depth [ "$(jq -s '[.[] | select(.function == "malloc" and .args == "7" and .depth == 1)] | length' "$D/n.json")" = 5 ] &&
        [ "$(jq -s '[.[] | select(.function == "strdup" and .depth == 0)] | length' "$D/n.json")" = 5 ]
else
    skip nest_json_depth "jq is not installed (scripts/install-deps installs it)"
fi

uprobes_ok() { [ -w /sys/kernel/tracing/uprobe_events ] || [ -w /sys/kernel/debug/tracing/uprobe_events ]; }
# A static program: uprobes on its own malloc and strdup (strdup calls malloc directly).
if ! uprobes_ok; then
    skip nest_static "no writable tracefs uprobe_events (a static program is traced by uprobes)"
elif gcc -O1 -fno-builtin -static -o "$D/nest_static" "$(dirname "$0")/../workloads/trace_nest.c" \
        2>/dev/null; then
    "$PROSPECT" trace -n 2 -e malloc+strdup -o "$D/s.txt" -- "$D/nest_static" /etc/passwd 5 \
        >"$D/sout" 2>/dev/null
    check nest_static_exit_and_stdout [ $? = 0 ] && [ "$(cat "$D/sout")" = 6 ]
    after_sstrdup() { awk 'f { sub(/^[0-9]+/, ""); print; f = 0 } /nest_static->strdup\("nested"\)/ { f = 1 }' "$1"; }
    check nest_static_strdup_malloc_indented [ "$(after_sstrdup "$D/s.txt" | grep -cE '^   nest_static->malloc\(7\) +=')" = 5 ]
else
    skip nest_static "no static libc to link a static program with (libc6-dev's libc.a)"
fi

# -p: trace_strings waits for a line on stdin per round; strdup("x")'s malloc(2) indented.
# attach_nest NAME [trace options...]: 3 rounds attached; "<target status> <indented>"
attach_nest() {
    local d=$D/p_$1 line l i; shift
    mkdir -p "$d" && mkfifo "$d/in" "$d/out" "$d/err"
    "$WL/trace_strings" /etc/passwd <"$d/in" >"$d/out" & local tp=$!
    exec 7>"$d/in" 8<"$d/out"
    "$PROSPECT" trace "$@" -n 2 -p "$tp" -e strdup+malloc -o "$d/calls.txt" 2>"$d/err" & local pp=$!
    exec 9<"$d/err"
    while read -r line <&9; do [ "$line" = "prospect trace: attached" ] && break; done
    for i in 1 2 3; do echo go >&7; read -r l <&8; done
    kill -INT "$pp" 2>/dev/null; wait "$pp"
    exec 7>&- 9<&-; exec 8<&-
    wait "$tp"; local rt=$?
    echo "$rt $(awk 'f { sub(/^[0-9]+/, ""); print; f = 0 } /trace_strings->strdup\("x"\) += "x"/ { f = 1 }' \
                "$d/calls.txt" | grep -cE '^   libc\.so\.6->malloc\(2\) +=')"
}
build_workload trace_strings trace_strings -O1 -fno-builtin -Wl,-z,lazy || { fail build trace_strings; exit 0; }
if ! { [ "$(cat /proc/sys/kernel/yama/ptrace_scope 2>/dev/null || echo 0)" -le 1 ] ||
       [ "$(id -u)" = 0 ]; }; then
    skip nest_attach_got "ptrace is not allowed here (kernel.yama.ptrace_scope)"
else
    check nest_attach_got [ "$(attach_nest got)" = "3 3" ]
fi
if uprobes_ok; then
    check nest_attach_uprobes [ "$(attach_nest uprobes --uprobes)" = "3 3" ]
else
    skip nest_attach_uprobes "no writable tracefs uprobe_events"
fi
