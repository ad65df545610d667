# SPDX-License-Identifier: MIT
# prospect annotate on programs nobody here wrote (issue 11): Debian's gzip (no symbols at all:
# listed over its unwind tables' function ranges) and xz (liblzma stripped to its dynamic
# symbols: the a->b bracket's gap listed), checked against objdump (instruction addresses) and
# perf report (each address's share of the samples); and the cache of decompressed debug files.
. "$(dirname "$0")/lib.sh"
unset DEBUGINFOD_URLS   # no network: files not found here stay not found
export PERF_BUILDID_DIR=$TEST_TMP/perf-buildid-cache   # perf record's copies: the test's own

if ! command -v perf >/dev/null || ! perf record -q -o "$TEST_TMP/probe.data" -- true >/dev/null 2>&1; then
    skip annotate_programs "perf is not installed or cannot record here"
    exit 0
fi
export XDG_CACHE_HOME=$TEST_TMP/cache
head -c 3000000 /dev/urandom | base64 > "$TEST_TMP/in.txt"
cat "$TEST_TMP/in.txt" "$TEST_TMP/in.txt" "$TEST_TMP/in.txt" > "$TEST_TMP/in3.txt"

# our_vs_objdump NAME CSV PROG LO HI: the listing's addresses are objdump's over [LO, HI).
our_vs_objdump() {
    local name=$1 csv=$2 prog=$3 lo=$4 hi=$5
    awk -F, 'NR > 1 { a = $3; sub("0x", "", a); print a }' "$csv" > "$TEST_TMP/$name.ours"
    objdump -d --no-show-raw-insn --start-address="$lo" --stop-address="$hi" "$prog" |
        awk '$1 ~ /^[0-9a-f]+:$/ { a = $1; sub(":", "", a); print a }' > "$TEST_TMP/$name.objdump"
    check "${name}_addresses_are_objdumps" cmp -s "$TEST_TMP/$name.ours" "$TEST_TMP/$name.objdump"
}
# our_vs_perf NAME CSV DATA SAMPLES DSO: every address perf report shows at 0.5% or more of all
# samples in the listed range has the same share in ours (within 0.2 point: the same samples).
our_vs_perf() {
    local name=$1 csv=$2 data=$3 total=$4 dso=$5
    perf report -i "$data" --stdio --sort dso,sym 2>/dev/null |
        awk -v d="$dso" '$2 == d && $3 == "[.]" && $4 ~ /^0x/ { sub("%", "", $1); a = $4;
            sub("^0x0*", "", a); print a "|" $1 }' > "$TEST_TMP/$name.perf"
    awk -F, -v t="$total" 'NR > 1 { a = $3; sub("0x", "", a); printf "%s|%.2f\n", a, 100 * $4 / t }' \
        "$csv" > "$TEST_TMP/$name.oursp"
    bad=$(awk -F'|' 'NR == FNR { ours[$1] = $2; next } { perf[$1] = $2 }
        END { for (a in ours) if (perf[a] >= 0.5 || ours[a] >= 0.5) { d = ours[a] - perf[a];
              if (d < 0) d = -d; if (d > 0.2) printf "%s ours %s perf %s; ", a, ours[a], perf[a] } }' \
        "$TEST_TMP/$name.oursp" "$TEST_TMP/$name.perf")
    if ! awk -F'|' '$2 >= 0.5 { f = 1 } END { exit !f }' "$TEST_TMP/$name.oursp"; then
        fail "${name}_shares_are_perfs" "no instruction with hits"
    else
        check "${name}_shares_are_perfs" [ -z "$bad" ]
    fi
}

# gzip: no symbols; the hottest range comes from its .eh_frame.
gz=$(command -v gzip)
if [ -n "$gz" ] && ! readelf -sW "$gz" 2>/dev/null | awk '$4 == "FUNC" && $7 != "UND"' | grep -q .; then
    perf record -q -o "$TEST_TMP/gz.data" -- "$gz" -c -6 "$TEST_TMP/in3.txt" >/dev/null 2>&1 ||
        fail annotate_gzip "perf record failed"
    "$PROSPECT" annotate -i "$TEST_TMP/gz.data" --top 1 --format csv > "$TEST_TMP/gz.csv" 2>/dev/null
    name=$(awk -F, 'NR == 2 { print $1 }' "$TEST_TMP/gz.csv")
    if [[ "$name" =~ ^gzip:(0x[0-9a-f]+)-(0x[0-9a-f]+)$ ]]; then
        pass annotate_gzip_range_named
        our_vs_objdump annotate_gzip "$TEST_TMP/gz.csv" "$gz" "${BASH_REMATCH[1]}" "${BASH_REMATCH[2]}"
        total=$("$PROSPECT" annotate -i "$TEST_TMP/gz.data" --top 1 --format json | python3 -c "import json,sys; print(json.load(sys.stdin)['samples'])")
        our_vs_perf annotate_gzip "$TEST_TMP/gz.csv" "$TEST_TMP/gz.data" "$total" gzip
        check annotate_gzip_text_title grep -q "^$name  $gz  (" <("$PROSPECT" annotate -i "$TEST_TMP/gz.data" --top 1 2>/dev/null)
        # Every range listed is one whole FDE as readelf shows them (not the part of a function
        # where one CFA rule holds: a hot loop's samples spread over several such "functions").
        readelf -wf "$gz" | awk '$4 == "FDE" { sub("pc=", "", $6); split($6, r, "[.][.]");
            sub("^0*", "", r[1]); sub("^0*", "", r[2]); print "0x" r[1] "-0x" r[2] }' |
            sort > "$TEST_TMP/gz.fdes"
        "$PROSPECT" annotate -i "$TEST_TMP/gz.data" --top 0 --format csv 2>/dev/null |
            awk -F, 'NR > 1 && $1 ~ /^gzip:/ { sub("gzip:", "", $1); print $1 }' | sort -u \
            > "$TEST_TMP/gz.ranges"
        notfde=$(comm -23 "$TEST_TMP/gz.ranges" "$TEST_TMP/gz.fdes" | head -3 | tr '\n' ' ')
        check annotate_gzip_ranges_are_whole_fdes [ -s "$TEST_TMP/gz.ranges" -a -z "$notfde" ]
        [ -z "$notfde" ] || echo "  (not FDE ranges: $notfde)"
    else
        fail annotate_gzip_range_named "first function '$name'"
    fi
else
    skip annotate_gzip "gzip is missing or has symbols here"
fi

# xz: liblzma keeps only its exported symbols; its hot static code is a bracket's gap.
xz=$(command -v xz)
if [ -n "$xz" ]; then
    perf record -q -o "$TEST_TMP/xz.data" -- "$xz" -c -1 "$TEST_TMP/in.txt" >/dev/null 2>&1 ||
        fail annotate_xz "perf record failed"
    "$PROSPECT" annotate -i "$TEST_TMP/xz.data" --top 0 --format json > "$TEST_TMP/xz.json" 2>/dev/null
    read -r fn lo hi lib < <(python3 -c "
import json, sys
d = json.load(open(sys.argv[1]))
b = [f for f in d['functions'] if '->' in f['function'] and 'instructions' in f]
if b:
    f = max(b, key=lambda f: f['samples'])
    print(f['function'], hex(f['start']), hex(f['start'] + f['size']), f['dso'])
" "$TEST_TMP/xz.json")
    if [ -n "${fn:-}" ]; then
        pass annotate_xz_bracket_listed
        "$PROSPECT" annotate -i "$TEST_TMP/xz.data" --format csv "$fn" > "$TEST_TMP/xz.csv" 2>/dev/null
        our_vs_objdump annotate_xz_bracket "$TEST_TMP/xz.csv" "$lib" "$lo" "$hi"
        total=$(python3 -c "import json,sys; print(json.load(open(sys.argv[1]))['samples'])" "$TEST_TMP/xz.json")
        our_vs_perf annotate_xz_bracket "$TEST_TMP/xz.csv" "$TEST_TMP/xz.data" "$total" "$(basename "$lib")"
        # Every listing of the file in text (liblzma's long path in the headings and notes,
        # kernel routines named with a long reason) within 100 columns.
        w=$("$PROSPECT" annotate -i "$TEST_TMP/xz.data" --top 0 2>/dev/null | tee "$TEST_TMP/xz.txt" |
            awk '{ if (length($0) > m) m = length($0) } END { print m + 0 }')
        check annotate_xz_text_fits_100_columns [ "$w" -gt 0 -a "$w" -le 100 ]
        check annotate_xz_heading_names_file grep -q "^$fn  /usr/[^ ]*  ([0-9]* samples, " \
            "$TEST_TMP/xz.txt"
    else
        fail annotate_xz_bracket_listed "no a->b bracket was listed"
    fi
    # A "(start)->a" or "a->(end)" bracket of the report, or its part (no gap known: listed
    # over its FDEs) is found by the report's name, with the report's samples.
    IFS='|' read -r rs rn < <("$PROSPECT" report -i "$TEST_TMP/xz.data" --flat -n -t '|' \
        --dso "$(basename "${lib:-liblzma.so.5}")" 2>/dev/null |
        awk -F'|' '$5 ~ /\(end\)(\+0x[0-9a-f]+)?$|^\[\.\] \(start\)/ { sub("^\\[\\.\\] ", "", $5); print $2 "|" $5; exit }')
    if [ -n "${rn:-}" ]; then
        as=$("$PROSPECT" annotate -i "$TEST_TMP/xz.data" --format json "$rn" 2>/dev/null |
             python3 -c "import json,sys; print(sum(f['samples'] for f in json.load(sys.stdin)['functions']))")
        check annotate_xz_report_bracket_by_name [ "${as:-x}" = "$(tr -d ' ' <<<"$rs")" ]
    else
        skip annotate_xz_report_bracket_by_name "no (start)/(end) bracket got samples in this run"
    fi
else
    skip annotate_xz "xz is not installed"
fi

# Compressed DWARF (gcc -gz): kept decompressed in a private cache; the same lines either way.
build_workload annotate_div_gz annotate_div -O2 -g -gz=zlib -Wl,--build-id ||
    { fail annotate_debug_cache "cannot build with -gz"; exit 0; }
if readelf -SW "$WL/annotate_div_gz" | grep -q '\.debug_info .* C '; then
    export XDG_CACHE_HOME=$TEST_TMP/cache-gz
    perf record -q -o "$TEST_TMP/gzd.data" -- "$WL/annotate_div_gz" 5000000 >/dev/null 2>&1
    PROSPECT_DEBUG_CACHE=0 "$PROSPECT" report -i "$TEST_TMP/gzd.data" --sort srcline > "$TEST_TMP/nocache.txt"
    check annotate_debug_cache_off_makes_none [ ! -e "$XDG_CACHE_HOME/prospect/debug" ]
    "$PROSPECT" report -i "$TEST_TMP/gzd.data" --sort srcline > "$TEST_TMP/cache1.txt"
    "$PROSPECT" report -i "$TEST_TMP/gzd.data" --sort srcline > "$TEST_TMP/cache2.txt"
    bid=$(readelf -n "$WL/annotate_div_gz" | awk '/Build ID/ { print $3 }')
    copy=$XDG_CACHE_HOME/prospect/debug/$bid.debug
    check annotate_debug_cache_made [ -f "$copy" ]
    check annotate_debug_cache_private sh -c "[ \"\$(stat -c %a '$XDG_CACHE_HOME/prospect/debug')\" = 700 ] &&
        [ \"\$(stat -c %a '$copy')\" = 600 ]"
    check annotate_debug_cache_decompressed sh -c "! readelf -SW '$copy' | grep -q '\.debug_info .* C '"
    check annotate_debug_cache_same_lines sh -c "cmp -s '$TEST_TMP/nocache.txt' '$TEST_TMP/cache1.txt' &&
        cmp -s '$TEST_TMP/nocache.txt' '$TEST_TMP/cache2.txt' && grep -q 'annotate_div.c:12' '$TEST_TMP/cache2.txt'"
    # A damaged copy (another file's bytes) is not trusted: replaced by a good one.
    cp /bin/true "$copy"
    "$PROSPECT" report -i "$TEST_TMP/gzd.data" --sort srcline > "$TEST_TMP/cache3.txt"
    check annotate_debug_cache_bad_copy_replaced sh -c "cmp -s '$TEST_TMP/nocache.txt' '$TEST_TMP/cache3.txt' &&
        ! cmp -s /bin/true '$copy'"
else
    skip annotate_debug_cache "gcc -gz did not compress the debug sections"
fi
