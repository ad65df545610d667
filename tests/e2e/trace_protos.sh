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

# The interposer's built-ins with the same prototypes: strings as text, returned ones too
# (strdup's copy, strchr's match, getenv's value by uprobes), whichever engine traced the call.
build_workload trace_strings trace_strings -O1 -fno-builtin -Wl,-z,lazy ||
    { fail protos_build_strings "gcc"; exit 0; }
S=$WL/trace_strings
BUILTINS=strlen+strdup+open+strchr+close
echo go | HOME=/home/pt "$PROSPECT" trace -e $BUILTINS -e libc:getenv -o "$D/b.txt" -- \
    "$S" /etc/passwd >"$D/bout" 2>"$D/berr"
check builtins_exit_and_stdout [ $? = 3 ] && [ "$(cat "$D/bout")" = "3 x 1 /home/pt passwd" ]
own() { grep -E '^([0-9]+ )?trace_strings->' "$1" | sed -E 's/^[0-9]+ //; s/ +=/ =/; s/ <[0-9.]+>$//'; }
check builtins_strlen_text [ "$(own "$D/b.txt" | grep -c '^trace_strings->strlen("abc") = 3$')" = 1 ]
check builtins_strdup_returns_text [ "$(own "$D/b.txt" | grep -c '^trace_strings->strdup("x") = "x"$')" = 1 ]
check builtins_open_path grep -qE '^[0-9]+ trace_strings->open\("/etc/passwd", 0, 0[0-7]*\) += [0-9]+ <' "$D/b.txt"
check builtins_strchr_returns_text [ "$(own "$D/b.txt" | grep -c "^trace_strings->strchr(\"/etc/passwd\", 'p') = \"passwd\"$")" = 1 ]
check builtins_getenv_returns_text [ "$(own "$D/b.txt" | grep -c '^trace_strings->getenv("HOME") = "/home/pt"$')" = 1 ]
# -F redeclares a built-in as ltrace's later files do: /etc/ltrace.conf's strdup returns addr.
printf 'addr strdup(string);\nhex strlen(addr);\n' >"$D/r.conf"
echo go | "$PROSPECT" trace -F "$D/r.conf" -e strdup+strlen -o "$D/r.txt" -- "$S" /etc/passwd \
    >/dev/null 2>&1
check builtins_F_redeclares [ "$(own "$D/r.txt" | grep -cE '^trace_strings->(strdup\("x"\) = 0x[0-9a-f]+|strlen\(0x[0-9a-f]+\) = 0x3)$')" = 2 ]
# ltrace -F on the same program: the same lines (the address of strdup's copy aside; open's
# mode left out: without O_CREAT it is whatever the register held, which ltrace prints and
# the interposer does not read). ltrace's later -F wins, as prospect's does.
if command -v ltrace >/dev/null && [ -f /etc/ltrace.conf ]; then
    printf 'string strdup(string);\n' >"$D/s.conf"
    lnorm() { own "$1" | sed -E 's/(->open\("[^"]*", [0-9]+), [0-9-]+\)/\1)/; s/0x[0-9a-f]+/ADDR/g'; }
    echo go | HOME=/home/pt ltrace -F /etc/ltrace.conf -F "$D/s.conf" -e $BUILTINS+getenv \
        -o "$D/lb.txt" "$S" /etc/passwd >/dev/null 2>&1
    if [ -s "$D/lb.txt" ] && diff <(lnorm "$D/lb.txt") <(lnorm "$D/b.txt") >"$D/lb.diff" &&
       [ "$(lnorm "$D/b.txt" | wc -l)" = 6 ]; then
        pass builtins_ltrace_agrees
    else
        fail builtins_ltrace_agrees "$(head -c 500 "$D/lb.diff")"
    fi
    echo go | ltrace -F /etc/ltrace.conf -e strdup+strchr -o "$D/ld.txt" "$S" /etc/passwd \
        >/dev/null 2>&1
    echo go | "$PROSPECT" trace -F /etc/ltrace.conf -e strdup+strchr -o "$D/pd.txt" -- \
        "$S" /etc/passwd >/dev/null 2>&1
    if [ -s "$D/ld.txt" ] && diff <(lnorm "$D/ld.txt") <(lnorm "$D/pd.txt") >"$D/ld.diff" &&
       [ "$(lnorm "$D/pd.txt" | wc -l)" = 2 ]; then
        pass builtins_ltrace_conf_agrees
    else
        fail builtins_ltrace_conf_agrees "$(head -c 500 "$D/ld.diff")"
    fi
else
    skip builtins_ltrace_agrees "ltrace is not installed (scripts/install-deps installs it)"
fi
# -F makes a built-in's argument a string where the interposer has none (write's buffer): read
# through the kernel, so a pointer that is not one (close's descriptor) is an address, and the
# program is unharmed. ltrace with the same file shows the same write.
printf 'long write(int, string, ulong);\nint close(string);\n' >"$D/w.conf"
echo go | HOME=/home/pt "$PROSPECT" trace -F "$D/w.conf" -e write+close -o "$D/w.txt" -- \
    "$S" /etc/passwd >"$D/wout" 2>/dev/null
check builtins_F_string_exit [ $? = 3 ] && [ "$(cat "$D/wout")" = "3 x 1 /home/pt passwd" ]
check builtins_F_string_write [ "$(own "$D/w.txt" | grep -c '^trace_strings->write(1, "3 x 1 /home/pt passwd\\n", 22) = 22$')" = 1 ]
check builtins_F_string_unreadable [ "$(own "$D/w.txt" | grep -cE '^trace_strings->close\(0x[0-9a-f]+\) = 0$')" = 1 ]
if command -v ltrace >/dev/null; then
    echo go | HOME=/home/pt ltrace -F "$D/w.conf" -e write -o "$D/lw.txt" "$S" /etc/passwd \
        >/dev/null 2>&1
    check builtins_F_string_ltrace_agrees [ "$(own "$D/lw.txt" | grep -E -- '->write\(')" = "$(own "$D/w.txt" | grep -E -- '->write\(')" ]
fi
# The same through -p (the interposer loaded into the running program, told by attach.conf).
if [ "$(cat /proc/sys/kernel/yama/ptrace_scope 2>/dev/null || echo 0)" -le 1 ] || [ "$(id -u)" = 0 ]; then
    mkdir -p "$D/pw" && mkfifo "$D/pw/in" "$D/pw/out" "$D/pw/err"
    HOME=/home/pt "$S" /etc/passwd <"$D/pw/in" >"$D/pw/out" & tp=$!
    exec 7>"$D/pw/in" 8<"$D/pw/out"
    "$PROSPECT" trace -F "$D/w.conf" -p "$tp" -e write -o "$D/pw/calls.txt" 2>"$D/pw/err" & pp=$!
    exec 9<"$D/pw/err"
    while read -r line <&9; do [ "$line" = "prospect trace: attached" ] && break; done
    echo go >&7; read -r l <&8
    kill -INT "$pp" 2>/dev/null; wait "$pp"
    exec 7>&- 9<&-; exec 8<&-
    wait "$tp"; rt=$?
    check builtins_F_string_attach [ "$rt" = 3 ] && [ "$(own "$D/pw/calls.txt" | grep -c '^trace_strings->write(1, "3 x 1 /home/pt passwd\\n", 22) = 22$')" = 1 ]
else
    skip builtins_F_string_attach "ptrace is not allowed here (kernel.yama.ptrace_scope)"
fi
# A static program (uprobes on its own copy: strlen and strchr are IFUNCs there, refused).
if gcc -O1 -fno-builtin -static -o "$D/strings_static" "$(dirname "$0")/../workloads/trace_strings.c" \
        2>/dev/null; then
    echo go | HOME=/home/pt "$PROSPECT" trace -e strdup+open+close -o "$D/st.txt" -- \
        "$D/strings_static" /etc/passwd >"$D/stout" 2>/dev/null
    check builtins_static_exit [ $? = 3 ] && [ "$(cat "$D/stout")" = "3 x 1 /home/pt passwd" ]
    sown() { grep -E '^[0-9]+ strings_static->' "$1" | sed -E 's/^[0-9]+ //; s/ +=/ =/; s/ <[0-9.]+>$//'; }
    check builtins_static_strdup_text [ "$(sown "$D/st.txt" | grep -c '^strings_static->strdup("x") = "x"$')" = 1 ]
    check builtins_static_open_path [ "$(sown "$D/st.txt" | grep -cE '^strings_static->open\("/etc/passwd", 0, 0[0-7]*\) = [0-9]+$')" = 1 ]
else
    skip builtins_static "no static libc to link a static program with (libc6-dev's libc.a)"
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
