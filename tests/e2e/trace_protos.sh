#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# prospect trace's prototypes (ltrace's config syntax): functions traced by uprobes show their
# string arguments as text, from the built-in table (fopen) or a -F FILE (a library's own
# function), the same as real ltrace with the same file; a bad pointer is an address; a bad
# file is one line naming it and the line.
. "$(dirname "$0")/lib.sh"
D=$TEST_TMP/protos; mkdir -p "$D"
export TMPDIR=$D
if ! { [ -w /sys/kernel/tracing/uprobe_events ] || [ -w /sys/kernel/debug/tracing/uprobe_events ]; }; then
    skip protos "no writable tracefs uprobe_events (functions outside the built-ins need uprobes)"
    exit 0
fi
cat >"$D/greet.c" <<'C'
#include <string.h>
int greet(const char *who, int n) { return (int)(who && (unsigned long)who > 4096 ? strlen(who) : 0) + n; }
C
cat >"$D/prog.c" <<'C'
#include <stdio.h>
int greet(const char *who, int n);
int main(void)
{
    FILE *f = fopen("/etc/passwd", "r");
    int s = greet("hello \"world\"\n\t", 1) + greet("a path/that is longer than thirty-two bytes", 2);
    s += greet(NULL, 3) + greet((const char *)1, 4);
    printf("%d\n", s);
    return f ? fclose(f) : 1;
}
C
printf '; the test library\nint greet(string, int);  ; who, how many\n' >"$D/g.conf"
gcc -shared -fPIC -O1 -o "$D/libgreet.so" "$D/greet.c" &&
    gcc -O1 -o "$D/prog" "$D/prog.c" -L"$D" -lgreet -Wl,-rpath,'$ORIGIN' -Wl,-z,lazy ||
    { fail protos_build "gcc"; exit 0; }

"$PROSPECT" trace -F "$D/g.conf" -e libgreet.so:greet -e libc:fopen -o "$D/p.txt" -- "$D/prog" \
    >"$D/out" 2>"$D/err"
check protos_exit_and_stdout [ $? = 0 ] && [ "$(cat "$D/out")" = 68 ]
check protos_said grep -q "(2, 2 with a prototype): uprobes" "$D/err"
check protos_builtin_fopen grep -qE '^[0-9]+ prog->fopen\("/etc/passwd", "r"\) += 0x[0-9a-f]+ <' "$D/p.txt"
check protos_escaped grep -qF 'prog->greet("hello "world"\n\t", 1)' "$D/p.txt"
check protos_cut_at_32 grep -qF 'prog->greet("a path/that is longer than thirt"..., 2)' "$D/p.txt"
check protos_null_is_nil grep -qF 'prog->greet(nil, 3)' "$D/p.txt"
check protos_bad_pointer_address grep -qF 'prog->greet(0x1, 4)' "$D/p.txt"
# Without the file: no prototype, four integers (as ltrace without one).
"$PROSPECT" trace -e libgreet.so:greet -o "$D/n.txt" -- "$D/prog" >/dev/null 2>&1
check protos_none_integers grep -qE 'prog->greet\(0x[0-9a-f]+, 1, ' "$D/n.txt"

# ltrace -F with the same file: the same calls with the same arguments and returns (the bad
# pointer left out: ltrace reads something there).
if command -v ltrace >/dev/null; then
    ltrace -F "$D/g.conf" -F /etc/ltrace.conf -e greet+fopen -o "$D/l.txt" "$D/prog" >/dev/null 2>&1
    norm() { grep -E 'prog->(greet|fopen)\(' "$1" | grep -v 'greet(0x1\|greet("\\001' |
             sed -E 's/^[0-9]+ //; s/ <[0-9.]+>$//; s/ +=/ =/; s/0x[0-9a-f]+/ADDR/g'; }
    if [ -s "$D/l.txt" ] && diff <(norm "$D/l.txt") <(norm "$D/p.txt") >"$D/lp.diff" &&
       [ "$(norm "$D/p.txt" | wc -l)" = 4 ]; then
        pass protos_ltrace_agrees
    else
        fail protos_ltrace_agrees "$(head -c 500 "$D/lp.diff")"
    fi
else
    skip protos_ltrace_agrees "ltrace is not installed (scripts/install-deps installs it)"
fi

# A bad file: one line naming the file and line, usage exit 2, the command not run.
printf 'int ok(int);\nint broken(string;\n' >"$D/bad.conf"
"$PROSPECT" trace -F "$D/bad.conf" -e libgreet.so:greet -- "$D/prog" >"$D/bo" 2>"$D/be"
check protos_bad_file_exit_2 [ $? = 2 ] && [ ! -s "$D/bo" ]
check protos_bad_file_line grep -q "^prospect trace: $D/bad.conf:2: " "$D/be"
"$PROSPECT" trace -F "$D/missing.conf" -- "$D/prog" >/dev/null 2>"$D/me"
check protos_missing_file [ $? = 1 ] && grep -q "$D/missing.conf: No such file" "$D/me"
# Debian's own /etc/ltrace.conf (ltrace's package) reads as a -F file.
if [ -f /etc/ltrace.conf ]; then
    "$PROSPECT" trace -F /etc/ltrace.conf -e libc:fopen -o "$D/d.txt" -- "$D/prog" >/dev/null 2>"$D/de"
    check protos_reads_ltrace_conf grep -qF 'prog->fopen("/etc/passwd", "r")' "$D/d.txt"
else
    skip protos_reads_ltrace_conf "no /etc/ltrace.conf (ltrace is not installed)"
fi
