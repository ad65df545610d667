#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# prospect lines --format gcov -b against gcov -b on the same source: each program built twice
# (--coverage for gcov, plain -g for Prospect), and the `call N returned` and `branch N taken`
# lines under every source line compared, with -c (counts) and without (percentages).
# tests/workloads/lines_calls.c (calls that never return: exit, longjmp; that return twice:
# fork, setjmp; through a pointer; in a loop's condition) and lines_gcov.c: every line equal,
# but a switch's (gcc's compare tree at -O0 is several two-way branches, gcov's switch one
# many-way branch). Debian's example programs (expat, jansson, xz): every call and branch
# count gcov prints is printed, and no other; line by line where the line table allows
# (docs/lines.md, "Calls and branches"). gcov's JSON: the same branches per line.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/stat_lib.sh"
if ! uprobes_ready; then
    skip lines_gcov_calls "no writable tracefs uprobe_events (counting probes need it)"
    exit 0
fi
if ! command -v gcov >/dev/null || ! echo 'int main(void){return 0;}' |
        gcc --coverage -x c -o "$TEST_TMP/cov_probe" - 2>/dev/null; then
    skip lines_gcov_calls "gcc --coverage does not build here (gcov is the oracle)"
    exit 0
fi
SRC=$(cd "$(dirname "$0")/../workloads" && pwd)
TEST_TMP=$(mktemp -d "$TEST_TMP/lines_gcov_calls.XXXXXX")
export TMPDIR=$TEST_TMP/tmpdir
mkdir -p "$TMPDIR"
EX=/usr/share/doc

# run_both NAME SRC INPUT ARGS... (LIBS: libraries): $TEST_TMP/NAME/{cov,plain}, gcov -b -c's
# NAME.c.gcov in cov/, ours in ours/ (-b -c), pct/ (-b) and nob/ (no -b), each program's output
# and status.
run_both() {
    local n=$1 src=$2 in=$3 d=$TEST_TMP/$1; shift 3
    mkdir -p "$d/cov" "$d/plain" "$d/ours" "$d/pct"
    cp "$src" "$d/$n.c"
    (cd "$d/cov" && gcc -O0 -g --coverage -o prog "../$n.c" ${LIBS:-}) &&
        (cd "$d/plain" && gcc -O0 -g -o prog "../$n.c" ${LIBS:-}) || return 1
    (cd "$d/cov" && ./prog "$@" <"$in" >../cov.out 2>/dev/null; echo $? >../cov.rc
     gcov -b -c "prog-$n.gcda" >/dev/null 2>&1 && mv "$n.c.gcov" ../theirs.gcov
     gcov -b "prog-$n.gcda" >/dev/null 2>&1 && mv "$n.c.gcov" ../theirs_pct.gcov
     gcov -b --json-format "prog-$n.gcda" >/dev/null 2>&1)
    (cd "$d/plain" && "$PROSPECT" lines --format gcov -b -c -o ../ours -- ./prog "$@" <"$in" \
        >../ours.out 2>../ours.err; echo $? >../ours.rc
     "$PROSPECT" lines --format gcov -b -o ../pct -- ./prog "$@" <"$in" >/dev/null 2>&1
     mkdir -p ../nob && "$PROSPECT" lines --format gcov -o ../nob -- ./prog "$@" <"$in" \
        >/dev/null 2>&1
     "$PROSPECT" lines --format gcov-json -o .. -- ./prog "$@" <"$in" >/dev/null 2>&1)
}

# arcs_diff THEIRS OURS SRC MODE: the call and branch lines under each source line (a line
# with `switch` left out). MODE line: prints "LINES CALLS BRANCHES differing-lines..."; MODE
# file: "CALLS BRANCHES" and whether the file's (kind, count) multisets are the same.
arcs_diff() {
    python3 - "$@" <<'PY'
import re, sys
def parse(path):
    out, cur = {}, None
    for l in open(path, errors="replace"):
        l = l.rstrip("\n")
        m = re.match(r"^ *[^:]*: *(\d+):", l)
        if m:
            cur = int(m.group(1))
        elif l.startswith(("call ", "branch ")) and cur:
            out.setdefault(cur, []).append(l)
    return out
theirs, ours = parse(sys.argv[1]), parse(sys.argv[2])
src = open(sys.argv[3], errors="replace").read().split("\n")
lines = [l for l in sorted(set(theirs) | set(ours)) if "switch" not in src[l - 1]]
t = [x for l in lines for x in theirs.get(l, [])]
calls = sum(x.startswith("call") for x in t)
if sys.argv[4] == "line":
    bad = ["%d:[%s]/[%s]" % (l, "; ".join(theirs.get(l, [])), "; ".join(ours.get(l, [])))
           for l in lines if theirs.get(l, []) != ours.get(l, [])]
    print(len(lines), calls, len(t) - calls, " ".join(bad))
else:
    def kinds(d):
        return sorted(re.sub(r"^(\w+) +\d+ ", r"\1 ", x).replace(" (fallthrough)", "")
                      for l in lines for x in d.get(l, []))
    print(calls, len(t) - calls, "same" if kinds(theirs) == kinds(ours) else "differ")
PY
}

# json_diff NAME: lines whose branches (count, fallthrough) differ between gcov's JSON and ours.
json_diff() {
    python3 - "$TEST_TMP/$1" "$1" <<'PY'
import glob, gzip, json, sys
d, n = sys.argv[1], sys.argv[2]
def load(path):
    for f in json.load(gzip.open(path))["files"]:
        if f["file"].endswith("/" + n + ".c") or f["file"] == n + ".c":
            return {l["line_number"]: [(b["count"], b["fallthrough"]) for b in l["branches"]]
                    for l in f["lines"]}
    return {}
t = load(glob.glob(d + "/cov/*.gcov.json.gz")[0])
o = load(d + "/prog.gcov.json.gz")
src = open(d + "/" + n + ".c").read().split("\n")
print(sum(1 for l in t if t[l]), " ".join(str(l) for l in sorted(set(t) | set(o))
      if t.get(l, []) != o.get(l, []) and "switch" not in src[l - 1]))
PY
}

# check_same_counts_with_b NAME: the counter after each call changes no line's count (a `*` may
# come: code after a call that did not return never ran, as gcov marks it).
counts_of() { grep -v '^call\|^branch\|^function' "$1" | cut -d: -f1,2 | tr -d '*'; }
check_same_counts_with_b() {
    local d=$TEST_TMP/$1
    check "${1}_line_counts_same_with_b" cmp -s <(counts_of "$d/ours/$1.c.gcov") \
        <(counts_of "$d/nob/$1.c.gcov")
}
all_equal() { [ -z "$bad" ] && [ "${nc:-0}" -ge "$min" ]; }
json_equal() { [ "${r%% *}" -gt 0 ] 2>/dev/null && [ -z "${r#* }" ]; }
# check_exact NAME MIN_CALLS: every call and branch line equal, with counts and percentages;
# the run unharmed; gcov's JSON branches equal.
check_exact() {
    local n=$1 min=$2 d=$TEST_TMP/$1 r nl nc nb bad
    check "${n}_run_unharmed" eval "cmp -s '$d/cov.out' '$d/ours.out' && cmp -s '$d/cov.rc' '$d/ours.rc'"
    r=$(arcs_diff "$d/theirs.gcov" "$d/ours/$n.c.gcov" "$d/$n.c" line)
    read -r nl nc nb bad <<<"$r"
    echo "  $n: $nl lines with calls or branches, gcov's $nc calls and $nb branches${bad:+, differ: $bad}"
    check "${n}_calls_and_branches_equal_gcov_c" all_equal
    r=$(arcs_diff "$d/theirs_pct.gcov" "$d/pct/$n.c.gcov" "$d/$n.c" line)
    read -r nl nc nb bad <<<"$r"
    check "${n}_percentages_equal_gcov_b" all_equal
    check_same_counts_with_b "$n"
    r=$(json_diff "$n")
    echo "  $n JSON: $r"
    check "${n}_json_branches_equal_gcov" json_equal
}

if run_both lines_calls "$SRC/lines_calls.c" /dev/null; then
    check_exact lines_calls 10
    g=$TEST_TMP/lines_calls/ours/lines_calls.c.gcov
    # what the calls did, by name: exit and longjmp never returned, fork and setjmp twice
    after() { grep -A3 -F "$1" "$g" | grep -m1 '^call'; }
    check exit_returned_0 [ "$(after 'leave(0);')" = "call    0 returned 0" ]
    check longjmp_returned_0 [ "$(after 'longjmp(back, 7);')" = "call    0 returned 0" ]
    check fork_returned_2 [ "$(after 'fork();')" = "call    0 returned 2" ]
    check setjmp_returned_2 [ "$(after 'setjmp(back);')" = "call    0 returned 2" ]
    check pct_fork_200 grep -q '^call    0 returned 200%' "$TEST_TMP/lines_calls/pct/lines_calls.c.gcov"
    check pct_never_executed grep -q '^call    0 never executed' \
        "$TEST_TMP/lines_calls/pct/lines_calls.c.gcov"
else
    fail lines_calls_build "gcc"
fi
if LIBS=-pthread run_both lines_gcov "$SRC/lines_gcov.c" /dev/null; then
    check_exact lines_gcov 10
else
    fail lines_gcov_build "gcc -pthread"
fi

# check_counts NAME MIN_CALLS: the file's calls and branches are gcov's (line by line where
# DWARF and gcov place them alike: the differing lines are printed).
check_counts() {
    local n=$1 min=$2 d=$TEST_TMP/$1 r nc nb same
    check "${n}_run_unharmed" eval "cmp -s '$d/cov.out' '$d/ours.out' && cmp -s '$d/cov.rc' '$d/ours.rc'"
    r=$(arcs_diff "$d/theirs.gcov" "$d/ours/$n.c.gcov" "$d/$n.c" line)
    echo "  $n: line by line: $r"
    read -r nc nb same <<<"$(arcs_diff "$d/theirs.gcov" "$d/ours/$n.c.gcov" "$d/$n.c" file)"
    echo "  $n: gcov's $nc calls, $nb branches: ours the $same"
    same_counts() { [ "$same" = same ] && [ "$nc" -ge "$min" ]; }
    check "${n}_calls_and_branches_as_gcovs" same_counts
    check_same_counts_with_b "$n"
}
xml='<doc a="1"><list><item id="1">x</item><item id="2"/><sub><deep k="v" k2="w"/></sub></list>
<list><item/></list></doc>'
echo "$xml" >"$TEST_TMP/xml.in"
if [ -r "$EX/libexpat1-dev/examples/outline.c" ] &&
        LIBS=-lexpat run_both outline "$EX/libexpat1-dev/examples/outline.c" "$TEST_TMP/xml.in" &&
        LIBS=-lexpat run_both elements "$EX/libexpat1-dev/examples/elements.c" "$TEST_TMP/xml.in"; then
    check_exact outline 10
    check_exact elements 10
else
    skip expat_examples_calls "expat's examples or libexpat1-dev not installed"
fi
if [ -r "$EX/libjansson4/examples/json_process.c" ]; then
    printf '  {"b": [1, 2.5, "x", null, true], "a": {"c": {}}}  \n\n' >"$TEST_TMP/json.in"
    if STRIP=1 JSON_INDENT=2 JSON_SORT_KEYS=1 LIBS=-ljansson run_both json_process \
            "$EX/libjansson4/examples/json_process.c" "$TEST_TMP/json.in" --env; then
        check_counts json_process 40
    else
        fail json_process_build "gcc -ljansson"
    fi
else
    skip json_process_calls "jansson's example or libjansson-dev not installed"
fi
if [ -r "$EX/liblzma-dev/examples/01_compress_easy.c" ]; then
    seq 1 30000 >"$TEST_TMP/seq.in"
    seq 1 30000 | xz -c >"$TEST_TMP/data.xz"
    if LIBS=-llzma run_both xz_compress "$EX/liblzma-dev/examples/01_compress_easy.c" \
            "$TEST_TMP/seq.in" 3 &&
        LIBS=-llzma run_both xz_decompress "$EX/liblzma-dev/examples/02_decompress.c" \
            /dev/null "$TEST_TMP/data.xz"; then
        check_counts xz_compress 15
        check_counts xz_decompress 15
    else
        fail xz_examples_build "gcc -llzma"
    fi
else
    skip xz_examples_calls "xz's examples or liblzma-dev not installed"
fi
"$PROSPECT" lines --format gcov -c -- true >/dev/null 2>"$TEST_TMP/c.err"
rc=$?
c_refused() { [ "$rc" != 0 ] && grep -q -- "-c is for --format gcov -b" "$TEST_TMP/c.err"; }
check c_needs_b c_refused
check calls_no_probes_left no_probes_left
