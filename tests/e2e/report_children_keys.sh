# SPDX-License-Identifier: MIT
# --children with sort keys and no dso or sym (issue 23, section 2): perf gives one row per key
# (each sample's chain is all in its key's row, so Children is Self), compared with perf report
# on the same files, perf's and Prospect's: --sort comm and pid on two runs of one program,
# Prospect's tid (perf's pid key, per thread) on two threads. And the pid and tid keys in
# --format csv and json: a pid (tid) field per row, the text table's rows and values.
. "$(dirname "$0")/lib.sh"

build_workload callgraph callgraph -O0 -fno-omit-frame-pointer ||
    { fail children_keys_build "cannot build tests/workloads/callgraph.c"; exit 0; }
build_workload cg_shapes cg_shapes -O0 -fno-omit-frame-pointer -pthread ||
    { fail children_keys_build "cannot build tests/workloads/cg_shapes.c"; exit 0; }
if ! command -v perf >/dev/null || ! perf record -q -o "$TEST_TMP/probe.data" -- true >/dev/null 2>&1; then
    skip report_children_keys "perf is not installed or cannot record here"
    exit 0
fi
TWO="'$WL/callgraph' 400; '$WL/callgraph' 400"
precord -g -o "$TEST_TMP/two.perf.data" -- sh -c "$TWO" ||
    { fail children_keys_perf_record "perf record -g failed"; exit 0; }
"$PROSPECT" record -g -o "$TEST_TMP/two.p.data" -- sh -c "$TWO" >/dev/null 2>&1 ||
    { fail children_keys_record "prospect record -g failed"; exit 0; }
precord -g -o "$TEST_TMP/thr.perf.data" -- "$WL/cg_shapes" threads 1 ||
    { fail children_keys_perf_record "perf record -g failed"; exit 0; }
"$PROSPECT" record -g -o "$TEST_TMP/thr.p.data" -- "$WL/cg_shapes" threads 1 >/dev/null 2>&1 ||
    { fail children_keys_record "prospect record -g failed"; exit 0; }

# rows FILE MIN: "key|children|self" (--no-children: "key|overhead|") of the rows of MIN% or
# more, sorted.
rows() { grep -v '^#' "$1" | awk -v min="$2" '$1 ~ /^[0-9.]+%$/ && $1 + 0 >= min {
    k = $2 ~ /%$/ ? 3 : 2
    print $k "|" $1 + 0 "|" (k == 3 ? $2 + 0 : "") }' | sort; }
# same A B: the same keys, each share within 0.2 point (the frameless-leaf fix of
# docs/callgraph.md moves a few samples); at least one row.
same() { paste -d'|' "$1" "$2" | awk -F'|' '{ n++ } $1 != $4 || ($2 - $5) ^ 2 > 0.04 ||
    ($3 - $6) ^ 2 > 0.04 { bad = 1; print } END { exit bad || n < 1 }'; }
# one_per_key FILE: no key on two rows (the rows are per key, not per symbol).
one_per_key() { grep -v '^#' "$1" | awk '$1 ~ /%$/ { k = $2 ~ /%$/ ? $3 : $2
    if (seen[k]++) bad = 1 } END { exit bad }'; }
# children_is_self FILE: every row's Children equals its Self.
children_is_self() { grep -v '^#' "$1" | awk '$1 ~ /%$/ { n++; if ($1 != $2) bad = 1 }
    END { exit bad || !n }'; }

for f in perf p; do
    for run in "two comm ''" "two comm --no-children" "two pid ''" "thr pid ''"; do
        eval "set -- $run"
        D=$TEST_TMP/$1.$f.data ours=$2
        [ "$1" = thr ] && ours=tid    # Prospect's pid key is per process, tid per thread
        name=children_sort_${ours}_${1}${3:+_no_children}_${f}_file
        perf report -i "$D" --stdio --sort "$2" $3 -g none 2>/dev/null >"$TEST_TMP/$name.perf"
        "$PROSPECT" report -i "$D" --sort "$ours" $3 -g none >"$TEST_TMP/$name.ours" 2>&1
        # Every row: a pid's samples before and after its exec are one row, named as the
        # process is named last, as perf's.
        min=0
        rows "$TEST_TMP/$name.perf" $min >"$TEST_TMP/a"
        rows "$TEST_TMP/$name.ours" $min >"$TEST_TMP/b"
        check "${name}_as_perf" same "$TEST_TMP/a" "$TEST_TMP/b"
        check "${name}_one_row_per_key" one_per_key "$TEST_TMP/$name.ours"
    done
    check "children_sort_comm_children_is_self_$f" children_is_self \
        "$TEST_TMP/children_sort_comm_two_${f}_file.ours"
done
# The tree under a command's row is its samples' whole chains, as perf's: via_a calls leaf.
"$PROSPECT" report -i "$TEST_TMP/two.p.data" --children --sort comm >"$TEST_TMP/children_keys_tree" 2>&1
calls_leaf() { grep -A1 -- '--via_a$' "$1" | grep -q 'leaf$'; }
check children_sort_comm_tree calls_leaf "$TEST_TMP/children_keys_tree"
check children_sort_comm_header grep -q '^# Children      Self  Command *$' "$TEST_TMP/children_keys_tree"

# csv and json: the pid or tid key's fields, equal to the text rows ("PID:comm sym children
# self" per row; the text rounds to 2 decimals what csv and json give to 4).
text_rows() { grep -v '^#' "$1" | awk '$1 ~ /%$/ { s = $0
    sub(/^ *[^ ]+ +[^ ]+ +[^ ]+ */, "", s); gsub(/ /, "_", s)
    print $3, (s == "" ? "-" : s), $1 + 0, $2 + 0 }' |
    sort; }
csv_rows() { python3 -c 'import csv, sys
for r in csv.DictReader(open(sys.argv[1])):
    sym = "[%s]_%s" % ("k" if r["mode"] == "kernel" else ".",
                       r["symbol"].replace(" ", "_")) if "symbol" in r else "-"
    print("%s:%s" % (r[sys.argv[2]], r["comm"]), sym, r["children"], r["self"])' "$1" "$2" | sort; }
json_rows() { python3 -c 'import json, sys
for r in json.load(open(sys.argv[1]))["rows"]:
    sym = "[%s]_%s" % ("k" if r["mode"] == "kernel" else ".",
                       r["symbol"].replace(" ", "_")) if "symbol" in r else "-"
    print("%s:%s" % (r[sys.argv[2]], r["comm"]), sym, r["children"], r["self"])' "$1" "$2" | sort; }
same_rows() { paste -d' ' "$1" "$2" | awk '{ n++ } NF != 8 || $1 != $5 || $2 != $6 ||
    ($3 - $7) ^ 2 > 0.0001 || ($4 - $8) ^ 2 > 0.0001 { bad = 1; print } END { exit bad || n < 2 }'; }
for run in "two pid" "two pid,sym" "thr tid" "thr tid,sym"; do
    set -- $run
    D=$TEST_TMP/$1.p.data key=${2%%,*}
    name=children_${2//,/_}
    "$PROSPECT" report -i "$D" --children --sort "$2" -g none >"$TEST_TMP/$name.text" 2>&1
    "$PROSPECT" report -i "$D" --children --sort "$2" -g none --format csv >"$TEST_TMP/$name.csv"
    "$PROSPECT" report -i "$D" --children --sort "$2" -g none --format json >"$TEST_TMP/$name.json"
    text_rows "$TEST_TMP/$name.text" >"$TEST_TMP/t"
    csv_rows "$TEST_TMP/$name.csv" "$key" >"$TEST_TMP/c"
    json_rows "$TEST_TMP/$name.json" "$key" >"$TEST_TMP/j"
    check "${name}_csv_equals_text" same_rows "$TEST_TMP/t" "$TEST_TMP/c"
    check "${name}_json_equals_text" same_rows "$TEST_TMP/t" "$TEST_TMP/j"
done
check children_tid_csv_header grep -qx 'children,self,samples,tid,pid,comm,symbol,mode' \
    "$TEST_TMP/children_tid_sym.csv"
check children_pid_csv_header grep -qx 'children,self,samples,pid,comm' "$TEST_TMP/children_pid.csv"
# With chains: a row without chain ends has them empty, as many fields as the header.
"$PROSPECT" report -i "$TEST_TMP/two.p.data" --children --sort pid --format csv >"$TEST_TMP/chains.csv"
check children_pid_csv_chains_fields python3 -c 'import csv, sys
r = list(csv.reader(open(sys.argv[1])))
sys.exit(not (r[0][-1] == "chain" and len(r) > 2 and all(len(x) == len(r[0]) for x in r)))' \
    "$TEST_TMP/chains.csv"
