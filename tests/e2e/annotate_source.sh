# SPDX-License-Identifier: MIT
# prospect annotate's source text (issue 11): --source (hits per source line, against perf
# report --sort sym,srcline on the same perf.data), the text interleaved in the listing,
# --source-dir and --prefix-map for a moved tree, and source files as untrusted input (a FIFO
# at the path, a very long line, control characters).
. "$(dirname "$0")/lib.sh"
unset DEBUGINFOD_URLS   # no network: files not found here stay not found
export PERF_BUILDID_DIR=$TEST_TMP/perf-buildid-cache   # perf record's copies: the test's own

if ! command -v perf >/dev/null || ! perf record -q -o "$TEST_TMP/probe.data" -- true >/dev/null 2>&1; then
    skip annotate_source "perf is not installed or cannot record here"
    exit 0
fi
# The workload's source in a tree of its own, with a very long comment line and one holding an
# escape sequence inside divide(), so both show in its per-line view.
tree=$TEST_TMP/tree
mkdir -p "$tree/src/sub"
long=$(head -c 5000 /dev/zero | tr '\0' 'x')
awk -v long="$long" '{ print } /unsigned long acc = 0;/ {
        print "    /* " long " */"; printf "    /* \033[31mred\033[0m */\n" }' \
    "$(dirname "$0")/../workloads/annotate_div.c" > "$tree/src/sub/div.c"
prog=$TEST_TMP/div
(cd "$tree" && gcc -O2 -g -o "$prog" "$tree/src/sub/div.c") || { fail annotate_source "cannot build"; exit 0; }
data=$TEST_TMP/div.data
perf record -q -o "$data" -- "$prog" 20000000 >/dev/null 2>&1 || { fail annotate_source "perf record failed"; exit 0; }

# --source: each line's share of the function is perf's (perf report --sort sym,srcline gives
# each (function, file:line) share of all samples; divided by the function's total).
perf report -i "$data" --stdio --sort sym,srcline 2>/dev/null |
    awk '$2 == "[.]" && ($3 == "divide" || $3 == "mix") { sub("%", "", $1); print $3 "|" $4 "|" $1 }' |
    awk -F'|' '{ r[$1 "|" $2] = $3; t[$1] += $3 } END { for (k in r) { split(k, a, "|");
        if (t[a[1]] > 0) printf "%s|%.2f\n", k, 100 * r[k] / t[a[1]] } }' | sort > "$TEST_TMP/perf.lines"
"$PROSPECT" annotate -i "$data" --source --format csv divide mix > "$TEST_TMP/lines.csv"
awk -F, 'NR > 1 { n = split($3, p, "/"); printf "%s|%s:%s|%s\n", $1, p[n], $4, $6 }' \
    "$TEST_TMP/lines.csv" | sort > "$TEST_TMP/ours.lines"
bad=$(awk -F'|' 'NR == FNR { ours[$1 "|" $2] = $3; next } $3 >= 1 { d = ours[$1 "|" $2] - $3;
        if (d < 0) d = -d; if (d > 1) printf "%s|%s perf %s ours %s; ", $1, $2, $3, ours[$1 "|" $2] }' \
    "$TEST_TMP/ours.lines" "$TEST_TMP/perf.lines")
if [ ! -s "$TEST_TMP/perf.lines" ]; then
    fail annotate_source_matches_perf_srcline "perf report --sort sym,srcline showed no row"
else
    check annotate_source_matches_perf_srcline [ -z "$bad" ]
fi
# The CSV row of the division's line carries its text.
check annotate_source_csv_has_text grep -Eq '^divide,[^,]*,/[^,]*/div.c,14,[0-9]+,[0-9.]+,[0-9]+,"?  *acc \+=' \
    "$TEST_TMP/lines.csv"
"$PROSPECT" annotate -i "$data" --source divide > "$TEST_TMP/lines.txt"
check annotate_source_text_rows grep -Eq '^ +[0-9.]+ +[0-9]+ +14 +acc \+= \(i \* 7' "$TEST_TMP/lines.txt"
# Lines without code between lines with code are shown with blank columns.
check annotate_source_blank_lines grep -Eq '^ {17} +9  \{$' "$TEST_TMP/lines.txt"
check annotate_source_long_line_cut grep -Eq '^ {17} +11      /\* x+\.\.\.$' "$TEST_TMP/lines.txt"
check annotate_source_fits_100_columns [ "$(awk '{ if (length($0) > m) m = length($0) } END { print m }' "$TEST_TMP/lines.txt")" -le 100 ]
check annotate_source_escapes_control grep -q '\\x1b\[31mred' "$TEST_TMP/lines.txt"
check annotate_source_no_raw_escape sh -c "! grep -q \"$(printf '\033')\" '$TEST_TMP/lines.txt'"
"$PROSPECT" annotate -i "$data" --source --format json divide | python3 -c "
import json, sys
d = json.load(sys.stdin)
f = d['functions'][0]
assert f['function'] == 'divide'
assert sum(r['hits'] for r in f['lines']) == f['samples']
assert any(r['line'] == 14 and 'acc +=' in r['source'] for r in f['lines'])"
check annotate_source_json [ $? = 0 ]
# The default listing interleaves the text with the instructions.
"$PROSPECT" annotate -i "$data" divide > "$TEST_TMP/insn.txt"
check annotate_interleaves_text grep -Eq '^ +div.c:14   acc \+= \(i \* 7' "$TEST_TMP/insn.txt"
check annotate_no_source_text grep -Eq '^ +div.c:14$' <("$PROSPECT" annotate -i "$data" --no-source-text divide)

# The tree moved: file:line only, and a note naming the file; then found through --source-dir
# or --prefix-map.
mv "$tree" "$TEST_TMP/moved"
"$PROSPECT" annotate -i "$data" --wide divide > "$TEST_TMP/moved.txt"
check annotate_source_not_found_note grep -q "^# source not found: $tree/src/sub/div.c" "$TEST_TMP/moved.txt"
check annotate_source_not_found_file_line grep -Eq '^ +div.c:14$' "$TEST_TMP/moved.txt"
"$PROSPECT" annotate -i "$data" --wide --source-dir "$TEST_TMP/moved" divide > "$TEST_TMP/dir.txt"
check annotate_source_dir grep -Eq '^ +div.c:14   acc \+=' "$TEST_TMP/dir.txt"
check annotate_source_dir_says_where grep -q "^# source $tree/src/sub/div.c read from $TEST_TMP/moved/src/sub/div.c" "$TEST_TMP/dir.txt"
"$PROSPECT" annotate -i "$data" --prefix-map "$tree=$TEST_TMP/moved" divide > "$TEST_TMP/map.txt"
check annotate_prefix_map grep -Eq '^ +div.c:14   acc \+=' "$TEST_TMP/map.txt"
"$PROSPECT" annotate -i "$data" --prefix-map nothing divide >/dev/null 2>&1
check annotate_prefix_map_usage [ $? = 2 ]

# A FIFO where the source was: never opened for reading (no hang), treated as not found.
mkdir -p "$tree/src/sub"
mkfifo "$tree/src/sub/div.c"
timeout 60 "$PROSPECT" annotate -i "$data" --wide --source divide > "$TEST_TMP/fifo.txt" 2>&1; rc=$?
check annotate_source_fifo_no_hang [ $rc = 0 ]
check annotate_source_fifo_not_found grep -q "^# source not found: $tree/src/sub/div.c" "$TEST_TMP/fifo.txt"
# Without the text, --source still lists the lines with code by number.
check annotate_source_without_text grep -Eq '^ +[0-9.]+ +[0-9]+ +14  $' "$TEST_TMP/fifo.txt"

# Inline chains: leaf inlined into mid inlined into top. Each instruction's chain (JSON
# inline_chain, the text's "(inlined leaf < mid)") is the one binutils' addr2line -i gives.
build_workload annotate_inline annotate_inline -O2 -g || { fail annotate_inline_chain "cannot build"; exit 0; }
if perf record -q -o "$TEST_TMP/inl.data" -- "$WL/annotate_inline" 50000000 >/dev/null 2>&1; then
    "$PROSPECT" annotate -i "$TEST_TMP/inl.data" --format json top | python3 -c "
import json, sys
for i in json.load(sys.stdin)['functions'][0]['instructions']:
    if i['inlined']:
        print('%x %s' % (i['address'], ' '.join(i['inline_chain'])))" > "$TEST_TMP/inl.ours"
    bad=
    n=0
    while read -r addr chain; do
        n=$((n + 1))
        want=$(addr2line -i -f -e "$WL/annotate_inline" "0x$addr" | awk 'NR % 2 == 1' | head -n -1 | xargs)
        [ "$chain" = "$want" ] || bad="$bad 0x$addr ours '$chain' addr2line '$want';"
    done < "$TEST_TMP/inl.ours"
    if ! command -v addr2line >/dev/null; then
        skip annotate_inline_chain "binutils' addr2line is not installed"
    elif [ "$n" = 0 ]; then
        fail annotate_inline_chain "no inlined instruction listed"
    else
        check annotate_inline_chain [ -z "$bad" ]
    fi
    check annotate_inline_chain_text grep -q '(inlined leaf < mid)' <("$PROSPECT" annotate -i "$TEST_TMP/inl.data" top)
else
    fail annotate_inline_chain "perf record failed"
fi
