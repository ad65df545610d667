# SPDX-License-Identifier: MIT
# glibc's functions have several names at one address (free, cfree@GLIBC_2.2.5, __libc_free);
# Prospect picks one as perf does (src/symbol/symtab.c: perf's choose_best_symbol preference).
# Against perf 6.1 on perf's -g file of an allocator-heavy workload: the libc rows of
# report --children (-g none) and the libc frames of script name the same functions, with the
# detached debug symbols (libc6-dbg's .symtab) visible and hidden as on CI machines (perf also
# finds a copy in ~/.debug, its default build-id cache, whatever PERF_BUILDID_DIR says: hidden
# too).
. "$(dirname "$0")/lib.sh"

build_workload alloc_loop alloc_loop -O1 -fno-builtin -fno-omit-frame-pointer ||
    { fail libc_aliases_build "cannot build tests/workloads/alloc_loop.c"; exit 0; }
if ! command -v perf >/dev/null || ! perf record -q -o "$TEST_TMP/probe.data" -- true >/dev/null 2>&1; then
    skip report_libc_aliases "perf is not installed or cannot record here"
    exit 0
fi

# libc_rows TOOL: the libc.so.6 rows' symbols at >= 1% Children, sorted; without the debug
# file, addresses between .dynsym's functions are left out (perf: a raw-address row each,
# Prospect: the a->b bracket, docs/callgraph.md)
libc_rows() {
    if [ "$1" = perf ]; then
        perf report -i "$TEST_TMP/perf.data" --stdio --children --sort dso,sym -g none 2>/dev/null
    else
        "$PROSPECT" report -i "$TEST_TMP/perf.data" --children --sort dso,sym -g none --wide
    fi | awk '$3 == "libc.so.6" && $1 + 0 >= 1 && $NF !~ /^0x|->/ { print $NF }' | sort
}
# script_names TOOL: the symbol of every frame line (addr sym+off (dso)), counted
script_names() {
    if [ "$1" = perf ]; then perf script -i "$TEST_TMP/perf.data" 2>/dev/null
    else "$PROSPECT" script -i "$TEST_TMP/perf.data" 2>/dev/null; fi |
        awk 'NF == 3 && $1 ~ /^[0-9a-f]+$/ && $3 ~ /libc\.so/ { sub(/\+0x[0-9a-f]+$/, "", $2); print $2 }' |
        sort | uniq -c
}
compare() {   # compare VIEW: recorded in this view (perf's build-id cache keeps the debug file)
    export PERF_BUILDID_DIR=$TEST_TMP/buildid-$1
    precord -g -o "$TEST_TMP/perf.data" -- "$WL/alloc_loop" ||
        { fail "libc_aliases_perf_record_$1" "perf record -g failed"; return; }
    libc_rows perf >"$TEST_TMP/$1.prow"; libc_rows ours >"$TEST_TMP/$1.orow"
    check "libc_aliases_children_rows_$1" sh -c "grep -qx malloc '$TEST_TMP/$1.prow' &&
        cmp -s '$TEST_TMP/$1.prow' '$TEST_TMP/$1.orow'" ||
        diff "$TEST_TMP/$1.prow" "$TEST_TMP/$1.orow" | head -4
    script_names perf >"$TEST_TMP/$1.pscr"; script_names ours >"$TEST_TMP/$1.oscr"
    check "libc_aliases_script_frames_$1" sh -c "[ -s '$TEST_TMP/$1.pscr' ] &&
        cmp -s '$TEST_TMP/$1.pscr' '$TEST_TMP/$1.oscr'" ||
        diff "$TEST_TMP/$1.pscr" "$TEST_TMP/$1.oscr" | head -4
}
compare host
if [ ! -d /usr/lib/debug ]; then
    skip libc_aliases_debug_hidden "no /usr/lib/debug here: the host view above is CI's"
elif ! unshare -m --propagation private true 2>/dev/null; then
    skip libc_aliases_debug_hidden "cannot make a mount namespace to hide /usr/lib/debug"
else
    export -f libc_rows script_names compare check pass fail precord
    export TEST_TMP PROSPECT WL
    unshare -m --propagation private bash -c \
        'mount -t tmpfs none /usr/lib/debug &&
         { [ ! -d "$HOME/.debug" ] || mount -t tmpfs none "$HOME/.debug"; } && compare nodebug'
fi
