#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# prospect lines counts as gcov counts: each program built twice (--coverage for gcov, plain -g
# for Prospect) and every line both count compared, at -O0. Programs nobody here wrote: the
# examples Debian ships with expat (outline.c, elements.c), jansson (json_process.c) and xz
# (01_compress_easy.c, 02_decompress.c: public domain), compiled from /usr/share/doc where
# they are installed; and tests/workloads/lines_gcov.c (loops on one line, a while condition,
# ?:, switch, goto, recursion, threads, fork). gcov's readers read Prospect's output as gcov's
# own: gcovr on the .gcov files (--format gcov), lcov and genhtml on the tracefile (--format
# lcov), lcov on gcov's JSON intermediate format (--format gcov-json), each against the same
# tool on gcov's data. At -O2 (the same programs, and bench/'s sha256 and tree search): every
# line printed as a plain number equals gcov's count on a --coverage -O2 build; the others are
# marked (docs/lines.md, "Optimized code").
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/stat_lib.sh"
if ! uprobes_ready; then
    skip lines_gcov "no writable tracefs uprobe_events (counting probes need it)"
    exit 0
fi
if ! command -v gcov >/dev/null || ! echo 'int main(void){return 0;}' |
        gcc --coverage -x c -o "$TEST_TMP/cov_probe" - 2>/dev/null; then
    skip lines_gcov "gcc --coverage does not build here (gcov is the oracle)"
    exit 0
fi
SRC=$(cd "$(dirname "$0")/../workloads" && pwd)
TEST_TMP=$(mktemp -d "$TEST_TMP/lines_gcov.XXXXXX")
export TMPDIR=$TEST_TMP/tmpdir
mkdir -p "$TMPDIR"
EX=/usr/share/doc

# csv_count CSV LINE: our count of LINE ("" when the line has no code of its own).
csv_count() { awk -F, -v l="$2" 'NR > 1 && $2 == l { print $3 }' "$1"; }

# build_twice NAME SRC LIBS...: $TEST_TMP/NAME/{cov,plain}/prog from one copy of SRC ($OPT, or
# -O0).
build_twice() {
    local name=$1 src=$2 d=$TEST_TMP/$1; shift 2
    mkdir -p "$d/cov" "$d/plain"
    cp "$src" "$d/$name.c"
    (cd "$d/cov" && gcc "${OPT:--O0}" -g --coverage -fprofile-update=atomic -o prog \
        "../$name.c" "$@") && (cd "$d/plain" && gcc "${OPT:--O0}" -g -o prog "../$name.c" "$@")
}

# compare NAME ARGS...: runs both builds with NAME.in as standard input and ARGS, gcov on the
# first, prospect lines on the second; their standard outputs and exit statuses must be the
# same. Sets gn
# (lines compared), skipped (lines gcov counts where the plain build has no code: a label, a
# `case`, a declaration) and bad. Where gcov puts a function's entry on its declaration line
# and DWARF on the `{` below it, the `{` line's count is compared (docs/lines.md).
compare() {
    local name=$1 d=$TEST_TMP/$1; shift
    local in=$d/in
    [ -e "$in" ] || : >"$in"
    (cd "$d/cov" && ./prog "$@" <"$in" >../cov.out 2>/dev/null; echo $? >../cov.rc
     gcov -t prog-"$name".gcda 2>/dev/null >../gcov_all.txt)
    # gcov -t lists the program's file and the headers with code inlined into it: the former.
    awk -v f="/$name.c" '/^ *-: *0:Source:/ { on = substr($0, length($0) - length(f) + 1) == f }
                         on' "$d/gcov_all.txt" >"$d/gcov.txt"
    (cd "$d/plain" && "$PROSPECT" lines --format csv -o ../ours.csv -- ./prog "$@" <"$in" \
        >../ours.out 2>../ours.err; echo $? >../ours.rc)
    same_run=1
    cmp -s "$d/cov.out" "$d/ours.out" && cmp -s "$d/cov.rc" "$d/ours.rc" || same_run=0
    gcov_diff "$name" "$d/gcov.txt" "$d/ours.csv" "$d/$name.c"
}

# gcov_diff NAME GCOV_TXT OURS_CSV SRC: compares gcov's count of every line with ours.
gcov_diff() {
    local c l got
    gn=0 skipped=0 bad=""
    while IFS=: read -r c l _; do
        c=${c// /} l=${l// /} c=${c%\*}
        case $c in ''|-|*[!0-9#]*) continue ;; esac
        [ "$c" = "#####" ] && c=0
        got=$(csv_count "$3" "$l")
        if [ -z "$got" ] && sed -n "$((l + 1))p" "$4" | grep -q '^{'; then
            got=$(csv_count "$3" $((l + 1)))
        fi
        if [ -z "$got" ]; then skipped=$((skipped + 1)); continue; fi
        gn=$((gn + 1))
        [ "$got" = "$c" ] || bad="$bad $l:gcov=$c,ours=$got"
    done <"$2"
    echo "  $1: $gn lines compared with gcov, $skipped without code here${bad:+, differ:$bad}"
}

# check_program NAME MIN_LINES ARGS...: the run unharmed, enough lines compared, all equal.
check_program() {
    local name=$1 min=$2; shift 2
    compare "$name" "$@"
    check "${name}_run_unharmed" [ "$same_run" = 1 ]
    check "${name}_lines_compared" [ "$gn" -ge "$min" ]
    check "${name}_equals_gcov" [ -z "$bad" ]
}

# --- Our own: the constructs gcov counts per iteration -------------------------------------------
if build_twice lines_gcov "$SRC/lines_gcov.c" -pthread; then
    check_program lines_gcov 35
    oneline=$(grep -n 'i < 100000; i++) s += i;' "$SRC/lines_gcov.c" | cut -d: -f1)
    check one_line_for_counts_iterations \
        [ "$(csv_count "$TEST_TMP/lines_gcov/ours.csv" "$oneline")" = 100001 ]
    wline=$(grep -n 'while (p\[n\]) n++' "$SRC/lines_gcov.c" | cut -d: -f1)
    check one_line_while_counts_iterations \
        [ "$(csv_count "$TEST_TMP/lines_gcov/ours.csv" "$wline")" = 14 ]
else
    fail lines_gcov_build "gcc -pthread"
fi

# --- -O2: a line printed as a plain number is gcov's count; the others are marked ---------------
if [ -s "$TEST_TMP/lines_gcov/ours.csv" ]; then
    check o0_counts_not_flagged [ "$(awk -F, 'NR > 1 && $4 != ""' \
        "$TEST_TMP/lines_gcov/ours.csv" | wc -l)" = 0 ]
fi
# o2_diff GCOV_TXT OURS_CSV SRC: every line we print unmarked has gcov's count (gcov counts the
# source at any -O; the `{` below a declaration stands for it). Prints "EXACT MARKED differ...".
o2_diff() {
    python3 - "$@" <<'PY'
import csv, sys
gcov = {}
for l in open(sys.argv[1]):
    c, n, _ = (l.split(":", 2) + ["", ""])[:3]
    c = c.strip().rstrip("*")
    if c in ("", "-") or not n.strip().isdigit():
        continue
    gcov[int(n)] = 0 if c[0] in "#=" else int(c)
src = open(sys.argv[3]).read().split("\n")
rows = list(csv.reader(open(sys.argv[2])))[1:]
exact = marked = 0
bad = []
for _, n, c, mark in rows:
    n = int(n)
    if mark:
        marked += 1
        continue
    exact += 1
    want = gcov.get(n)
    if want is None and n >= 2 and src[n - 1].startswith("{"):
        want = gcov.get(n - 1)
    if want != int(c):
        bad.append("%d:gcov=%s,ours=%s" % (n, want, c))
print(exact, marked, " ".join(bad))
PY
}
# check_o2 NAME SRC MIN_EXACT LIBS... -- ARGS...: built -O2 twice, compared line by line.
o2_exact=0 o2_marked=0
check_o2() {
    local name=$1 src=$2 min=$3 libs=() r ex mk diff TEST_TMP=$TEST_TMP/o2; shift 3
    while [ $# -gt 0 ] && [ "$1" != -- ]; do libs+=("$1"); shift; done
    shift
    mkdir -p "$TEST_TMP"
    # the input of the -O0 run of the same program, if any
    [ -e "$TEST_TMP/../$name/in" ] && mkdir -p "$TEST_TMP/$name" &&
        cp "$TEST_TMP/../$name/in" "$TEST_TMP/$name/in"
    if ! OPT=-O2 build_twice "$name" "$src" "${libs[@]}"; then
        fail "o2_${name}_build" "gcc -O2"
        return
    fi
    compare "$name" "$@" >/dev/null   # its line-by-line report is -O0's
    r=$(o2_diff "$TEST_TMP/$name/gcov.txt" "$TEST_TMP/$name/ours.csv" "$TEST_TMP/$name/$name.c")
    read -r ex mk diff <<<"$r"
    echo "  -O2 $name: $ex lines exact (equal to gcov's), $mk marked${diff:+, differ: $diff}"
    o2_exact=$((o2_exact + ex)) o2_marked=$((o2_marked + mk))
    check "o2_${name}_run_unharmed" [ "$same_run" = 1 ]
    check "o2_${name}_unmarked_equal_gcov" [ -z "$diff" ]
    check "o2_${name}_some_exact" [ "$ex" -ge "$min" ]
}
BENCH=$(cd "$(dirname "$0")/../../bench" && pwd)
check_o2 lines_gcov "$SRC/lines_gcov.c" 3 -pthread --
check_o2 lines_o2 "$SRC/lines_o2.c" 3 --
check_o2 sha256 "$BENCH/sha256.c" 5 -- 1
check_o2 lines_chase "$BENCH/lines_chase.c" 5 --

# --- Debian's example programs -------------------------------------------------------------------
xml='<doc a="1"><list><item id="1">x</item><item id="2"/><sub><deep k="v" k2="w"/></sub></list>
<list><item/></list></doc>'
if [ -r "$EX/libexpat1-dev/examples/outline.c" ] &&
        build_twice outline "$EX/libexpat1-dev/examples/outline.c" -lexpat &&
        build_twice elements "$EX/libexpat1-dev/examples/elements.c" -lexpat; then
    echo "$xml" >"$TEST_TMP/outline/in"
    echo "$xml" >"$TEST_TMP/elements/in"
    check_program outline 15
    check_program elements 15
    check_o2 outline "$EX/libexpat1-dev/examples/outline.c" 5 -lexpat --
    check_o2 elements "$EX/libexpat1-dev/examples/elements.c" 5 -lexpat --
else
    skip expat_examples_equal_gcov "expat's examples or libexpat1-dev not installed"
fi
if [ -r "$EX/libjansson4/examples/json_process.c" ] &&
        build_twice json_process "$EX/libjansson4/examples/json_process.c" -ljansson; then
    printf '  {"b": [1, 2.5, "x", null, true], "a": {"c": {}}}  \n\n' >"$TEST_TMP/json_process/in"
    # --env: settings from the environment; STRIP reads standard input into a growing buffer
    # and strips the whitespace around it (loops, a ?: on one line).
    STRIP=1 JSON_INDENT=2 JSON_SORT_KEYS=1 check_program json_process 30 --env
    STRIP=1 JSON_INDENT=2 JSON_SORT_KEYS=1 check_o2 json_process \
        "$EX/libjansson4/examples/json_process.c" 5 -ljansson -- --env
else
    skip json_process_equals_gcov "jansson's example or libjansson-dev not installed"
fi
if [ -r "$EX/liblzma-dev/examples/01_compress_easy.c" ] &&
        build_twice xz_compress "$EX/liblzma-dev/examples/01_compress_easy.c" -llzma &&
        build_twice xz_decompress "$EX/liblzma-dev/examples/02_decompress.c" -llzma; then
    seq 1 30000 >"$TEST_TMP/xz_compress/in"
    check_program xz_compress 30 3
    seq 1 30000 | xz -c >"$TEST_TMP/data.xz"
    check_program xz_decompress 30 "$TEST_TMP/data.xz"
    check_o2 xz_compress "$EX/liblzma-dev/examples/01_compress_easy.c" 5 -llzma -- 3
    check_o2 xz_decompress "$EX/liblzma-dev/examples/02_decompress.c" 5 -llzma -- \
        "$TEST_TMP/data.xz"
else
    skip xz_examples_equal_gcov "xz's examples or liblzma-dev not installed"
fi

echo "  -O2 in all: $o2_exact lines exact, $o2_marked marked"

# --- A shared library's functions: -f LIB:FUNC, --file LIB:SRC ----------------------------------
L=$TEST_TMP/lib
mkdir -p "$L/cov" "$L/plain"
cp "$SRC/lines_lib.c" "$SRC/lines_libmain.c" "$L/"
build_lib() {
    gcc -O0 -g "$@" -shared -fPIC -o liblineslib.so ../lines_lib.c &&
        gcc -O0 -g "$@" -o main ../lines_libmain.c -L. -llineslib -Wl,-rpath,'$ORIGIN'
}
if (cd "$L/cov" && build_lib --coverage) && (cd "$L/plain" && build_lib); then
    (cd "$L/cov" && ./main >../cov.out && gcov -t liblineslib.so-lines_lib.gcda 2>/dev/null |
        awk '/^ *-: *0:Source:/ { on = /lines_lib\.c$/ } on' >../gcov.txt)
    (cd "$L/plain" && "$PROSPECT" lines -f liblineslib.so:lib_sum -f liblineslib.so:lib_depth \
        --format csv -o ../ours.csv -- ./main >../ours.out 2>../ours.err)
    check lib_run_unharmed cmp -s "$L/cov.out" "$L/ours.out"
    gcov_diff lib "$L/gcov.txt" "$L/ours.csv" "$L/lines_lib.c"
    lib_equal() { [ -z "$bad" ] && [ "$gn" -ge 10 ]; }
    check lib_functions_equal_gcov lib_equal
    (cd "$L/plain" && "$PROSPECT" lines --file liblineslib.so:lines_lib.c --format csv \
        -o ../ours_file.csv -- ./main >/dev/null 2>../ours.err)
    check lib_file_same_counts cmp -s "$L/ours.csv" "$L/ours_file.csv"
    (cd "$L/plain" && "$PROSPECT" lines -f lib_sum -f liblineslib.so:lib_depth -- ./main \
        >/dev/null 2>../mixed.err)
    check lib_and_program_refused [ $? = 1 ]
    check lib_and_program_said grep -q "one object per run" "$L/mixed.err"
    (cd "$L/plain" && "$PROSPECT" lines -f libnosuch.so:f -- ./main >/dev/null 2>../nolib.err)
    check lib_unknown_named grep -q "no library 'libnosuch.so' found" "$L/nolib.err"
else
    fail lib_build "gcc -shared"
fi

# --- gcov's readers: gcovr reads the .gcov files, lcov and genhtml the tracefile -----------------
# same_counts A B SRC: two files of line,count (gcov's reading, ours) agree on every line both
# count (the `{` below a declaration standing for it); prints the lines compared.
same_counts() {
    python3 - "$1" "$2" "$3" <<'PY'
import sys
theirs = dict(tuple(map(int, l.split(","))) for l in open(sys.argv[1]) if l.strip())
ours = dict(tuple(map(int, l.split(","))) for l in open(sys.argv[2]) if l.strip())
src = open(sys.argv[3]).read().split("\n")
n, bad = 0, []
for line, c in sorted(theirs.items()):
    got = ours.get(line)
    if got is None and line < len(src) and src[line].startswith("{"):
        got = ours.get(line + 1)
    if got is None:
        continue
    n += 1
    if got != c:
        bad.append("%d:%d/%d" % (line, c, got))
print(n, " ".join(bad))
sys.exit(1 if bad or n == 0 else 0)
PY
}
# gcovr_lines JSON FILE: line,count of FILE's code lines in gcovr's JSON report.
gcovr_lines() {
    python3 -c '
import json, sys
for f in json.load(open(sys.argv[1]))["files"]:
    if f["file"].endswith(sys.argv[2]):
        for l in f["lines"]:
            if not l.get("gcovr/noncode"):
                print("%d,%d" % (l["line_number"], l["count"]))
' "$1" "$2"
}
# lcov_lines INFO FILE: line,count of FILE's DA records.
lcov_lines() {
    awk -F'[:,]' -v f="/$2" '/^SF:/ { on = substr($0, length($0) - length(f) + 1) == f }
                             on && /^DA:/ { print $2 "," $3 }' "$1"
}
d=$TEST_TMP/lines_gcov
if [ -x "$d/plain/prog" ] && command -v gcovr >/dev/null; then
    (cd "$d/cov" && gcov -b prog-lines_gcov.gcda >/dev/null 2>&1)
    mkdir -p "$d/ours_gcov"
    (cd "$d/plain" && "$PROSPECT" lines --format gcov -b -o ../ours_gcov -- ./prog \
        >/dev/null 2>"$d/gcov_fmt.err")
    check gcov_format_file_written [ -s "$d/ours_gcov/lines_gcov.c.gcov" ]
    check gcov_format_branch_lines grep -q '^branch  0 taken [0-9]*%' \
        "$d/ours_gcov/lines_gcov.c.gcov"
    (cd "$d" && gcovr -r . -g -k cov --json -o gcovr_theirs.json 2>/dev/null &&
        gcovr -r . -g -k ours_gcov --json -o gcovr_ours.json 2>/dev/null)
    gcovr_lines "$d/gcovr_theirs.json" lines_gcov.c >"$d/gcovr_theirs.csv"
    gcovr_lines "$d/gcovr_ours.json" lines_gcov.c >"$d/gcovr_ours.csv"
    r=$(same_counts "$d/gcovr_theirs.csv" "$d/gcovr_ours.csv" "$d/lines_gcov.c")
    ok=$?
    echo "  gcovr: ${r%% *} lines compared, differ: ${r#* }"
    gcovr_agree() { [ "$ok" = 0 ] && [ "${r%% *}" -ge 30 ]; }
    check gcovr_reads_ours_as_gcovs gcovr_agree
    # -b's function lines: gcovr finds the same functions with the same calls (their lines
    # differ where gcov puts the entry on the declaration and DWARF on the `{` below it).
    gcovr_funcs() {
        python3 -c '
import json, sys
for f in json.load(open(sys.argv[1]))["files"]:
    if f["file"].endswith(sys.argv[2]):
        for fn in f.get("functions", []):
            print("%s,%d" % (fn["name"], fn["execution_count"]))
' "$1" "$2" | sort
    }
    gcovr_funcs "$d/gcovr_theirs.json" lines_gcov.c >"$d/gcovr_funcs_theirs"
    gcovr_funcs "$d/gcovr_ours.json" lines_gcov.c >"$d/gcovr_funcs_ours"
    echo "  gcovr functions (name,calls): theirs $(paste -sd' ' "$d/gcovr_funcs_theirs"), ours" \
        "$(paste -sd' ' "$d/gcovr_funcs_ours")"
    check gcov_format_function_lines grep -q '^function fib called 465 returned 100% blocks' \
        "$d/ours_gcov/lines_gcov.c.gcov"
    funcs_agree() {
        [ -s "$d/gcovr_funcs_theirs" ] && cmp -s "$d/gcovr_funcs_theirs" "$d/gcovr_funcs_ours"
    }
    check gcovr_functions_as_gcovs funcs_agree
    # (-o a file of ours: gcovr replaces its output by unlinking it, /dev/null included)
    (cd "$d" && gcovr -r . -g -k cov --print-summary -o gcovr_theirs.txt 2>/dev/null |
        grep '^functions:' >gcovr_sum_theirs;
        gcovr -r . -g -k ours_gcov --print-summary -o gcovr_ours.txt 2>/dev/null |
        grep '^functions:' >gcovr_sum_ours)
    echo "  gcovr summary: gcov's $(cat "$d/gcovr_sum_theirs"), ours $(cat "$d/gcovr_sum_ours")"
    sums_agree() {
        [ -s "$d/gcovr_sum_theirs" ] && cmp -s "$d/gcovr_sum_theirs" "$d/gcovr_sum_ours"
    }
    check gcovr_function_summary_as_gcovs sums_agree
else
    skip gcovr_reads_ours_as_gcovs "gcovr not installed (scripts/install-deps)"
fi
if [ -x "$d/plain/prog" ] && command -v lcov >/dev/null && command -v genhtml >/dev/null; then
    lcov -q -c -d "$d/cov" -o "$d/theirs.info" >/dev/null 2>&1
    (cd "$d/plain" && "$PROSPECT" lines --format lcov -o ../ours.info -- ./prog \
        >/dev/null 2>"$d/lcov_fmt.err")
    lcov_lines "$d/theirs.info" lines_gcov.c >"$d/lcov_theirs.csv"
    lcov_lines "$d/ours.info" lines_gcov.c >"$d/lcov_ours.csv"
    r=$(same_counts "$d/lcov_theirs.csv" "$d/lcov_ours.csv" "$d/lines_gcov.c")
    ok=$?
    echo "  lcov: ${r%% *} lines compared, differ: ${r#* }"
    lcov_agree() { [ "$ok" = 0 ] && [ "${r%% *}" -ge 30 ]; }
    check lcov_reads_ours_as_gcovs lcov_agree
    # --format gcov-json: lcov reads gcov's JSON only from the gcov it runs on a .gcda, so
    # a gcov whose -i output is Prospect's file stands in for it on the --coverage build.
    (cd "$d/plain" && "$PROSPECT" lines --format gcov-json -o .. -- ./prog >/dev/null \
        2>"$d/json_fmt.err")
    check gcov_json_written gzip -t "$d/prog.gcov.json.gz"
    printf '#!/bin/sh\ncase " $* " in *" -i "*) cp "%s" . ;; *) exec gcov "$@" ;; esac\n' \
        "$d/prog.gcov.json.gz" >"$d/gcov_shim"
    chmod +x "$d/gcov_shim"
    lcov -q -c -d "$d/cov" --gcov-tool "$d/gcov_shim" -o "$d/via_json.info" >/dev/null 2>&1
    lcov_lines "$d/via_json.info" lines_gcov.c >"$d/lcov_json.csv"
    r=$(same_counts "$d/lcov_theirs.csv" "$d/lcov_json.csv" "$d/lines_gcov.c")
    ok=$?
    echo "  lcov on gcov-json: ${r%% *} lines compared, differ: ${r#* }"
    check lcov_reads_gcov_json_as_gcovs lcov_agree
    lcov_summary() {
        lcov --summary "$d/ours.info" 2>&1 | grep -Eq 'lines\.+: [0-9.]+% \([0-9]+ of'
    }
    check lcov_summary_reads_ours lcov_summary
    genhtml -q -o "$d/html" "$d/ours.info" >/dev/null 2>&1
    page=$(find "$d/html" -name lines_gcov.c.gcov.html)
    check genhtml_page_in_its_directory [ -n "$page" ]
    check genhtml_shows_one_line_loop grep -q 'lineCov"> *100001 :' ${page:-/dev/null}
else
    skip lcov_reads_ours_as_gcovs "lcov not installed (scripts/install-deps)"
fi
check formats_no_probes_left no_probes_left
