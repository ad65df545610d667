#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Commands declared once (src/cmd/options.h): every option of every command's table is in its
# --help, its man page and its completion; nothing parses options outside the tables; mistyped
# commands and options get "did you mean"; man and bash completion work after install-docs.
source "$(dirname "$0")/lib.sh"
root=$(cd "$(dirname "$0")/../.." && pwd)
cmds=$("$PROSPECT" --help | awk '/^Commands:/ { on = 1; next } on && /^  [a-z]/ { print $1 }' |
       grep -vx help)
check options_commands_listed [ "$(wc -w <<<"$cmds")" -ge 11 ]

inst=$TEST_TMP/inst
make -s -C "$root" install-docs PREFIX="$inst" PROSPECT_BIN="$PROSPECT" >/dev/null 2>&1
check options_install_docs [ -f "$inst/share/man/man1/prospect-report.1" ]

missing="" wide=""
for c in $cmds; do
    # The table, as completion lists it: every long option, and -x for the short ones.
    opts=$("$PROSPECT" __complete 2 prospect "$c" -)
    [ -n "$opts" ] || missing="$missing $c:no-options"
    help=$("$PROSPECT" "$c" --help)
    man=$(MANPATH=$inst/share/man MANWIDTH=200 man -P cat "prospect-$c" 2>/dev/null)
    for o in $opts; do
        grep -qF -- "$o" <<<"$help" || missing="$missing $c:help:$o"
        grep -qF -- "$o" <<<"$man" || missing="$missing $c:man:$o"
    done
    w=$(awk '{ if (length > m) m = length } END { print m + 0 }' <<<"$help")
    [ "$w" -le 100 ] || wide="$wide $c:$w"
done
check options_every_option_in_help_and_man [ -z "$missing" ]
[ -z "$missing" ] || echo "missing:$missing" | head -c 2000
check options_help_fits_100_columns [ -z "$wide" ]
[ -z "$wide" ] || echo "wider than 100:$wide"

# Nothing parses options by hand: getopt is called from the tables only.
hand=$(grep -ln 'getopt_long\|struct option ' "$root"/src/cmd/*.c | grep -v '/options\.c$')
check options_no_hand_parsing [ -z "$hand" ]
[ -z "$hand" ] || echo "parsing outside the tables: $hand"

out=$("$PROSPECT" rn 2>&1); rc=$?
check options_command_suggested [ $rc -eq 2 ]
check options_command_suggested_text grep -q "unknown command 'rn'; did you mean 'run'?" <<<"$out"
out=$("$PROSPECT" report --chidren 2>&1); rc=$?
check options_option_suggested [ $rc -eq 2 ]
check options_option_suggested_text \
    grep -q "unknown option '--chidren'; did you mean '--children'?" <<<"$out"
out=$("$PROSPECT" stat --zzzzzz 2>&1); rc=$?
check options_no_wild_suggestion [ $rc -eq 2 ] && ! grep -q 'did you mean' <<<"$out"

page=$(MANPATH=$inst/share/man man -P cat prospect-report 2>/dev/null)
check options_man_page_reads grep -q -- '--children' <<<"$page"
check options_man_top_page_lists_commands \
    grep -q 'prospect-stat' <<<"$(MANPATH=$inst/share/man man -P cat prospect 2>/dev/null)"

# bash completion, loaded as a user's shell would (interactive bash), on the installed binary.
bindir=$TEST_TMP/bin
mkdir -p "$bindir"
ln -sf "$PROSPECT" "$bindir/prospect"
complete_line() {
    PATH=$bindir:$PATH bash --norc -ic "source '$inst/share/bash-completion/completions/prospect'
        read -ra COMP_WORDS <<<\"\$1\"; [ \"\${1: -1}\" = ' ' ] && COMP_WORDS+=('')
        COMP_CWORD=\$((\${#COMP_WORDS[@]} - 1)); COMP_LINE=\$1; COMP_POINT=\${#1}
        _prospect; printf '%s\n' \"\${COMPREPLY[@]}\"" _ "$1" 2>/dev/null
}
check options_bash_completes_command grep -qx report <<<"$(complete_line 'prospect rep')"
check options_bash_completes_option grep -qx -- --children <<<"$(complete_line 'prospect report --chi')"
check options_bash_completes_event grep -qx task-clock <<<"$(complete_line 'prospect run -e task-c')"
check options_bash_completes_choice grep -qx folded <<<"$(complete_line 'prospect report --format fo')"

# -r/-f FUNC: the functions of the program after "--" (the cursor before it, where the line is
# edited), from its symbol table; readelf's FUNC entries of .symtab are the oracle.
complete_at() {   # LINE WORD-INDEX: the completions of that word
    PATH=$bindir:$PATH bash --norc -ic "source '$inst/share/bash-completion/completions/prospect'
        read -ra COMP_WORDS <<<\"\$1\"; COMP_CWORD=\$2; COMP_LINE=\$1; COMP_POINT=\${#1}
        _prospect; printf '%s\n' \"\${COMPREPLY[@]}\"" _ "$1" "$2" 2>/dev/null | sort -u
}
if build_workload cg_shapes cg_shapes -O0 -g -pthread; then
    want=$(readelf -sW "$WL/cg_shapes" | awk '/^Symbol table/ { on = /.symtab/ }
           on && $4 == "FUNC" && $7 != "UND" && $8 ~ /^d/ { print $8 }' | sort -u)
    got=$(complete_at "prospect stat -r d -- $WL/cg_shapes deep" 3)
    check options_bash_completes_region_functions [ -n "$want" ] && [ "$got" = "$want" ]
    [ "$got" = "$want" ] || echo "completed: $(echo $got) readelf: $(echo $want)"
    check options_bash_completes_lines_function \
        grep -qx work <<<"$(complete_at "prospect lines -f wor -- $WL/cg_shapes" 3)"
    check options_no_functions_without_program \
        [ -z "$(complete_at "prospect stat -r d" 3)" ]
else
    skip options_bash_completes_region_functions "cannot build tests/workloads/cg_shapes.c"
fi

# Completion only looks: with tracefs unmounted (in a mount namespace of its own), completing a
# tracepoint lists none and leaves tracefs unmounted.
if unshare -m --propagation private true 2>/dev/null; then
    mounts=$(unshare -m --propagation private bash -c '
        for d in /sys/kernel/tracing /sys/kernel/debug/tracing /sys/kernel/debug; do
            umount -l "$d" 2>/dev/null; done
        echo "before $(grep -c " tracefs " /proc/self/mounts)"
        echo "listed $("$1" __complete 3 prospect run -e sched:sched_sw | grep -c .)"
        echo "after $(grep -c " tracefs " /proc/self/mounts)"' _ "$PROSPECT")
    if grep -qx 'before 0' <<<"$mounts"; then
        check options_completion_never_mounts_tracefs grep -qx 'after 0' <<<"$mounts"
        check options_completion_without_tracefs_lists_none grep -qx 'listed 0' <<<"$mounts"
    else
        skip options_completion_never_mounts_tracefs "tracefs stayed mounted after umount"
    fi
else
    skip options_completion_never_mounts_tracefs "no mount namespace (unshare -m) for this user"
fi
