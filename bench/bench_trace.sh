#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# prospect trace vs ltrace, ltrace -p and uftrace on the same work: malloc(144)/free pairs that
# the target times itself (wall and thread-cpu ns per call). "added" is the traced per-call time
# minus the untraced one; medians of RUNS runs. Issue 12's targets: launched <= 0.05 us per call
# added (with exact counts), attached <= 2 us per call (>= 200x ltrace -p).
set -u
cd "$(dirname "$0")/.."
T=${BENCH_TMP:-$(mktemp -d)}
. bench/lib.sh
PROSPECT=${PROSPECT:-$PWD/prospect}
RUNS=${RUNS:-5}
N=${N:-2000000}          # pairs for the fast tracers
NSLOW=${NSLOW:-2000}     # pairs under ltrace (~0.5 ms a call)
gcc -O2 -o "$T/tt" bench/trace_target.c || exit 1

# run_loop NAME CMD...: median wall and cpu ns per call of RUNS runs -> NAME_w, NAME_c
run_loop() {
    local name=$1 i; shift
    : >"$T/$name.w"; : >"$T/$name.c"
    for i in $(seq "$RUNS"); do
        "$@" 2>"$T/run.err" >/dev/null
        awk '/wall_ns_per_call/ { print $2 >> "'"$T/$name.w"'"; print $4 >> "'"$T/$name.c"'" }' "$T/run.err"
    done
    eval "${name}_w=$(median <"$T/$name.w") ${name}_c=$(median <"$T/$name.c")"
}
sub() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.2f", a - b }'; }

run_loop base "$T/tt" loop "$N"
run_loop pt_sum "$PROSPECT" trace -c -e malloc+free -o "$T/sum.txt" -- "$T/tt" loop "$N"
run_loop pt_txt "$PROSPECT" trace -e malloc+free -o "$T/lines.txt" -- "$T/tt" loop "$N"
run_loop pt_w "$PROSPECT" trace -c -e malloc+free -w "$T/c.trace" -o /dev/null -- "$T/tt" loop "$N"
run_loop base_slow "$T/tt" loop "$NSLOW"
have_ltrace=0; command -v ltrace >/dev/null && have_ltrace=1
have_uftrace=0; command -v uftrace >/dev/null && have_uftrace=1
[ $have_ltrace = 1 ] && run_loop lt ltrace -e malloc+free -o "$T/lt.txt" "$T/tt" loop "$NSLOW"
# uftrace without -pg: --force records the library calls it hooks through the PLT.
[ $have_uftrace = 1 ] && run_loop uf uftrace record -d "$T/uft" --force "$T/tt" loop "$((N / 10))"

# Attached: the same pairs in a running process, with prospect trace -p (uprobes) and ltrace -p.
attach_batch() {   # attach_batch N -> "W C" from the target's answer
    echo "go $1" >&7; local did n w c; read -r did n w c <&8; echo "$w $c"
}
attached() {   # attached NAME N TRACER...: NAME_w/_c attached, NAME_bw/_bc unattached
    local name=$1 n=$2; shift 2
    mkfifo "$T/in.$name" "$T/out.$name"
    [ "$1" = "$PROSPECT" ] && mkfifo "$T/err.$name"
    "$T/tt" attach <"$T/in.$name" >"$T/out.$name" & local tp=$!
    exec 7>"$T/in.$name" 8<"$T/out.$name"; local r p; read -r r p <&8
    read -r bw bc < <(attach_batch "$n")
    "$@" "$tp" 2>"$T/err.$name" >/dev/null & local trp=$!
    if [ "$1" = "$PROSPECT" ]; then
        exec 9<"$T/err.$name"; read -r _ <&9   # "prospect trace: attached"
    else   # ltrace: no signal of readiness; wait until it traces, then let it set its breakpoints
        while ! awk '/^TracerPid:/ { exit !($2 > 0) }' /proc/$tp/status; do sleep 0.05; done
        sleep 1
    fi
    read -r aw ac < <(attach_batch "$n")
    kill -INT "$trp"; wait "$trp" 2>/dev/null; [ "$1" = "$PROSPECT" ] && exec 9<&-
    exec 7>&-; wait "$tp"; exec 8<&-
    eval "${name}_w=$aw ${name}_c=$ac ${name}_bw=$bw"
}
attached pg 1000000 "$PROSPECT" trace -c -e malloc+free -o "$T/pg.txt" -p
attached pa 100000 "$PROSPECT" trace --uprobes -c -e malloc+free -o "$T/pa.txt" -p
[ $have_ltrace = 1 ] && attached la 1000 ltrace -e malloc+free -o "$T/la.txt" -p

printf "%-44s %12s %12s %12s\n" "per traced malloc/free call (median of $RUNS)" "wall ns" "cpu ns" "added ns"
printf "%-44s %12s %12s %12s\n" "untraced ($N pairs)" "$base_w" "$base_c" "-"
printf "%-44s %12s %12s %12s\n" "prospect trace --summary" "$pt_sum_w" "$pt_sum_c" "$(sub "$pt_sum_w" "$base_w")"
printf "%-44s %12s %12s %12s\n" "prospect trace -w calls.trace" "$pt_w_w" "$pt_w_c" "$(sub "$pt_w_w" "$base_w")"
printf "%-44s %12s %12s %12s\n" "prospect trace -o lines.txt (ltrace lines)" "$pt_txt_w" "$pt_txt_c" "$(sub "$pt_txt_w" "$base_w")"
[ $have_uftrace = 1 ] && printf "%-44s %12s %12s %12s\n" "uftrace record --force ($((N / 10)) pairs)" "$uf_w" "$uf_c" "$(sub "$uf_w" "$base_w")"
[ $have_ltrace = 1 ] && printf "%-44s %12s %12s %12s\n" "ltrace -e malloc+free ($NSLOW pairs)" "$lt_w" "$lt_c" "$(sub "$lt_w" "$base_slow_w")"
printf "%-44s %12s %12s %12s\n" "prospect trace -p (GOT, 1000000 pairs)" "$pg_w" "$pg_c" "$(sub "$pg_w" "$pg_bw")"
printf "%-44s %12s %12s %12s\n" "prospect trace --uprobes -p (100000 pairs)" "$pa_w" "$pa_c" "$(sub "$pa_w" "$pa_bw")"
[ $have_ltrace = 1 ] && printf "%-44s %12s %12s %12s\n" "ltrace -p (1000 pairs)" "$la_w" "$la_c" "$(sub "$la_w" "$la_bw")"
echo
add_sum=$(sub "$pt_sum_w" "$base_w"); add_cpu=$(sub "$pt_sum_c" "$base_c")
echo "launched: prospect adds $add_sum ns wall, $add_cpu ns cpu per call (target <= 50 ns)"
[ $have_uftrace = 1 ] && echo "  uftrace/prospect (added wall): $(ratio "$(sub "$uf_w" "$base_w")" "$add_sum")x"
[ $have_ltrace = 1 ] && echo "  ltrace/prospect (added wall): $(ratio "$(sub "$lt_w" "$base_slow_w")" "$add_sum")x"
# Issue 23: a trace written to disk at most half of uftrace record's cost per call.
[ $have_uftrace = 1 ] && echo "written trace: prospect trace -w adds $(sub "$pt_w_w" "$base_w") ns," \
     "uftrace record $(sub "$uf_w" "$base_w") ns per call:" \
     "$(ratio "$(sub "$pt_w_w" "$base_w")" "$(sub "$uf_w" "$base_w")")x (target <= 0.5x)"
echo "attached: prospect -p adds $(sub "$pg_w" "$pg_bw") ns per call (GOT; target <= 2000 ns)," \
     "$(sub "$pa_w" "$pa_bw") ns with --uprobes"
[ $have_ltrace = 1 ] && echo "  ltrace -p/prospect -p: $(ratio "$(sub "$la_w" "$la_bw")" "$(sub "$pg_w" "$pg_bw")")x (target >= 200x)," \
     "ltrace -p/prospect --uprobes -p: $(ratio "$(sub "$la_w" "$la_bw")" "$(sub "$pa_w" "$pa_bw")")x"
