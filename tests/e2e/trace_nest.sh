#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# prospect trace -n (ltrace's --indent): a library call made inside another traced call of its
# thread (malloc inside strdup, inside fopen) is indented N spaces a level; the program's own
# calls stay in the order ltrace shows them.
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
