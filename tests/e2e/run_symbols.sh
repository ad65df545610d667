# SPDX-License-Identifier: MIT
# prospect run: symbol sources beyond plain ELF: the vDSO, C++ names, JIT maps.
. "$(dirname "$0")/lib.sh"

build_workload vdso vdso -O2
"$PROSPECT" run -o "$TEST_TMP/vdso.txt" -- "$WL/vdso" 3000000 >/dev/null
check vdso_symbols grep -qE '(__vdso_)?clock_gettime.* \[vdso\]|vdso.*clock_gettime' "$TEST_TMP/vdso.txt"

if command -v g++ >/dev/null; then
    g++ -O2 -g -o "$WL/cxx" "$(dirname "$0")/../workloads/cxx.cpp"
    # --wide: the name with its " [clone .isra.0]" is longer than the 100-column layout allows
    "$PROSPECT" run --wide -o "$TEST_TMP/cxx.txt" -- "$WL/cxx" 60000000 >/dev/null
    check cxx_demangled grep -q 'geometry::Grid<double>::relax(unsigned long) const' "$TEST_TMP/cxx.txt"
else
    skip cxx_demangled "g++ is not installed"
fi

build_workload jit jit -O1
"$PROSPECT" run -o "$TEST_TMP/jit.txt" -- "$WL/jit" 3 >/dev/null
check jit_map_symbol grep -q 'jitted_count_loop' "$TEST_TMP/jit.txt"
jpid=$(awk '/^Process [0-9]+ jit$/ { print $2; exit }' "$TEST_TMP/jit.txt")
[ -n "$jpid" ] && rm -f "/tmp/perf-$jpid.map"

# -v explains why a file has no symbols.
build_workload split_stripped split -O2 -s
"$PROSPECT" run -v -o /dev/null -- "$WL/split_stripped" 10 >/dev/null 2>"$TEST_TMP/verbose.err"
check verbose_explains_missing_symbols grep -q "split_stripped: no symbols" "$TEST_TMP/verbose.err"

# Hostile names (terminal escapes, invalid UTF-8, 5000 characters) are escaped and cut.
"$PROSPECT" run -o "$TEST_TMP/jit_hostile.txt" -- "$WL/jit" 3 hostile >/dev/null
jpid=$(awk '/^Process [0-9]+ jit$/ { print $2; exit }' "$TEST_TMP/jit_hostile.txt")
[ -n "$jpid" ] && rm -f "/tmp/perf-$jpid.map"
check hostile_name_escaped grep -qF '\x1b[2J\x07evil\xff\xfe' "$TEST_TMP/jit_hostile.txt"
check hostile_name_no_raw_escape_byte bash -c "! grep -q \$'\\x1b' '$TEST_TMP/jit_hostile.txt'"
check hostile_name_cut bash -c "[ \$(awk '{ print length }' '$TEST_TMP/jit_hostile.txt' | sort -n | tail -1) -lt 400 ]"

# A library replaced on disk while it is mapped is flagged, not symbolized from the new file.
libdir=$TEST_TMP/replib
mkdir -p "$libdir"
src=$(dirname "$0")/../workloads
if gcc -O1 -fno-toplevel-reorder -fPIC -shared -o "$libdir/libhot.so" "$src/libhot.c" &&
   gcc -O1 -o "$WL/replaced" "$src/replaced.c" -ldl; then
    ready=$TEST_TMP/replaced.ready go=$TEST_TMP/replaced.go
    mkfifo "$ready" "$go"
    "$PROSPECT" run -o "$TEST_TMP/replaced.txt" -- "$WL/replaced" "$libdir/libhot.so" "$ready" "$go" >/dev/null &
    ppid=$!
    read -r _ < "$ready"
    # A new file (new inode) takes the old one's name, as an install or rebuild does.
    gcc -O0 -fPIC -shared -o "$libdir/libhot.so.new" "$src/libhot.c" && mv "$libdir/libhot.so.new" "$libdir/libhot.so"
    echo go > "$go"
    wait "$ppid"
    check replaced_lib_flagged grep -q "libhot.so.*changed on disk since it was mapped" "$TEST_TMP/replaced.txt"
    check replaced_lib_not_misnamed bash -c "! grep -qE 'hot_(lo|hi|hidden) +libhot' '$TEST_TMP/replaced.txt'"
else
    fail replaced_lib_flagged "cannot build the library"
fi

# Hits after the last dynamic symbol of a stripped library: "last->(end)", in the Prospect
# report and in report --flat (whose C++ parameter stripping must not eat "(end)").
tdir=$TEST_TMP/taillib
mkdir -p "$tdir"
if gcc -O1 -fno-toplevel-reorder -fPIC -shared -o "$tdir/libtail.so" "$src/libtail.c" &&
   strip --strip-all "$tdir/libtail.so" &&
   gcc -O1 -o "$WL/usetail" "$src/usetail.c" -L"$tdir" -ltail -Wl,-rpath,"$tdir"; then
    "$PROSPECT" run -o "$TEST_TMP/tail.txt" -- "$WL/usetail" 150 >/dev/null
    check bracket_after_last_symbol grep -qE 'tail_entry->\(end\) +libtail\.so' "$TEST_TMP/tail.txt"
    "$PROSPECT" record -o "$TEST_TMP/tail.data" -- "$WL/usetail" 150 >/dev/null 2>&1
    "$PROSPECT" report -i "$TEST_TMP/tail.data" --flat --dso libtail.so > "$TEST_TMP/tail_flat.txt" 2>/dev/null
    check flat_bracket_after_last_symbol grep -q '\[\.\] tail_entry->(end)$' "$TEST_TMP/tail_flat.txt"
else
    fail bracket_after_last_symbol "cannot build the library"
fi
