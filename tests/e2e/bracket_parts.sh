# SPDX-License-Identifier: MIT
# Issue 23: a stripped library's a->b brackets are split at its FDE starts (Debian's liblzma,
# stripped to its dynamic symbols, under xz -9). Oracles: perf report's raw-address rows (the
# samples of each gap), readelf's FDE ranges, objdump's instructions. Checked: the parts of a
# gap sum to the gap's samples, no part holds two FDE starts, annotate lists one part (by its
# name, by an address in it) over one FDE, the names are the same in every output and in two
# recordings.
. "$(dirname "$0")/lib.sh"
unset DEBUGINFOD_URLS   # no network: files not found here stay not found

xz=$(command -v xz || true)
lib=$([ -n "$xz" ] && ldd "$xz" 2>/dev/null | awk '$1 ~ /^liblzma/ { print $3 }')
lib=$([ -n "$lib" ] && readlink -f "$lib")
if [ -z "$xz" ] || [ ! -r "$lib" ]; then
    skip bracket_parts "xz with liblzma is not installed"
    exit 0
fi
if readelf -SW "$lib" | grep -q '\.symtab'; then
    skip bracket_parts "$lib has a .symtab here: no brackets"
    exit 0
fi
if ! command -v perf >/dev/null; then
    skip bracket_parts "perf is not installed (the oracle for the gaps' samples)"
    exit 0
fi
dso=$(basename "$lib")
head -c 2000000 /dev/urandom | base64 > "$TEST_TMP/in.txt"
for r in 1 2; do
    if ! "$PROSPECT" record -g -o "$TEST_TMP/xz$r.data" -- "$xz" -9 -T1 -c "$TEST_TMP/in.txt" \
            >/dev/null 2>"$TEST_TMP/rec$r.err"; then
        fail bracket_parts_record "$(tail -1 "$TEST_TMP/rec$r.err")"
        exit 0
    fi
done

# The dynamic symbols (start, end, name) and the FDE ranges (lo hi), hex.
nm -D --defined-only -S "$lib" | awk 'NF == 4 && $3 ~ /^[TtWwi]$/ { sub("@.*", "", $4);
    print $1, $2, $4 }' > "$TEST_TMP/syms"
readelf --debug-dump=frames "$lib" | awk '$4 == "FDE" { sub("pc=", "", $6);
    split($6, r, "[.][.]"); print r[1], r[2] }' > "$TEST_TMP/fdes"
# Flat rows: samples|dso|[.] name.
"$PROSPECT" report -i "$TEST_TMP/xz1.data" --flat -n -t '|' --sort dso,sym 2>/dev/null |
    awk -F'|' 'NF == 4 { sub("^ *", "", $2); print $2 "|" $3 "|" $4 }' > "$TEST_TMP/flat1"
perf report -i "$TEST_TMP/xz1.data" --stdio -n --no-children -g none --sort dso,sym 2>/dev/null |
    awk -v d="$dso" '$3 == d && $4 == "[.]" && $5 ~ /^0x/ { print $2, $5 }' > "$TEST_TMP/perf1"

# Per gap with parts: the parts' sum against perf's samples at addresses in the gap.
python3 - "$TEST_TMP" "$dso" > "$TEST_TMP/gaps" <<'EOF'
import re, sys
tmp, dso = sys.argv[1:]
syms = {}
for l in open(tmp + "/syms"):
    a, s, n = l.split()
    syms.setdefault(n, (int(a, 16), int(a, 16) + int(s, 16)))
perf = [(int(a, 16), int(n)) for n, a in (l.split() for l in open(tmp + "/perf1"))]
parts = {}
for l in open(tmp + "/flat1"):
    n, d, name = l.rstrip("\n").split("|")
    m = re.match(r"\[\.\] (.+)->(.+)\+0x[0-9a-f]+$", name)
    if d == dso and m:
        parts.setdefault((m[1], m[2]), []).append(int(n))
for (a, b), v in sorted(parts.items()):
    lo = 0 if a == "(start)" else syms[a][1]
    hi = 1 << 64 if b == "(end)" else syms[b][0]
    want = sum(n for addr, n in perf if lo <= addr < hi)
    print(f"{a}->{b} {len(v)} {sum(v)} {want}")
EOF
if [ -s "$TEST_TMP/gaps" ]; then
    pass bracket_parts_named
    bad=$(awk '$3 != $4 { printf "%s: parts %s, perf %s; ", $1, $3, $4 }' "$TEST_TMP/gaps")
    check bracket_parts_sum_to_the_gaps_samples [ -z "$bad" ]
    [ -z "$bad" ] || echo "  ($bad)"
else
    fail bracket_parts_named "no a->b+0xOFF row of $dso in the report"
    exit 0
fi

# Every part listed by annotate holds exactly one FDE start; the hottest part's listing is
# objdump's instructions over its range, its hits all inside one FDE range.
"$PROSPECT" annotate -i "$TEST_TMP/xz1.data" --top 0 --format json > "$TEST_TMP/ann.json" \
    2>/dev/null
read -r hot hlo hhi flo fhi crossing < <(python3 - "$TEST_TMP" <<'EOF'
import json, re, sys
tmp = sys.argv[1]
fdes = [tuple(int(x, 16) for x in l.split()) for l in open(tmp + "/fdes")]
funcs = [f for f in json.load(open(tmp + "/ann.json"))["functions"]
         if re.search(r"->.*\+0x[0-9a-f]+$", f["function"]) and "instructions" in f]
crossing = [f["function"] for f in funcs
            if sum(f["start"] <= lo < f["start"] + f["size"] for lo, hi in fdes) != 1]
f = max(funcs, key=lambda f: f["samples"])
lo, hi = max((fd for fd in fdes if f["start"] <= fd[0] < f["start"] + f["size"]), default=(0, 0))
print(f["function"], hex(f["start"]), hex(f["start"] + f["size"]), hex(lo), hex(hi),
      ",".join(crossing) or "-")
EOF
)
check bracket_parts_hold_one_fde_each [ "${crossing:-x}" = "-" ]
if [ -n "${hot:-}" ]; then
    "$PROSPECT" annotate -i "$TEST_TMP/xz1.data" --format csv "$hot" > "$TEST_TMP/hot.csv" \
        2>/dev/null
    check annotate_part_by_name_lists_it_alone \
        [ "$(awk -F, 'NR > 1 { print $1 }' "$TEST_TMP/hot.csv" | sort -u)" = "$hot" ]
    awk -F, 'NR > 1 { a = $3; sub("0x", "", a); print a }' "$TEST_TMP/hot.csv" \
        > "$TEST_TMP/hot.ours"
    objdump -d --no-show-raw-insn --start-address="$hlo" --stop-address="$hhi" "$lib" |
        awk '$1 ~ /^[0-9a-f]+:$/ { a = $1; sub(":", "", a); print a }' > "$TEST_TMP/hot.objdump"
    check annotate_part_addresses_are_objdumps cmp -s "$TEST_TMP/hot.ours" "$TEST_TMP/hot.objdump"
    out=$(python3 -c "
import csv, sys
lo, hi = int(sys.argv[2], 16), int(sys.argv[3], 16)
rows = [r for r in csv.DictReader(open(sys.argv[1])) if int(r['hits'])]
print(len(rows), ' '.join(r['address'] for r in rows if not lo <= int(r['address'], 16) < hi))
" "$TEST_TMP/hot.csv" "$flo" "$fhi")
    check annotate_part_hits_within_one_fde [ "${out%% *}" -gt 0 -a -z "${out#* }" ]
    at=$(printf '%#x' $(( hlo + (hhi - hlo) / 2 )))
    by_addr=$("$PROSPECT" annotate -i "$TEST_TMP/xz1.data" --format csv "$at" 2>/dev/null |
        awk -F, 'NR > 1 { print $1 }' | sort -u)
    check annotate_part_by_address [ "$by_addr" = "$hot" ]
    gap=${hot%+0x*}
    gsum=$("$PROSPECT" annotate -i "$TEST_TMP/xz1.data" --format json "$gap" 2>/dev/null |
        python3 -c "import json,sys; print(sum(f['samples'] for f in json.load(sys.stdin)['functions']))")
    check annotate_whole_bracket_name_lists_its_parts \
        [ "${gsum:-x}" = "$(awk -v g="$gap" '$1 == g { print $3 }' "$TEST_TMP/gaps")" ]
else
    fail annotate_part "no part listed by annotate"
fi

# The same names in every output: the flat table's parts in the folded stacks, the hottest
# one in csv, json, --children, svg, pprof, speedscope and html.
cut -d'|' -f2- "$TEST_TMP/flat1" | awk -F'|' -v d="$dso" '$1 == d && $2 ~ /->.*\+0x/ {
    sub("^\\[\\.\\] ", "", $2); print $2 }' | sort -u > "$TEST_TMP/names1"
"$PROSPECT" report -i "$TEST_TMP/xz1.data" --format folded -o - 2>/dev/null |
    sed 's/ [0-9]*$//' | tr ';' '\n' | sort -u > "$TEST_TMP/folded.names"
missing=$(comm -23 "$TEST_TMP/names1" "$TEST_TMP/folded.names" | head -3 | tr '\n' ' ')
check bracket_parts_same_in_folded [ -s "$TEST_TMP/names1" -a -z "$missing" ]
top=$(head -1 "$TEST_TMP/names1")
for fmt in svg pprof speedscope html; do
    "$PROSPECT" report -i "$TEST_TMP/xz1.data" --format $fmt -o "$TEST_TMP/out.$fmt" 2>/dev/null
done
"$PROSPECT" report -i "$TEST_TMP/xz1.data" --format csv --children > "$TEST_TMP/children.csv" \
    2>/dev/null
"$PROSPECT" report -i "$TEST_TMP/xz1.data" --flat --format json > "$TEST_TMP/flat.json" \
    2>/dev/null
absent=$(python3 - "$TEST_TMP" "$top" <<'EOF'
import gzip, html, json, sys
tmp, name = sys.argv[1:]
def text(f):
    b = open(f"{tmp}/{f}", "rb").read()
    if b[:2] == b"\x1f\x8b":
        b = gzip.decompress(b)
    return b.decode("utf-8", "replace")
for f in ["out.svg", "out.pprof", "out.speedscope", "out.html", "children.csv", "flat.json"]:
    t = text(f)
    forms = {name, html.escape(name), json.dumps(name)[1:-1],
             json.dumps(name)[1:-1].replace(">", "\\u003e"), name.replace(">", "&gt;")}
    if not any(x in t for x in forms):
        print(f, end=" ")
EOF
)
check bracket_parts_same_in_every_output [ -n "$top" -a -z "$absent" ]
[ -z "$absent" ] || echo "  ('$top' not in: $absent)"

# Stable: the same file reported twice, and the hot parts of a second recording.
"$PROSPECT" report -i "$TEST_TMP/xz1.data" --flat -n -t '|' --sort dso,sym 2>/dev/null |
    awk -F'|' 'NF == 4 { sub("^ *", "", $2); print $2 "|" $3 "|" $4 }' > "$TEST_TMP/flat1b"
check bracket_parts_same_names_same_file cmp -s "$TEST_TMP/flat1" "$TEST_TMP/flat1b"
"$PROSPECT" report -i "$TEST_TMP/xz2.data" --flat -n -t '|' --sort dso,sym 2>/dev/null |
    awk -F'|' -v d="$dso" 'NF == 4 && $3 == d { sub("^\\[\\.\\] ", "", $4); print $4 }' |
    sort -u > "$TEST_TMP/names2"
total=$(awk -F'|' '{ s += $1 } END { print s + 0 }' "$TEST_TMP/flat1")
hot1=$(awk -F'|' -v d="$dso" -v t="$total" '$2 == d && $3 ~ /->.*\+0x/ && $1 >= t / 10 {
    sub("^\\[\\.\\] ", "", $3); print $3 }' "$TEST_TMP/flat1" | sort -u)
missing=$(comm -23 <(echo "$hot1") "$TEST_TMP/names2" | head -3 | tr '\n' ' ')
check bracket_parts_same_names_two_recordings [ -n "$hot1" -a -z "$missing" ]
[ -z "$missing" ] || echo "  (not in the second recording: $missing)"
