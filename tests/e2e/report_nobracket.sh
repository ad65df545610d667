# SPDX-License-Identifier: MIT
# --no-bracket with every call-graph output (issue 23, section 2): a stripped library's static
# helper (tests/workloads/unwlib.c) is named by its addresses, as perf names it, instead of
# Prospect's a->b bracket. The Children table against perf report --children on perf's file:
# perf prints each address twice (a Self row by its ELF address, a Children row by its
# runtime address, 0% Self); ours is one row per address holding both numbers, and both must
# equal perf's. The trees, folded, svg, pprof, speedscope and html outputs name the same
# addresses, folded's counts per sampled address equal perf script's.
. "$(dirname "$0")/lib.sh"

W=$(dirname "$0")/../workloads
L=$TEST_TMP/nb
mkdir -p "$L"
if ! gcc -O2 -fomit-frame-pointer -fPIC -shared -o "$L/libunwlib.so" "$W/unwlib.c" ||
   ! strip "$L/libunwlib.so" ||
   ! gcc -O2 -fno-omit-frame-pointer -DWITH_LIB -o "$L/unw" "$W/unwind.c" -L"$L" -lunwlib \
        -Wl,-rpath,"$L"; then
    fail nobracket_build "cannot build tests/workloads/unwind.c and unwlib.c"
    exit 0
fi
if ! command -v perf >/dev/null || ! perf record -q -o "$TEST_TMP/probe.data" -- true >/dev/null 2>&1; then
    skip report_nobracket "perf is not installed or cannot record here"
    exit 0
fi
D=$TEST_TMP/lib.data
precord -g -o "$D" -- "$L/unw" lib 1500 || { fail nobracket_perf_record "perf record -g failed"; exit 0; }

# The library's executable map: runtime address = ELF address - pgoff + start (its text
# segment's p_vaddr equals its offset, as gcc lays out a small .so).
read -r start len pgoff < <(perf script -i "$D" --show-mmap-events 2>/dev/null |
    sed -n 's/.*\[\(0x[0-9a-f]*\)(\(0x[0-9a-f]*\)) @ \(0x[0-9a-f]*\) .*r-xp .*libunwlib\.so$/\1 \2 \3/p' |
    head -1)
[ -n "$start" ] || { fail nobracket_map "perf script shows no executable map of libunwlib.so"; exit 0; }
# rel: "RUNTIME_ADDRESS REST" lines of the library's map as "0x%016x REST" ELF addresses;
# addresses outside the map are left out.
rel() { python3 -c "import sys
s, n, p = (int(a, 16) for a in sys.argv[1:4])
for l in sys.stdin:
    f = l.split()
    a = int(f[0], 16)
    if s <= a < s + n:
        print(('0x%016x ' % (a - s + p) + ' '.join(f[1:])).rstrip())" "$start" "$len" "$pgoff"; }

perf report -i "$D" --stdio --children --sort dso,sym -g none 2>/dev/null >"$TEST_TMP/perf.txt"
"$PROSPECT" report -i "$D" --children --sort dso,sym -g none --no-bracket >"$TEST_TMP/ours.txt" 2>&1
lib_rows() { awk -v c="$2" '$3 == "libunwlib.so" && $5 ~ /^0x/ { print $5, $c }' "$1"; }
# perf's Self rows (ELF addresses, Self > 0) and Children rows (runtime addresses).
lib_rows "$TEST_TMP/perf.txt" 2 | awk '$2 != "0.00%"' | grep -v '^0x00007' | sort >"$TEST_TMP/ps"
lib_rows "$TEST_TMP/perf.txt" 1 | grep '^0x00007' | rel | sort >"$TEST_TMP/pc"
lib_rows "$TEST_TMP/ours.txt" 2 | awk '$2 != "0.00%"' | sort >"$TEST_TMP/os"
lib_rows "$TEST_TMP/ours.txt" 1 | sort >"$TEST_TMP/oc"
check nobracket_children_self_as_perf sh -c "[ -s $TEST_TMP/ps ] && cmp -s $TEST_TMP/ps $TEST_TMP/os"
check nobracket_children_as_perf sh -c "[ -s $TEST_TMP/pc ] && cmp -s $TEST_TMP/pc $TEST_TMP/oc"
check nobracket_children_no_bracket not grep -q -- 'lib_before' "$TEST_TMP/ours.txt"
hot=$(head -1 "$TEST_TMP/ps" | cut -d' ' -f1)

# The trees under the rows: the library's frames are the addresses perf's trees name.
"$PROSPECT" report -i "$D" --children --no-bracket >"$TEST_TMP/trees.txt" 2>&1
perf report -i "$D" --stdio --children 2>/dev/null | grep -v '^ *[0-9.]*% *[0-9.]*% ' |
    grep -o '0x[0-9a-f]*' | rel | sort -u >"$TEST_TMP/ptree"
grep -v '^ *[0-9.]*% *[0-9.]*% ' "$TEST_TMP/trees.txt" | grep -o '0x0000000000[0-9a-f]*' |
    sort -u >"$TEST_TMP/otree"
check nobracket_trees_name_perfs_addresses sh -c "[ -s $TEST_TMP/ptree ] &&
    cmp -s $TEST_TMP/ptree $TEST_TMP/otree && ! grep -q -- lib_before $TEST_TMP/trees.txt"

# Folded: the samples whose sampled ip is each unnamed address of the library, as perf script
# counts them (its chains print a DSO's addresses as ELF addresses).
perf script -i "$D" -F ip,sym,dso 2>/dev/null | awk 'BEGIN { RS = "" }
    $2 == "[unknown]" && $3 ~ /libunwlib\.so\)$/ { print $1 }' | sort | uniq -c |
    python3 -c "import sys
for l in sys.stdin:
    n, a = l.split()
    print('0x%016x %s' % (int(a, 16), n))" | sort >"$TEST_TMP/pleaf"
"$PROSPECT" report -i "$D" --format folded --no-bracket 2>/dev/null >"$TEST_TMP/folded"
awk '{ n = split($1, f, ";"); if (f[n] ~ /^0x/) c[f[n]] += $2 } END { for (a in c) print a, c[a] }' \
    "$TEST_TMP/folded" | sort >"$TEST_TMP/oleaf"
check nobracket_folded_leaf_counts_as_perf_script sh -c "[ -s $TEST_TMP/pleaf ] &&
    cmp -s $TEST_TMP/pleaf $TEST_TMP/oleaf"

# The other outputs: the hottest address named, no bracket (the helper's bracket is
# "(start)->lib_before": lib_before itself never runs long enough to be sampled).
for f in svg pprof speedscope html; do
    out=$TEST_TMP/out.$f
    "$PROSPECT" report -i "$D" --format $f --no-bracket -o "$out" >/dev/null 2>&1
    if [ $f = pprof ]; then zcat "$out" >"$out.raw" 2>/dev/null; else cp "$out" "$out.raw"; fi
    check "nobracket_${f}_names_addresses" sh -c "[ -n '$hot' ] && grep -aq '$hot' '$out.raw' &&
        ! grep -aq 'lib_before' '$out.raw'"
done
# Without --no-bracket the helper is the bracket (the option changes what it says it does).
check nobracket_default_is_the_bracket sh -c "'$PROSPECT' report -i '$D' --format svg -o \
    '$TEST_TMP/default.svg' && grep -q -- '-&gt;lib_before' '$TEST_TMP/default.svg'"
# Alone, --no-bracket is the flat table's option, as before.
check nobracket_alone_is_flat sh -c "'$PROSPECT' report -i '$D' --no-bracket 2>&1 |
    grep -q '^# Overhead'"
