# SPDX-License-Identifier: MIT
# prospect annotate's decoder (issue 19): every instruction of glibc's AVX-512 string functions
# decoded (no "(bad)" row, no sample between instruction starts) in a `sort` profile, and
# --source attributing samples by address alone (code that does not decode from the symbol's
# start still has every sample on its line).
. "$(dirname "$0")/lib.sh"
unset DEBUGINFOD_URLS

# 1. A hot loop hidden from the linear sweep: the listing cannot place its samples, --source can.
build_workload desync annotate_desync -O2 -g || { fail annotate_decode "cannot build"; exit 0; }
data=$TEST_TMP/desync.data
"$PROSPECT" record -o "$data" -- "$WL/desync" 1500000000 >/dev/null 2>&1 ||
    { fail annotate_decode "record failed"; exit 0; }
"$PROSPECT" annotate -i "$data" spin > "$TEST_TMP/listing.txt" 2>&1
check annotate_desync_listing_notes_between grep -Eq '^# [0-9]+ samples fell between instruction starts' \
    "$TEST_TMP/listing.txt"
"$PROSPECT" annotate -i "$data" --source --format json spin > "$TEST_TMP/lines.json"
check annotate_source_every_sample_on_a_line python3 -c "
import json, sys
f = json.load(open(sys.argv[1]))['functions'][0]
assert f['function'] == 'spin' and f['samples'] > 50, f
on_lines = sum(r['hits'] for r in f['lines'] if r['line'])
assert on_lines == f['samples'], (on_lines, f['samples'])
asm = [r for r in f['lines'] if r['source'] and '__asm__' in r['source']]
assert asm and asm[0]['hits'] * 10 >= f['samples'] * 9, f['lines']" "$TEST_TMP/lines.json"

# 2. sort's profile: glibc's string functions are AVX-512 (EVEX) code on this CPU.
if ! grep -qw avx512bw /proc/cpuinfo; then
    skip annotate_decode_evex "this CPU has no AVX-512: glibc does not run its EVEX code"
    exit 0
fi
python3 -c "
import random
r = random.Random(7)
with open('$TEST_TMP/words.txt', 'w') as f:
    for i in range(600000):
        f.write(''.join(r.choice('abcdefgh') for _ in range(r.randint(5, 30))) + '\n')"
data=$TEST_TMP/sort.data
"$PROSPECT" record -o "$data" -- sort -o /dev/null "$TEST_TMP/words.txt" >/dev/null 2>&1 ||
    { fail annotate_decode_evex "record failed"; exit 0; }
"$PROSPECT" annotate -i "$data" --top 0 --format csv > "$TEST_TMP/all.csv" 2>&1
"$PROSPECT" annotate -i "$data" --top 0 > "$TEST_TMP/all.txt" 2>&1
check annotate_decode_no_bad_rows sh -c "! grep -q '(bad)' '$TEST_TMP/all.csv'"
check annotate_decode_no_samples_between sh -c "! grep -q 'fell between instruction starts' '$TEST_TMP/all.txt'"
evex=$(awk -F, '$1 ~ /_evex/ { print $1 }' "$TEST_TMP/all.csv" | sort -u | head -1)
if [ -z "$evex" ]; then
    skip annotate_decode_evex_mnemonics "no sample in an *_evex function of glibc"
else
    # The function's instructions are objdump's, one for one (addresses), with its mask moves.
    lib=$(awk -F, -v f="$evex" '$1 == f { print $2; exit }' "$TEST_TMP/all.csv")
    awk -F, -v f="$evex" '$1 == f { print $3 }' "$TEST_TMP/all.csv" | sed 's/^0x//' | sort > "$TEST_TMP/ours.addr"
    first=$(head -1 "$TEST_TMP/ours.addr") last=$(tail -1 "$TEST_TMP/ours.addr")
    objdump -d --no-show-raw-insn --start-address="0x$first" --stop-address=$((0x$last + 1)) \
        "$lib" 2>/dev/null |
        awk -F'\t' '/^ +[0-9a-f]+:\t/ { sub(/^ +/, "", $1); sub(/:$/, "", $1); print $1 }' |
        sort > "$TEST_TMP/objdump.addr"
    check annotate_decode_evex_boundaries_are_objdumps cmp -s "$TEST_TMP/ours.addr" "$TEST_TMP/objdump.addr"
    check annotate_decode_evex_mask_moves grep -q "^$evex,.*kmov" "$TEST_TMP/all.csv"
fi
