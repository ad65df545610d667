# SPDX-License-Identifier: MIT
# prospect annotate (issue 11): hits per instruction against perf annotate --stdio on the same
# perf.data (every instruction of 1% or more within 1 point), addresses against objdump, source
# lines from DWARF, AT&T and Intel syntax, CSV and JSON, errors.
. "$(dirname "$0")/lib.sh"

if ! command -v perf >/dev/null || ! perf record -q -o "$TEST_TMP/probe.data" -- true >/dev/null 2>&1; then
    skip annotate_perf "perf is not installed or cannot record here"
    exit 0
fi
build_workload annotate_div annotate_div -O2 -g || { fail annotate_perf "cannot build annotate_div"; exit 0; }
build_workload annotate_div_nodwarf annotate_div -O2 || { fail annotate_perf "cannot build"; exit 0; }
prog=$WL/annotate_div
data=$TEST_TMP/div.data
perf record -q -o "$data" -- "$prog" 20000000 >/dev/null 2>&1 ||
    { fail annotate_perf "perf record failed"; exit 0; }

# perf's lines "    82.99 :   11d2:   add ..." as address|percent (address without 0x).
perf_pct() {
    perf annotate --stdio -i "$data" "$1" 2>/dev/null |
        awk '$2 == ":" && $3 ~ /^[0-9a-f]+:$/ { a = $3; sub(":", "", a); print a "|" $1 }'
}
# Ours from the CSV: function,dso,address,hits,percent,...
our_csv() { "$PROSPECT" annotate -i "$data" --format csv "$@"; }
our_pct() { our_csv "$1" | awk -F, -v f="$1" '$1 == f { a = $3; sub("0x", "", a); print a "|" $5 }'; }

for fn in divide mix; do
    perf_pct $fn > "$TEST_TMP/$fn.perf"
    our_pct $fn > "$TEST_TMP/$fn.ours"
    # Every instruction either side shows at 1% or more is within 1 point on the other.
    bad=$(awk -F'|' 'NR == FNR { ours[$1] = $2; next } { perf[$1] = $2 }
        END { for (a in perf) if (perf[a] >= 1) { d = ours[a] - perf[a]; if (d < 0) d = -d;
                  if (!(a in ours) || d > 1) printf "%s perf %s ours %s; ", a, perf[a], ours[a] }
              for (a in ours) if (ours[a] >= 1 && !(a in perf)) printf "%s only ours %s; ", a, ours[a] }' \
        "$TEST_TMP/$fn.ours" "$TEST_TMP/$fn.perf")
    hot=$(awk -F'|' '$2 >= 1' "$TEST_TMP/$fn.perf" | wc -l)
    if [ "$hot" -eq 0 ]; then
        fail "annotate_${fn}_matches_perf" "perf annotate showed no instruction of 1% or more"
    elif [ -n "$bad" ]; then
        fail "annotate_${fn}_matches_perf" "$bad"
    else
        pass "annotate_${fn}_matches_perf"
    fi
    # The addresses are perf's and objdump's: every instruction of the function (objdump goes
    # on through the alignment padding up to the next symbol).
    cut -d'|' -f1 "$TEST_TMP/$fn.ours" > "$TEST_TMP/$fn.addrs"
    cut -d'|' -f1 "$TEST_TMP/$fn.perf" > "$TEST_TMP/$fn.paddrs"
    objdump -d --no-show-raw-insn "$prog" | awk -v f="<$fn>:" '
        $2 == f { on = 1; next } on && NF == 0 { exit } on { a = $1; sub(":", "", a); print a }' |
        head -n "$(wc -l < "$TEST_TMP/$fn.addrs")" > "$TEST_TMP/$fn.objdump"
    check "annotate_${fn}_addresses_are_perfs" cmp -s "$TEST_TMP/$fn.paddrs" "$TEST_TMP/$fn.addrs"
    check "annotate_${fn}_addresses_are_objdumps" \
        cmp -s "$TEST_TMP/$fn.objdump" "$TEST_TMP/$fn.addrs"
done

# The percentages of a function add up to 100; the hits to its sample count in the header.
our_csv divide > "$TEST_TMP/divide.csv"
sum=$(awk -F, 'NR > 1 { s += $5 } END { printf "%.0f", s }' "$TEST_TMP/divide.csv")
check annotate_percent_sums_to_100 [ "$sum" = 100 ]
hits=$(awk -F, 'NR > 1 { s += $4 } END { print s + 0 }' "$TEST_TMP/divide.csv")
"$PROSPECT" annotate -i "$data" divide > "$TEST_TMP/divide.txt"
check annotate_hits_sum_to_function_samples \
    grep -q "^divide  $prog  ($hits samples" "$TEST_TMP/divide.txt"

# Source lines: the div is the `acc += ...` line of the source (line 12), with its absolute path.
check annotate_csv_div_on_its_source_line \
    grep -Eq '^divide,[^,]*,0x[0-9a-f]+,[0-9]+,[0-9.]+,/[^,]*/annotate_div.c,12,,"?div' \
    "$TEST_TMP/divide.csv"
# mix_step is inlined into mix: its instructions are named so in the text and the CSV.
check annotate_inlined_named grep -Eq '^mix,.*,mix_step,"?(imul|xor|shr)' \
    <(our_csv mix)
check annotate_text_interleaves_source grep -Eq '^ +annotate_div.c:12   acc \+=' "$TEST_TMP/divide.txt"
# The loop's backward jump: marked, its target named as objdump does and marked as landed on.
check annotate_backward_jump_marked \
    grep -Eq ': \^ j[a-z]+ +[0-9a-f]+ <divide\+0x[0-9a-f]+>$' "$TEST_TMP/divide.txt"
check annotate_jump_target_marked grep -Eq '^ +[0-9a-f]+:> ' "$TEST_TMP/divide.txt"
check annotate_header_explains_skid grep -q "hits of a.*div land on the next instruction" \
    <(tr '\n' ' ' < "$TEST_TMP/divide.txt" | sed 's/ # / /g')
# Instructions without hits are listed too (blank columns), AT&T by default.
check annotate_cold_instructions_listed grep -Eq '^ {18}[0-9a-f]+: .*ret' "$TEST_TMP/divide.txt"
check annotate_att_default grep -q '%r' "$TEST_TMP/divide.txt"
"$PROSPECT" annotate -i "$data" --intel divide > "$TEST_TMP/intel.txt"
check annotate_intel_syntax sh -c "! grep -Eq '^ .*:.*%r' '$TEST_TMP/intel.txt' &&
    grep -q 'div .*rcx' '$TEST_TMP/intel.txt'"
"$PROSPECT" annotate -i "$data" -M intel divide | cmp -s - "$TEST_TMP/intel.txt"
check annotate_perf_M_intel [ $? = 0 ]

# --dso and --comm choose; a filter that matches nothing lists nothing (status 1).
# (divide and mix, and whatever else of the program a stray sample hit, such as _start; never
# a function of another file, which the unfiltered listing has: ld.so's at least.)
"$PROSPECT" annotate -i "$data" --dso annotate_div --top 0 |
    grep -E '^[^ #].*  \([0-9]+ samples?, ' > "$TEST_TMP/dso.txt"
check annotate_dso_filter [ "$(grep -cE '^(divide|mix)  ' "$TEST_TMP/dso.txt")" = 2 -a \
    -z "$(grep -v '/annotate_div  (' "$TEST_TMP/dso.txt")" ]
"$PROSPECT" annotate -i "$data" --comm nosuchcomm >/dev/null 2>&1
check annotate_comm_filter_empty [ $? = 1 ]
"$PROSPECT" annotate -i "$data" --comm annotate_div divide | grep -q '^divide '
check annotate_comm_filter [ $? = 0 ]

# Default: functions with hits, hottest first; --top limits them.
"$PROSPECT" annotate -i "$data" > "$TEST_TMP/all.txt"
first=$(grep -E '^[^ #].*  \(' "$TEST_TMP/all.txt" | head -1 | cut -d' ' -f1)
check annotate_default_hottest_first [ "$first" = divide ]
n=$("$PROSPECT" annotate -i "$data" --top 1 | grep -cE '^[^ #].*  \([0-9]+ samples')
check annotate_top_limits [ "$n" = 1 ]
"$PROSPECT" annotate -i "$data" --format json divide mix > "$TEST_TMP/a.json"
check annotate_json_valid python3 -c "
import json, sys
d = json.load(open(sys.argv[1]))
f = {x['function']: x for x in d['functions']}
assert set(f) == {'divide', 'mix'}, f.keys()
assert sum(i['hits'] for i in f['divide']['instructions']) == f['divide']['samples']
assert any(i['line'] == 12 for i in f['divide']['instructions'])
" "$TEST_TMP/a.json"

# report --sort srcline: the rows of the workload's lines are perf's (same samples: within 0.1
# point), in CSV with the full path and the line apart; "??:0" where a file has no DWARF.
perf report -i "$data" --stdio --sort srcline 2>/dev/null |
    awk '$1 ~ /%$/ && $2 ~ /^annotate_div.c:/ { sub("%", "", $1); print $2 "|" $1 }' > "$TEST_TMP/sl.perf"
"$PROSPECT" report -i "$data" --sort srcline |
    awk '$1 ~ /%$/ { sub("%", "", $1); print $2 "|" $1 }' > "$TEST_TMP/sl.ours"
bad=$(awk -F'|' 'NR == FNR { ours[$1] = $2; next } $2 >= 0.5 { d = ours[$1] - $2; if (d < 0) d = -d;
        if (!($1 in ours) || d > 0.1) printf "%s perf %s ours %s; ", $1, $2, ours[$1] }' \
    "$TEST_TMP/sl.ours" "$TEST_TMP/sl.perf")
if [ ! -s "$TEST_TMP/sl.perf" ]; then
    fail report_srcline_matches_perf "perf report --sort srcline showed no row of the workload"
else
    check report_srcline_matches_perf [ -z "$bad" ]
fi
check report_srcline_csv grep -Eq '^[0-9.]+,[0-9]+,[0-9]+,annotate_div.c:12,/[^,]*/annotate_div.c,12$' \
    <("$PROSPECT" report -i "$data" --sort srcline --format csv)
"$PROSPECT" report -i "$data" --sort srcline --format json | python3 -c "
import json, sys
d = json.load(sys.stdin)
assert any(r['srcline'] == 'annotate_div.c:12' and r['line'] == 12 for r in d['rows'])"
check report_srcline_json [ $? = 0 ]

# Without DWARF: the listing still comes, and says why there are no lines.
ndata=$TEST_TMP/nodwarf.data
if perf record -q -o "$ndata" -- "$WL/annotate_div_nodwarf" 5000000 >/dev/null 2>&1; then
    "$PROSPECT" annotate -i "$ndata" divide > "$TEST_TMP/nod.txt" 2>&1
    check annotate_without_dwarf_says_so grep -q "no DWARF line information" "$TEST_TMP/nod.txt"
    check annotate_without_dwarf_lists grep -Eq 'div' "$TEST_TMP/nod.txt"
    check report_srcline_without_dwarf grep -Eq '^ +[0-9.]+%  \?\?:0$' \
        <("$PROSPECT" report -i "$ndata" --sort srcline)
else
    fail annotate_without_dwarf "perf record failed"
fi

# A program rebuilt after its recording: the code that ran comes from the build-id cache
# (prospect record keeps a copy), never from the new file at the same path.
export PERF_BUILDID_DIR=$TEST_TMP/bidcache
mkdir -p "$TEST_TMP/rb"
rb=$TEST_TMP/rb/prog
src=$(dirname "$0")/../workloads/annotate_div.c
if gcc -O2 -g -o "$rb" "$src" && "$PROSPECT" record -o "$TEST_TMP/rb.data" -- "$rb" 5000000 \
        >/dev/null 2>&1; then
    "$PROSPECT" annotate -i "$TEST_TMP/rb.data" divide > "$TEST_TMP/rb.before"
    gcc -O0 -g -o "$rb" "$src"
    "$PROSPECT" annotate -i "$TEST_TMP/rb.data" divide > "$TEST_TMP/rb.after"
    check annotate_rebuilt_uses_buildid_cache cmp -s <(grep -v '^# code read from' "$TEST_TMP/rb.after") \
        "$TEST_TMP/rb.before"
    check annotate_rebuilt_says_where grep -q "^# code read from $PERF_BUILDID_DIR/" "$TEST_TMP/rb.after"
    out=$(PERF_BUILDID_DIR=$TEST_TMP/empty "$PROSPECT" annotate -i "$TEST_TMP/rb.data" divide 2>&1)
    check annotate_rebuilt_without_cache_says_why grep -q "no samples in a function named \
'divide'.*samples are in code without a function name, as in $rb (changed on disk" <<<"$(echo $out)"
    # --symfs (perf's option, as report has it): the code is read from a copy of the
    # recorded tree, here the one kept in the build-id cache put at its recorded path.
    # The program's own copy: a run with samples in ld.so or libc keeps theirs too, and the
    # first file find happened to list was once libc's.
    bid=$(find "$PERF_BUILDID_DIR$rb" -type f -name elf | head -1)
    mkdir -p "$TEST_TMP/symfs$(dirname "$rb")"
    [ -n "$bid" ] && cp "$bid" "$TEST_TMP/symfs$rb"
    # and the libraries it ran with, as a copy of the tree would (else a sample in ld.so is
    # "in code without a function symbol" there, said in the listing's header)
    for lib in /lib64/ld-linux-x86-64.so.2 /lib/x86_64-linux-gnu/libc.so.6 \
               /usr/lib/x86_64-linux-gnu/ld-linux-x86-64.so.2 /usr/lib/x86_64-linux-gnu/libc.so.6; do
        [ -e "$lib" ] && cp --parents -L "$lib" "$TEST_TMP/symfs" 2>/dev/null
    done
    out=$(PERF_BUILDID_DIR=$TEST_TMP/empty "$PROSPECT" annotate -i "$TEST_TMP/rb.data" \
          --symfs "$TEST_TMP/symfs" divide 2>&1)
    check annotate_symfs_reads_the_copy cmp -s <(grep -v '^# code read from' <<<"$out") \
        "$TEST_TMP/rb.before"
    "$PROSPECT" annotate -i "$TEST_TMP/rb.data" --symfs "$TEST_TMP/nosuch" divide >/dev/null 2>&1
    check annotate_symfs_missing_is_usage [ $? = 2 ]
else
    fail annotate_rebuilt "cannot build or record"
fi

# Errors: one line each, status 1 (nothing to show) or 2 (usage).
out=$("$PROSPECT" annotate -i "$data" nosuch 2>&1); rc=$?
check annotate_unknown_symbol [ $rc = 1 ]
check annotate_unknown_symbol_names_it grep -q "no samples in a function named 'nosuch'" <<<"$out"
# A file without samples (one every 10 s of a command that ends at once) says so, not that no
# function is named.
"$PROSPECT" record -c 10000000000 -o "$TEST_TMP/empty.data" -- true >/dev/null 2>&1
out=$("$PROSPECT" annotate -i "$TEST_TMP/empty.data" 2>&1); rc=$?
check annotate_empty_file_says_so [ $rc = 1 -a -n "$(grep "empty.data: no samples of .* in the file" <<<"$out")" ]
"$PROSPECT" annotate -i "$data" --format xml >/dev/null 2>&1
check annotate_bad_format_is_usage [ $? = 2 ]
"$PROSPECT" annotate -i "$data" -M foo >/dev/null 2>&1
check annotate_bad_style_is_usage [ $? = 2 ]
if perf record -q -e major-faults -o "$TEST_TMP/empty.data" -- true >/dev/null 2>&1; then
    out=$("$PROSPECT" annotate -i "$TEST_TMP/empty.data" 2>&1); rc=$?
    check annotate_no_samples [ $rc = 1 -a "$(echo "$out" | wc -l)" = 1 ]
else
    fail annotate_no_samples "perf record -e major-faults failed"
fi
# A file cut short: what was read is listed, with a warning naming the damage.
size=$(stat -c %s "$data")
head -c $((size * 2 / 3)) "$data" > "$TEST_TMP/cut.data"
"$PROSPECT" annotate -i "$TEST_TMP/cut.data" divide > "$TEST_TMP/cut.out" 2> "$TEST_TMP/cut.err"
check annotate_cut_file_warns grep -q "warning" "$TEST_TMP/cut.err"
check annotate_cut_file_lists grep -q "^divide " "$TEST_TMP/cut.out"
out=$("$PROSPECT" annotate -i "$TEST_TMP/none.data" 2>&1); rc=$?
check annotate_missing_file [ $rc = 1 -a "$(echo "$out" | wc -l)" = 1 ]
"$PROSPECT" annotate --help | grep -q -- '--intel'
check annotate_help [ $? = 0 ]
