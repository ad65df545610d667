# SPDX-License-Identifier: MIT
# Call graphs from frame pointers (issue 10, first part): record -g / --call-graph fp, report
# --children (perf's Children/Self table) and --format folded (FlameGraph's collapsed stacks),
# on Prospect's and perf's -g files, against perf report and perf script.
. "$(dirname "$0")/lib.sh"

build_workload callgraph callgraph -O0 -fno-omit-frame-pointer ||
    { fail callgraph_build "cannot build tests/workloads/callgraph.c"; exit 0; }
CG=$WL/callgraph

# --call-graph takes perf's modes (dwarf and its sizes: tests/e2e/callgraph_unwind.sh).
"$PROSPECT" record --call-graph frames -o "$TEST_TMP/d.data" -- true >/dev/null 2>&1
check record_call_graph_bad_mode_is_usage_error [ $? -eq 2 ]

# Prospect's own recording, with perf's long option.
if ! "$PROSPECT" record --call-graph fp -o "$TEST_TMP/p.data" -- "$CG" 2000 >/dev/null 2>&1; then
    fail record_call_graph_fp "prospect record --call-graph fp failed"
    exit 0
fi

out=$("$PROSPECT" report -i "$TEST_TMP/p.data" --children --format folded 2>&1)
check report_children_and_folded_exclude_each_other [ $? -eq 2 -a -n "$(grep "choose one" <<<"$out")" ]

# A file without call chains: said, and every stack is the sampled function alone.
"$PROSPECT" record -o "$TEST_TMP/flat.data" -- "$CG" 300 >/dev/null 2>&1
out=$("$PROSPECT" report -i "$TEST_TMP/flat.data" --children -g none 2>&1 >"$TEST_TMP/flat.out")
check children_without_chains_says_so [ -n "$(grep "have no call chains (record with -g)" <<<"$out")" \
    -a -n "$(grep "\[\.\] leaf$" "$TEST_TMP/flat.out")" ]
# ... and so no row has more Children than Self: no caller is credited (via_a may still show
# up, with its own samples only).
check children_without_chains_self_only [ -z "$(awk '!/^#/ && NF && $1 != $2' "$TEST_TMP/flat.out")" ]

# share FILE SYMBOL [OPTIONS]: the Children percentage of SYMBOL in our table.
share() {
    "$PROSPECT" report -i "$1" --children -g none "${@:3}" |
        awk -v s="$2" '$NF == s { sub("%", "", $1); print $1; exit }'
}
in_range() { awk -v v="${1:-x}" -v lo="$2" -v hi="$3" 'BEGIN { exit !(v != "x" && v >= lo && v <= hi) }'; }
a=$(share "$TEST_TMP/p.data" via_a); b=$(share "$TEST_TMP/p.data" via_b)
m=$(share "$TEST_TMP/p.data" main); l=$(share "$TEST_TMP/p.data" leaf)
check children_known_structure_via_a_3_of_5 in_range "$a" 50 70
check children_known_structure_via_b_2_of_5 in_range "$b" 30 50
check children_known_structure_main_and_leaf_whole in_range "$(awk -v m="${m:-0}" -v l="${l:-0}" \
    'BEGIN { print (m < l ? m : l) }')" 90 100

# Folded: the two paths, counts adding up to the samples.
"$PROSPECT" report -i "$TEST_TMP/p.data" --format folded > "$TEST_TMP/p.folded"
check folded_has_path_via_a grep -q '^callgraph;.*;main;via_a;leaf [0-9]*$' "$TEST_TMP/p.folded"
check folded_has_path_via_b grep -q '^callgraph;.*;main;via_b;leaf [0-9]*$' "$TEST_TMP/p.folded"
total=$("$PROSPECT" report -i "$TEST_TMP/p.data" --children -g none | awk '/^# Samples:/ { print $3 }')
check folded_counts_add_up_to_samples [ "$(awk '{ n += $NF } END { print n + 0 }' \
    "$TEST_TMP/p.folded")" = "${total:-x}" ]

# A call chain longer than its record (hostile input): one line naming the file and offset,
# the sample left out, the rest reported.
python3 - "$TEST_TMP/p.data" "$TEST_TMP/bad.data" <<'PY'
import struct, sys
b = bytearray(open(sys.argv[1], 'rb').read())
off, size = struct.unpack_from('<QQ', b, 40)
pos = off
while pos + 8 <= off + size:
    typ, misc, sz = struct.unpack_from('<IHH', b, pos)
    if sz < 8:
        break
    if typ == 9 and sz > 64:    # SAMPLE: id ip pid/tid time cpu period, then nr
        struct.pack_into('<Q', b, pos + 8 + 48, 1 << 40)
        break
    pos += sz
open(sys.argv[2], 'wb').write(b)
PY
for mode in --children "--format folded"; do
    out=$("$PROSPECT" report -i "$TEST_TMP/bad.data" $mode 2>&1 >"$TEST_TMP/bad.out")
    check "damaged_chain_named_${mode##*[- ]}" [ $? -eq 0 -a -s "$TEST_TMP/bad.out" -a \
        -n "$(grep "bad.data: offset 0x[0-9a-f]*: sample does not match" <<<"$out")" ]
done

if ! command -v perf >/dev/null || ! perf record -q -o "$TEST_TMP/probe.data" -- true >/dev/null 2>&1; then
    skip callgraph_perf_agreement "perf is not installed or cannot record here"
    exit 0
fi

# perf's and our Children tables as key|key...|children lines (keys: dso,sym or comm,dso,sym;
# our text columns are Children, Self, [Command,] Shared Object, then "[.] symbol").
# perf names a caller frame by its return address, Prospect by the call before it
# (docs/callgraph.md): ld.so's _start ends with its call to _dl_start, so a sample taken
# during that call is under _start for Prospect and under _dl_start_user for perf. Addresses
# outside every map are one [unknown] row for Prospect, one row per address for perf
# (docs/callgraph.md): perf's raw-address [unknown] rows (a 0 or a stray small value in a
# chain) are not compared.
perf_children() {
    perf report -i "$1" --children --stdio --sort "$2" -g none -t '|' --percent-limit 0 \
        2>/dev/null | grep -v '^#' | grep . |
        awk -F'|' '{ for (i = 1; i <= NF; i++) gsub(/^ +| +$/, "", $i); sub("%", "", $1);
                     if ($NF == "[.] _dl_start_user" && $(NF - 1) ~ /^ld-linux/) $NF = "[.] _start"
                     if ($NF ~ /^\[[.k]\] (0x)?[0-9a-f]+$/ && $(NF - 1) == "[unknown]") next
                     k = $3; for (i = 4; i <= NF; i++) k = k "|" $i
                     # perf may print both ld.so rows (disjoint samples): the one _start row of
                     # Prospect holds their sum
                     if ($NF == "[.] _start" && $(NF - 1) ~ /^ld-linux/) { ld[k] += $1; next }
                     print k "|" $1 }
                   END { for (k in ld) print k "|" ld[k] }'
}
our_children() {
    "$PROSPECT" report -i "$1" --children -g none --sort "$2" --wide | grep -v '^#' |
        awk -v n="$(tr ',' '\n' <<<"$2" | grep -vc sym)" '{ c = $1; sub("%", "", c); k = ""
            for (i = 3; i < 3 + n; i++) k = k $i "|"
            s = $0; for (i = 0; i < 2 + n; i++) sub(/^ *[^ ]+/, "", s); sub(/^ +/, "", s)
            print k s "|" c }'
}
# agree NAME FILE [KEYS]: every perf row of 1% or more has ours within 1 point.
agree() {
    local name=$1 data=$2 keys=${3:-dso,sym} bad rows
    perf_children "$data" "$keys" > "$TEST_TMP/$name.perf"
    our_children "$data" "$keys" > "$TEST_TMP/$name.ours"
    bad=$(awk -F'|' 'NR == FNR { k = $1; for (i = 2; i < NF; i++) k = k "|" $i; ours[k] = $NF; next }
        $NF >= 1 { k = $1; for (i = 2; i < NF; i++) k = k "|" $i; d = ours[k] - $NF; if (d < 0) d = -d;
                   if (!(k in ours) || d > 1) printf "%s perf %s%% ours %s%%; ", k, $NF, ours[k] }' \
        "$TEST_TMP/$name.ours" "$TEST_TMP/$name.perf")
    rows=$(awk -F'|' '$NF >= 1' "$TEST_TMP/$name.perf" | wc -l)
    if [ "$rows" -lt 3 ]; then
        fail "${name}_children_match_perf" "perf printed $rows rows of 1% or more"
    elif [ -n "$bad" ]; then
        fail "${name}_children_match_perf" "$bad"
    else
        pass "${name}_children_match_perf"
    fi
}

agree prospect_g "$TEST_TMP/p.data"
# Caller and callee trees: the same shares as the Children table, in the known structure.
# node FILE DEPTH NAME OPTIONS...: the share of the first node NAME at DEPTH (0: the root).
node() {
    "$PROSPECT" report -i "$1" "${@:4}" | awk -v d="$2" -v s="$3" '!/^#/ {
        match($0, /^ *[0-9.]+%  */); ind = (RLENGTH - 12) / 2
        if (ind == d && $2 == s) { sub("%", "", $1); print $1; exit } }'
}
# In leaf's callers tree via_a weighs the samples in leaf under it: its Children share less
# the few samples taken in via_a itself (within a point).
lo=$(awk -v a="${a:-0}" 'BEGIN { print a - 1 }')
check callers_of_leaf_via_a_as_children in_range "$(node "$TEST_TMP/p.data" 1 via_a --callers leaf)" "$lo" "${a:-x}"
check callers_of_leaf_main_above_via_a in_range "$(node "$TEST_TMP/p.data" 2 main --callers leaf)" "$lo" "${a:-x}"
# In main's callees tree via_b weighs its Children share, less the samples taken in via_b's
# prologue before it pushed its frame pointer (their chain skips main: within half a point).
lob=$(awk -v b="${b:-0}" 'BEGIN { print b - 0.5 }')
check callees_of_main_via_b_as_children in_range "$(node "$TEST_TMP/p.data" 1 via_b --callees main)" "$lob" "${b:-x}"
check callees_percent_limit_hides_subtree [ -z "$(node "$TEST_TMP/p.data" 1 via_b --callees main \
    --percent-limit 50)" -a -n "$(node "$TEST_TMP/p.data" 1 via_a --callees main --percent-limit 50)" ]
out=$("$PROSPECT" report -i "$TEST_TMP/p.data" --callers no_such_function 2>&1 >/dev/null)
check callers_of_unknown_function_fails [ $? -eq 1 -a -n "$(grep "no call stack holds a function named 'no_such_function'" <<<"$out")" ]

# Filters hide rows, they do not rescale them (perf's --percentage absolute): two programs,
# one filtered out.
cp "$CG" "$WL/cg_rec"
"$PROSPECT" record -g -o "$TEST_TMP/two.data" -- sh -c "'$CG' 1000; '$WL/cg_rec' 1000 rec" \
    >/dev/null 2>&1
all=$(share "$TEST_TMP/two.data" via_a); only=$(share "$TEST_TMP/two.data" via_a --comm callgraph)
check children_filter_keeps_absolute_shares [ -n "$all" -a "$only" = "$all" -a \
    -z "$(share "$TEST_TMP/two.data" rec --comm callgraph)" ]
# perf's default table (--sort comm,dso,sym): three commands (sh, callgraph, cg_rec).
agree two_commands "$TEST_TMP/two.data" comm,dso,sym
if precord -g -o "$TEST_TMP/perf.data" -- "$CG" 2000; then
    agree perf_g "$TEST_TMP/perf.data"
    # perf script's stacks collapsed here (function names, kernel ones suffixed _[k] as
    # stackcollapse-perf.pl --all does): the stacks through main are ours, line for line.
    perf script -i "$TEST_TMP/perf.data" -F comm,ip,sym 2>/dev/null |
        awk '/^[^\t]/ { comm = $1; n = 0; next }
             /^\t/ { f[++n] = $2 ($1 ~ /^ffff/ ? "_[k]" : ""); next }
             /^$/ { if (n) { s = comm; for (i = n; i >= 1; i--) s = s ";" f[i]; c[s]++ } n = 0 }
             END { if (n) { s = comm; for (i = n; i >= 1; i--) s = s ";" f[i]; c[s]++ }
                   for (s in c) print s, c[s] }' | grep ';main;' | sort > "$TEST_TMP/perf.folded"
    "$PROSPECT" report -i "$TEST_TMP/perf.data" --format folded | grep ';main;' |
        sort > "$TEST_TMP/ours.folded"
    if [ ! -s "$TEST_TMP/perf.folded" ]; then
        fail folded_matches_perf_script "perf script gave no stack through main"
    else
        # Line for line, except where a sample fell in leaf's prologue or epilogue: perf's
        # chain then skips leaf's caller ("main;leaf"), and Prospect's frameless-leaf fix
        # puts that sample under via_a or via_b. So: no "main;leaf" line of ours, every other
        # perf line at least as many in ours, and the extra samples exactly perf's hole.
        check folded_matches_perf_script awk '
            NR == FNR { p[$1] = $2; next }
            { o[$1] = $2 }
            END {
                for (k in p) if (k ~ /;main;leaf$/) hole += p[k]; else if (!(k in o) || o[k] < p[k]) exit 1
                for (k in o) { if (k ~ /;main;leaf$/ || !(k in p)) exit 1; extra += o[k] - p[k] }
                exit extra != hole
            }' "$TEST_TMP/perf.folded" "$TEST_TMP/ours.folded"
    fi
else
    skip perf_g_children_match_perf "perf record -g failed three times"
fi

# Recursion: rec is on the stack 5 times per sample and counts once (perf's semantics).
"$PROSPECT" record -g -o "$TEST_TMP/rec.data" -- "$CG" 800 rec >/dev/null 2>&1
r=$(share "$TEST_TMP/rec.data" rec)
check children_recursive_symbol_counts_once in_range "$r" 90 100
agree recursive "$TEST_TMP/rec.data"
