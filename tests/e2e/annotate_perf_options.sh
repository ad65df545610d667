# SPDX-License-Identifier: MIT
# prospect annotate with perf annotate's option spellings (issue 23, section 3), each against
# perf (or objdump) on the same perf.data: -s/--symbol, -l/--print-line (perf's sorted summary),
# --asm-raw (objdump's bytes), --percent-type, --no-source, -n, --stdio, --skip-missing, and a
# function named by another symbol of its address (__memcpy_... for __memmove_...).
. "$(dirname "$0")/lib.sh"

if ! command -v perf >/dev/null || ! perf record -q -o "$TEST_TMP/probe.data" -- true >/dev/null 2>&1; then
    skip annotate_perf_options "perf is not installed or cannot record here"
    exit 0
fi
build_workload annotate_div annotate_div -O2 -g || { fail annotate_options "cannot build"; exit 0; }
prog=$WL/annotate_div
data=$TEST_TMP/div.data
perf record -q -o "$data" -- "$prog" 20000000 >/dev/null 2>&1 ||
    { fail annotate_options "perf record failed"; exit 0; }
ann() { "$PROSPECT" annotate -i "$data" "$@" 2>/dev/null; }
# both_same A B: A is not empty and B is byte for byte A.
both_same() { [ -s "$1" ] && cmp -s "$1" "$2"; }
# Instruction rows of a text listing as address|percent (rows with samples).
rows() { awk '$3 ~ /^[0-9a-f]+:/ && $1 ~ /^[0-9.]+$/ { a = $3; sub(":.*", "", a); print a "|" $1 }'; }

# ---- -s, -n, --stdio: the same listing as the SYMBOL argument --------------------------------
ann divide >"$TEST_TMP/pos.txt"
ann -s divide >"$TEST_TMP/s.txt"
ann --symbol=divide -n --stdio --show-nr-samples >"$TEST_TMP/sn.txt"
check annotate_symbol_option_is_the_argument both_same "$TEST_TMP/pos.txt" "$TEST_TMP/s.txt"
check annotate_n_stdio_accepted cmp -s "$TEST_TMP/pos.txt" "$TEST_TMP/sn.txt"
ann -s divide mix | grep -c '(.* samples, .*% of all)' >"$TEST_TMP/two"
check annotate_symbol_option_adds_to_arguments [ "$(cat "$TEST_TMP/two")" = 2 ]

# ---- --no-source: no source lines, the same instruction rows ---------------------------------
ann --no-source divide >"$TEST_TMP/ns.txt"
check annotate_no_source_has_no_source_lines not grep -q 'annotate_div\.c:' "$TEST_TMP/ns.txt"
check annotate_no_source_same_rows cmp -s <(rows <"$TEST_TMP/pos.txt") <(rows <"$TEST_TMP/ns.txt")
perf annotate --stdio --no-source -i "$data" divide 2>/dev/null >"$TEST_TMP/ns.perf"
check annotate_no_source_as_perf not grep -q 'annotate_div\.c' "$TEST_TMP/ns.perf"
out=$("$PROSPECT" annotate -i "$data" --no-source --source divide 2>&1)
check annotate_no_source_with_source_refused [ $? -eq 2 -a -n "$(grep -- '--no-source' <<<"$out")" ]

# ---- --asm-raw: each instruction's bytes are objdump's -------------------------------------
ann --asm-raw --no-source divide |
    awk '{ for (i = 1; i <= NF; i++) if ($i ~ /^[0-9a-f]+:[> ]?[v^]?$/ || $i ~ /^[0-9a-f]+:$/) {
               a = $i; sub(":.*", "", a); b = ""
               for (j = i + 1; j <= NF; j++) { if ($j ~ /^[v^>]+$/) continue
                   if ($j !~ /^[0-9a-f][0-9a-f]$/) break; b = b " " $j }
               print a ":" b; break } }' >"$TEST_TMP/raw.ours"
objdump -d --insn-width=16 "$prog" | awk '$2 == "<divide>:" { on = 1; next } on && NF == 0 { exit }
    on { split($0, p, "\t"); a = p[1]; gsub(/[ :]/, "", a); b = p[2]; gsub(/ +$/, "", b)
         print a ": " b }' | head -n "$(wc -l <"$TEST_TMP/raw.ours")" >"$TEST_TMP/raw.objdump"
check annotate_asm_raw_bytes_are_objdumps both_same "$TEST_TMP/raw.ours" "$TEST_TMP/raw.objdump"

# ---- -l: perf annotate -l's sorted summary of the source lines -------------------------------
ann -l divide | awk '/^# Sorted summary/ { on = 1; next } on && /^# / { print $2, $3; next } on { exit }' \
    >"$TEST_TMP/l.ours"
perf annotate --stdio -l -i "$data" divide 2>/dev/null |
    awk '/^Sorted summary/ { on = 1; next } on && /^-+$/ { next } on && NF == 0 { if (n) exit; next }
         on && NF == 2 { print $1, $2; n++ }' >"$TEST_TMP/l.perf"
out=$(awk 'NR == FNR { p[$2] = $1; np++; next } { o[$2] = $1; no++ }
    END { if (!np) print "perf printed no summary"; if (np != no) printf "%d lines, perf %d; ", no, np
          for (l in p) { d = o[l] - p[l]; if (d < 0) d = -d; if (!(l in o) || d > 0.02)
              printf "%s ours %s perf %s; ", l, o[l], p[l] } }' "$TEST_TMP/l.perf" "$TEST_TMP/l.ours")
if [ -z "$out" ]; then pass annotate_print_line_summary_is_perfs
else fail annotate_print_line_summary_is_perfs "$out"; fi

# ---- --percent-type: local-hits as perf's; global-* as perf's local x the function's share ----
perf_rows() {
    perf annotate --stdio -i "$data" "$@" 2>/dev/null |
        awk '$2 == ":" && $3 ~ /^[0-9a-f]+:$/ && $1 > 0 { a = $3; sub(":", "", a); print a "|" $1 }'
}
cmp_rows() {   # NAME OURS PERF: every row within 0.02 points, the same rows
    local o
    o=$(awk -F'|' 'NR == FNR { p[$1] = $2; next } { o[$1] = $2 }
        END { for (a in p) { d = o[a] - p[a]; if (d < 0) d = -d
                  if (!(a in o) || d > 0.02) printf "%s ours %s perf %s; ", a, o[a], p[a] }
              for (a in o) if (!(a in p)) printf "%s only ours; ", a }' "$3" "$2")
    if [ -z "$o" ] && [ -s "$3" ]; then pass "$1"; else fail "$1" "${o:-perf showed no rows}"; fi
}
ann --percent-type local-hits divide | rows >"$TEST_TMP/lh.ours"
perf_rows --percent-type local-hits divide >"$TEST_TMP/lh.perf"
cmp_rows annotate_percent_type_local_hits_is_perfs "$TEST_TMP/lh.ours" "$TEST_TMP/lh.perf"
# perf 6.1's --stdio global types print the local numbers (period) or 0.00 (hits): the oracle
# is perf's local percent times perf report's share of the function.
share=$(perf report --stdio -q -i "$data" --sort sym 2>/dev/null | awk '$3 == "divide" { sub("%", "", $1); print $1 }')
perf_rows divide | awk -F'|' -v s="$share" '{ printf "%s|%.2f\n", $1, $2 * s / 100 }' >"$TEST_TMP/gp.perf"
ann --percent-type global-period divide | rows >"$TEST_TMP/gp.ours"
cmp_rows annotate_percent_type_global_period_is_perfs_share "$TEST_TMP/gp.ours" "$TEST_TMP/gp.perf"
out=$("$PROSPECT" annotate -i "$data" --percent-type bogus divide 2>&1)
check annotate_percent_type_bad_refused [ $? -eq 2 -a -n "$(grep -- 'local-period' <<<"$out")" ]

# ---- --skip-missing: functions that cannot be disassembled are left out --------------------
# (here kernel code without /proc/kcore, or with it code of modules not readable)
ann --top 0 >"$TEST_TMP/all.txt"
ann --top 0 --skip-missing >"$TEST_TMP/skip.txt"
missing=$(grep -c ': not annotated:' "$TEST_TMP/all.txt")
if [ "$missing" -eq 0 ]; then
    skip annotate_skip_missing "every function of the file could be disassembled here"
else
    check annotate_skip_missing_leaves_them_out not grep -q ': not annotated:' "$TEST_TMP/skip.txt"
    check annotate_skip_missing_keeps_the_others cmp -s <(grep '% of all)$' "$TEST_TMP/all.txt") \
        <(grep '% of all)$' "$TEST_TMP/skip.txt")
fi

# ---- a function named by an alias of its address ---------------------------------------------
cat >"$TEST_TMP/mc.c" <<'C'
#include <stdlib.h>
#include <string.h>
int main(void)
{
    size_t n = 1 << 20;
    char *a = malloc(n), *b = malloc(n);
    memset(a, 1, n);
    for (int i = 0; i < 20000; i++) {
        memcpy(b, a, n);
        a[i % n] = b[(i * 7) % n];
    }
    return b[5] == 9;
}
C
gcc -O1 -o "$WL/mc" "$TEST_TMP/mc.c" && perf record -q -o "$TEST_TMP/mc.data" -- "$WL/mc" >/dev/null 2>&1 ||
    { fail annotate_alias "cannot build or record the memcpy loop"; exit 0; }
hot=$(perf report --stdio -q -i "$TEST_TMP/mc.data" --sort sym 2>/dev/null | awk '$2 == "[.]" { print $3; exit }')
libc=$(ldd "$WL/mc" | awk '$1 ~ /^libc\.so/ { print $3 }')
# Another name of the hot function's address from libc's symbols (its debug file's .symtab).
dbg=$("$PROSPECT" annotate -i "$TEST_TMP/mc.data" -s "$hot" --format json 2>/dev/null |
      python3 -c 'import json,sys; f=json.load(sys.stdin)["functions"][0]; print("%x" % f["start"])')
alias=""
for f in "$libc" $(find /usr/lib/debug -name '*.debug' 2>/dev/null | head -200); do
    alias=$(nm "$f" 2>/dev/null | awk -v a="$dbg" -v h="$hot" '{ x = $1; sub(/^0+/, "", x) }
        x == a && $3 != h && $3 ~ /^__mem/ { print $3; exit }')
    [ -n "$alias" ] && break
done
if [ -z "$hot" ] || [ -z "$alias" ]; then
    skip annotate_alias_names_the_function "no second libc symbol at ${hot:-the hot function}'s address (libc6-dbg)"
else
    ann_alias=$("$PROSPECT" annotate -i "$TEST_TMP/mc.data" "$alias" 2>/dev/null | rows)
    ann_hot=$("$PROSPECT" annotate -i "$TEST_TMP/mc.data" "$hot" 2>/dev/null | rows)
    check annotate_alias_names_the_function [ -n "$ann_hot" -a "$ann_alias" = "$ann_hot" ]
fi
