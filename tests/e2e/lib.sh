# SPDX-License-Identifier: MIT
# Shared helpers for end-to-end tests: source it, then call pass/fail/skip.
# $PROSPECT is the binary under test; $TEST_TMP a scratch directory removed after the run.
set -u
: "${PROSPECT:?PROSPECT must name the prospect binary}"
TEST_TMP=${TEST_TMP:-$(mktemp -d)}
WL=$TEST_TMP/workloads
mkdir -p "$WL"
pass() { echo "PASS $1"; }
fail() { echo "FAIL $1: $2"; }
skip() { echo "SKIP $1: $2"; }
# check NAME CONDITION-COMMAND... : pass if the command succeeds, else fail with the command text.
check() { local n=$1; shift; if "$@"; then pass "$n"; else fail "$n" "$*"; fi; }
# not COMMAND...: succeeds when COMMAND fails (for check).
not() { ! "$@"; }
# build_workload OUT SRC [cc flags...]: compiles tests/workloads/SRC.c into $WL/OUT (once).
build_workload() {
    local out=$WL/$1 src=$2; shift 2
    [ -x "$out" ] || gcc -o "$out" "$(dirname "${BASH_SOURCE[0]}")/../workloads/$src.c" "$@" || return 1
}
# precord ARGS...: perf record -q ARGS, up to three times (perf 6.1 here aborts now and then
# with -g).
precord() {
    local i
    for i in 1 2 3; do perf record -q "$@" >/dev/null 2>&1 && return 0; done
    return 1
}
# as_nobody CMD...: runs CMD as the unprivileged user nobody (for another user's process: pid 1).
# can_be_nobody says whether this machine allows that (root, setpriv, a nobody user).
can_be_nobody() {
    [ "$(id -u)" = 0 ] && command -v setpriv >/dev/null && id nobody >/dev/null 2>&1 &&
        setpriv --reuid=nobody --regid=nogroup --clear-groups -- test -x "$PROSPECT"
}
as_nobody() { setpriv --reuid=nobody --regid=nogroup --clear-groups -- "$@"; }
# int_status FIFO CMD...: starts CMD, waits for a line on FIFO (its workload's "ready"), sends
# CMD one SIGINT and prints how CMD ended, as its parent sees it: "signal N" or "exit N".
int_status() {
    perl -e 'my $fifo = shift; my $p = fork() // die "fork: $!";
        if (!$p) { $SIG{INT} = "DEFAULT"; exec(@ARGV) or exit 127 }
        open(my $f, "<", $fifo) or die "$fifo: $!"; my $l = <$f>; kill("INT", $p);
        waitpid($p, 0); print(($? & 127) ? "signal " . ($? & 127) : "exit " . ($? >> 8), "\n")' "$@"
}
