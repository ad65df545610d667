# SPDX-License-Identifier: MIT
# Report output in perf users' hands (issue 9, sections 4 and 5): hostile symbol names are
# escaped in every format, lines fit 100 columns, perf's report options (-n, --percentage,
# --stdio, --sort without --flat), and percentages of the period (events) as perf's.
. "$(dirname "$0")/lib.sh"
d=$TEST_TMP/rfmt
mkdir -p "$d"
W=$(dirname "$0")/../workloads

# clean FILE: no control character but newline and tab, and well-formed UTF-8.
clean() {
    ! LC_ALL=C grep -q "$(printf '[\001-\010\013-\037\177]')" "$1" &&
        python3 -c 'import sys; sys.stdin.buffer.read().decode("utf-8")' < "$1" 2>/dev/null
}
json_ok() { python3 -c 'import json, sys; json.loads(sys.stdin.buffer.read().decode("utf-8"))' < "$1"; }
# narrow NAME FILE: no line wider than 100 columns (and the file is not empty).
narrow() {
    local w
    w=$(awk 'length > 100' "$2" | wc -l)
    if [ -s "$2" ] && [ "$w" -eq 0 ]; then pass "$1"; else
        fail "$1" "$w lines wider than 100 columns, e.g. $(awk 'length > 100 { print length ": " $0; exit }' "$2")"; fi
}

# ---- 1. A symbol named with a terminal escape, control characters and malformed UTF-8.
evil=$(printf 'evil\033[31mred\001\377\376name')
if ! command -v objcopy >/dev/null; then
    skip hostile_names "objcopy (binutils) is not installed"
elif gcc -O2 -g -o "$WL/names0" "$W/names.c" &&
     objcopy --redefine-sym "hot_name=$evil" "$WL/names0" "$WL/names" &&
     "$PROSPECT" record -F 2000 -e cpu-clock -o "$d/names.data" -- "$WL/names" 100000000 \
        >/dev/null 2>&1; then
    esc='evil\x1b[31mred\x01\xff\xfename'
    r() { "$PROSPECT" report -i "$d/names.data" "$@"; }
    r > "$d/n.txt"
    r --flat > "$d/n.flat"
    r --flat -t '|' > "$d/n.sep"
    r --flat --format csv > "$d/n.fcsv"
    r --flat --format json > "$d/n.fjson"
    r --format csv > "$d/n.csv"
    r --format json > "$d/n.json"
    "$PROSPECT" run -F 2000 -e cpu-clock -o "$d/n.run" -- "$WL/names" 100000000 >/dev/null 2>&1
    for f in txt flat sep fcsv fjson csv json run; do
        check "hostile_name_escaped_$f" clean "$d/n.$f"
    done
    for f in txt flat sep fcsv csv run; do
        check "hostile_name_shown_as_escapes_$f" grep -qF "$esc" "$d/n.$f"
    done
    check hostile_name_flat_json_parses json_ok "$d/n.fjson"
    check hostile_name_report_json_parses json_ok "$d/n.json"
    # The file's own strings (here the recorded command line) are untrusted too.
    "$PROSPECT" record -o "$d/hdr.data" -- "$WL/names0" 1000000 "$evil" >/dev/null 2>&1
    "$PROSPECT" report -i "$d/hdr.data" --header > "$d/n.hdr"
    "$PROSPECT" report -i "$d/hdr.data" --header --format json > "$d/n.hjson"
    check hostile_cmdline_escaped_header clean "$d/n.hdr"
    check hostile_cmdline_shown_as_escapes_header grep -qF "$esc" "$d/n.hdr"
    check hostile_cmdline_header_json_parses json_ok "$d/n.hjson"
    check hostile_name_json_keeps_controls grep -qF 'evil\u001b[31mred\u0001\ufffd\ufffdname' "$d/n.fjson"
else
    fail hostile_names "cannot build, rename or record the names workload"
fi

# ---- 2. 100 columns: C++ names hundreds of characters long, two processes under sh -c.
if ! command -v g++ >/dev/null; then
    skip report_fits_100_columns "g++ is not installed (scripts/install-deps installs it)"
elif g++ -O2 -g -o "$WL/longnames" "$W/longnames.cpp"; then
    cmd="$WL/longnames 60000000 & $WL/longnames 30000000; wait"
    "$PROSPECT" run -o "$d/l.run" -- sh -c "$cmd" >/dev/null 2>&1
    narrow run_fits_100_columns "$d/l.run"
    check run_elides_long_names grep -q 'very_long_namespace.*\.\.\..*longnames$' "$d/l.run"
    "$PROSPECT" run --wide -o "$d/l.wide" -- sh -c "$cmd" >/dev/null 2>&1
    check run_wide_has_full_names grep -q 'RatherLongTemplateName.*accumulate_everything' "$d/l.wide"
    "$PROSPECT" record -F 2000 -e cpu-clock -o "$d/l.data" -- sh -c "$cmd" >/dev/null 2>&1
    r() { "$PROSPECT" report -i "$d/l.data" "$@"; }
    r --min-percent 0 --top 0 > "$d/l.txt"; narrow report_fits_100_columns "$d/l.txt"
    r --flat > "$d/l.flat"; narrow flat_fits_100_columns "$d/l.flat"
    r -n -s pid,comm,dso,sym > "$d/l.n"; narrow flat_n_fits_100_columns "$d/l.n"
    r --flat --wide > "$d/l.fwide"
    check flat_wide_has_full_names grep -q 'RatherLongTemplateName.*accumulate_everything' "$d/l.fwide"
    r --flat -v > "$d/l.fv" 2>/dev/null
    check flat_verbose_has_full_names grep -q 'RatherLongTemplateName.*accumulate_everything' "$d/l.fv"
    r --flat --format csv > "$d/l.csv"
    check flat_csv_has_full_names grep -q 'RatherLongTemplateName.*accumulate_everything' "$d/l.csv"

    # ---- 3. perf's options.
    total=$(awk '/^# Samples:/ { print $3 }' "$d/l.n")
    check show_nr_samples_column sh -c "grep -q '^# Overhead  Samples  Pid' '$d/l.n' &&
        [ \"\$(grep -v '^#' '$d/l.n' | awk '{ s += \$2 } END { print s }')\" = '$total' ]"
    check sort_alone_gives_flat_table sh -c "'$PROSPECT' report -i '$d/l.data' --sort pid |
        grep -q '^# Overhead  Pid'"
    check stdio_accepted sh -c "'$PROSPECT' report -i '$d/l.data' --stdio | grep -q '^Prospect report'"
    "$PROSPECT" report -i "$d/l.data" --flat --top 5 >/dev/null 2>"$d/top.err"
    check top_with_flat_refused sh -c "[ $? -eq 2 ] && grep -q -- '--top applies to the Prospect report' '$d/top.err'"
    "$PROSPECT" report -i "$d/l.data" --percentage some >/dev/null 2>&1
    check percentage_bad_value_refused [ $? -eq 2 ]
    pid=$(r -s pid,comm -t '|' | awk -F'|' '$3 == "longnames" { p = $2 } END { print p }')
    sum() { r -s pid --pid "$pid" -t '|' "$@" | grep -v '^#' | awk -F'|' '{ s += $1 } END { print s + 0 }'; }
    abs=$(sum); rel=$(sum --percentage relative)
    check percentage_relative_is_of_the_filtered awk -v a="$abs" -v r="$rel" \
        'BEGIN { exit !(a > 0 && a < 90 && r > 99.9 && r < 100.1) }'
else
    fail report_fits_100_columns "cannot build the longnames workload"
fi

# ---- 4. A non-time event: % is the share of events (period), as perf's, not of samples.
if ! command -v perf >/dev/null || ! perf record -q -o "$d/probe.data" -- true >/dev/null 2>&1; then
    skip page_faults_percent_as_perf "perf is not installed or cannot record here"
elif gcc -O2 -g -o "$WL/faults" "$W/faults.c" &&
     perf record -q -e page-faults -o "$d/pf.data" -- "$WL/faults" 20000 >/dev/null 2>&1; then
    perf report -i "$d/pf.data" --stdio --no-children --sort sym 2>/dev/null |
        awk '$3 ~ /^touch_/ { sub("%", "", $1); print $3, $1 }' | sort > "$d/pf.perf"
    "$PROSPECT" report -i "$d/pf.data" --format csv |
        awk -F, '$1 == "user" && $4 ~ /^touch_/ { print $4, $8 }' | sort > "$d/pf.ours"
    "$PROSPECT" report -i "$d/pf.data" -s sym -t '|' |
        awk -F'|' '$2 ~ /touch_/ { sub("%", "", $1); sub(/^\[\.\] /, "", $2); print $2, $1 }' |
        sort > "$d/pf.flat"
    for f in ours flat; do
        check "page_faults_percent_as_perf_$f" awk 'NR == FNR { p[$1] = $2; n++; next }
            { d = p[$1] - $2; if (d < 0) d = -d; if (!($1 in p) || d > 0.1) bad = 1; m++ }
            END { exit !(n == 2 && m == 2 && !bad) }' "$d/pf.perf" "$d/pf.$f"
    done
    # --sort tid: one row per thread, "tid:comm", as perf's own pid key (per thread).
    if gcc -O2 -o "$WL/threads_spin" "$W/threads_spin.c" -lpthread &&
       perf record -q -e cpu-clock -F 2000 -o "$d/th.data" -- "$WL/threads_spin" >/dev/null 2>&1; then
        perf report -i "$d/th.data" --stdio --no-children --sort pid -t '|' 2>/dev/null |
            grep -v '^#' | grep . | awk -F'|' '{ gsub(/[ %]/, "", $1); gsub(/^ +| +$/, "", $2);
            print $2, $1 }' | sort > "$d/th.perf"
        "$PROSPECT" report -i "$d/th.data" --sort tid -t '|' | grep -v '^#' |
            awk -F'|' '{ sub("%", "", $1); print $2, $1 }' | sort > "$d/th.ours"
        check sort_tid_rows_as_perf sh -c "[ \$(grep -c ':worker-' '$d/th.ours') = 3 ] &&
            diff '$d/th.perf' '$d/th.ours' >&2"
    else
        fail sort_tid_rows_as_perf "cannot build or perf record the threads workload"
    fi
    check page_faults_report_says_events grep -q 'USER profile: .* hits (% of [0-9]* process events)' \
        <("$PROSPECT" report -i "$d/pf.data")
else
    fail page_faults_percent_as_perf "cannot build or perf record the faults workload"
fi
