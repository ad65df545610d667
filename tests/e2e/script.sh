# SPDX-License-Identifier: MIT
# prospect script against perf script, the oracle (issue 23, section 1): on the same file, the
# lines are equal, sample for sample and field by field: -g, dwarf (call chains), tracepoint,
# multi-event and pipe-mode files recorded by perf, and files recorded by prospect; -F, --time
# (seconds, percent slices, several ranges), --ns, --pid/--tid/--comm/--cpu as perf's.
. "$(dirname "$0")/lib.sh"

if ! command -v perf >/dev/null || ! perf record -q -o "$TEST_TMP/probe.data" -- true >/dev/null 2>&1; then
    skip script_matches_perf "perf is not installed or cannot record here"
    exit 0
fi
build_workload callgraph callgraph -O0 -fno-omit-frame-pointer ||
    { fail script_build "cannot build tests/workloads/callgraph.c"; exit 0; }
CG=$WL/callgraph
D=$TEST_TMP

# same NAME FILE [OPTIONS...]: perf script and prospect script print the same lines.
same() {
    local name=$1 file=$2; shift 2
    perf script -i "$file" "$@" > "$D/$name.perf" 2>/dev/null
    "$PROSPECT" script -i "$file" "$@" > "$D/$name.ours" 2> "$D/$name.err"
    local rc=$? n
    n=$(grep -c . "$D/$name.perf")
    if [ $rc -ne 0 ]; then
        fail "$name" "exit $rc: $(head -2 "$D/$name.err")"
    elif [ "$n" -eq 0 ]; then
        fail "$name" "perf script printed nothing"
    elif ! cmp -s "$D/$name.perf" "$D/$name.ours"; then
        fail "$name" "$(diff "$D/$name.perf" "$D/$name.ours" | grep -c '^[<>]') lines differ of $n, first: $(diff "$D/$name.perf" "$D/$name.ours" | grep '^[<>]' | head -2 | tr '\n' ' ')"
    else
        pass "$name"
    fi
}

# -g (frame pointers), one event
precord -g -F 2999 -o "$D/g.data" -- "$CG" 200 || { fail script_record "perf record -g failed"; exit 0; }
same script_g_matches_perf "$D/g.data"
same script_fields_match_perf "$D/g.data" -F comm,pid,tid,time,ip,sym,dso
same script_fields_plus_minus_match_perf "$D/g.data" -F -dso
same script_ns_matches_perf "$D/g.data" --ns

# no call chains: one line per sample, fixed period (-c)
precord -e cpu-clock -c 100000 -o "$D/c.data" -- "$CG" 100 || { fail script_record "perf record -c failed"; exit 0; }
same script_flat_matches_perf "$D/c.data"
same script_flat_fields_match_perf "$D/c.data" -F comm,tid,period,event,ip,sym,symoff

# system-wide, two events with call chains, CPU numbers. Compared on the workload's samples:
# other processes of this shared machine run code whose nested symbols perf names by the shape
# of its symbol tree (docs/script.md)
W="--comm callgraph"
if precord -a -g -e cpu-clock -e page-faults -o "$D/ag.data" -- "$CG" 100; then
    same script_multi_event_matches_perf "$D/ag.data" $W
    cpu=$(perf script -i "$D/ag.data" -F cpu $W 2>/dev/null | tail -1 | tr -dc 0-9)
    same script_cpu_filter_matches_perf "$D/ag.data" $W --cpu "$((10#${cpu:-0}))"
    pid=$(perf script -i "$D/ag.data" -F comm,pid 2>/dev/null | awk '$1 == "callgraph" { print $2; exit }')
    same script_pid_filter_matches_perf "$D/ag.data" --pid "${pid:-1}"
    same script_tid_filter_matches_perf "$D/ag.data" --tid "${pid:-1}"
    # --time: the middle half of the samples by absolute seconds, percent slices, two ranges
    perf script -i "$D/ag.data" -F time --ns $W 2>/dev/null | tr -d ' :' > "$D/times"
    n=$(wc -l < "$D/times")
    a=$(sed -n "$((n / 4 + 1))p" "$D/times"); b=$(sed -n "$((3 * n / 4))p" "$D/times")
    c=$(sed -n "$((n - 3))p" "$D/times")
    same script_time_seconds_match_perf "$D/ag.data" $W --time "$a,$b"
    same script_time_ranges_match_perf "$D/ag.data" $W --time "$a,$b $c,"
    same script_time_open_start_matches_perf "$D/ag.data" $W --time ",$a"
    same script_time_slice_matches_perf "$D/ag.data" $W --time 10%/2
    same script_time_percent_ranges_match_perf "$D/ag.data" $W --time 0%-10%,30%-40%
else
    skip script_multi_event_matches_perf "perf record -a failed here"
fi

# tracepoints (their fields as perf prints them), with and without call chains
if precord -a -e sched:sched_switch -e sched:sched_wakeup -o "$D/tp.data" -- "$CG" 50; then
    same script_tracepoints_match_perf "$D/tp.data"
    same script_trace_fields_match_perf "$D/tp.data" -F comm,tid,event,trace
else
    skip script_tracepoints_match_perf "cannot record sched tracepoints"
fi
# "nap" sleeps once a round: switches at a known frame even on an idle machine
if precord -g -e sched:sched_switch -o "$D/tpg.data" -- "$CG" 50 nap; then
    same script_tracepoint_chains_match_perf "$D/tpg.data"
fi

# pipe mode: perf record -o - | prospect script -i -
if perf record -q -g -F 2999 -o - -- "$CG" 100 > "$D/pipe.data" 2>/dev/null; then
    perf script -i - < "$D/pipe.data" > "$D/pipe.perf" 2>/dev/null
    "$PROSPECT" script -i - < "$D/pipe.data" > "$D/pipe.ours" 2>/dev/null
    check script_pipe_matches_perf cmp -s "$D/pipe.perf" "$D/pipe.ours"
    check script_pipe_not_empty grep -q 'leaf+0x' "$D/pipe.ours"
fi

# files Prospect recorded, read by both
"$PROSPECT" record -g -F 2999 -o "$D/pg.data" -- "$CG" 200 >/dev/null 2>&1 &&
    same script_prospect_g_file_matches_perf "$D/pg.data"

# dwarf call graphs: the same unwound frames (addresses) as perf's; perf adds DWARF's inlined
# functions as extra lines at the same address, which Prospect does not print (docs/script.md):
# a run of lines of one address counts once
dwarf_same() {
    local name=$1 file=$2
    perf script -i "$file" -F comm,tid,time,ip 2>/dev/null | sed "s/ (inlined)$//" | uniq > "$D/$name.perf"
    "$PROSPECT" script -i "$file" -F comm,tid,time,ip 2>/dev/null | uniq > "$D/$name.ours"
    local n; n=$(grep -c '^	' "$D/$name.perf")
    if [ "$n" -lt 10 ]; then
        fail "$name" "perf unwound only $n frames"
    elif ! cmp -s "$D/$name.perf" "$D/$name.ours"; then
        fail "$name" "$(diff "$D/$name.perf" "$D/$name.ours" | grep -c '^[<>]') lines differ of $(wc -l < "$D/$name.perf"), first: $(diff "$D/$name.perf" "$D/$name.ours" | grep '^[<>]' | head -4 | tr '\n\t' '  ')"
    else
        pass "$name"
    fi
}
if precord --call-graph dwarf -F 999 -o "$D/dw.data" -- "$CG" 100; then
    dwarf_same script_dwarf_frames_match_perf "$D/dw.data"
fi
if "$PROSPECT" record --call-graph dwarf -F 999 -o "$D/pdw.data" -- "$CG" 100 >/dev/null 2>&1; then
    dwarf_same script_prospect_dwarf_frames_match_perf "$D/pdw.data"
fi

# srcline: the workload's own lines (built with -g) as perf's; libraries' inlined code is not
# compared (perf pairs an inlined line with its caller's file: docs/script.md)
if build_workload callgraph_g callgraph -O0 -g -fno-omit-frame-pointer &&
   precord -e cpu-clock:u -c 100000 -o "$D/sl.data" -- "$WL/callgraph_g" 100; then
    perf script -i "$D/sl.data" -F ip,sym,dso,srcline 2>/dev/null |
        grep -A1 '(.*/callgraph_g)$' > "$D/sl.perf"
    "$PROSPECT" script -i "$D/sl.data" -F ip,sym,dso,srcline 2>/dev/null |
        grep -A1 '(.*/callgraph_g)$' > "$D/sl.ours"
    if ! grep -q '^  callgraph.c:[0-9]' "$D/sl.perf"; then
        fail script_srcline_matches_perf "perf printed no callgraph.c line"
    else
        check script_srcline_matches_perf cmp -s "$D/sl.perf" "$D/sl.ours"
    fi
fi

# --header: the file's description as '# ' lines, then the same samples
"$PROSPECT" script -i "$D/g.data" --header > "$D/h.ours" 2>/dev/null
check script_header_is_comments grep -q '^# cmdline .*callgraph 200' "$D/h.ours"
grep -v '^#' "$D/h.ours" > "$D/h.samples"
check script_header_then_samples cmp -s "$D/h.samples" "$D/script_g_matches_perf.perf"

# bad input: one line naming the file, no crash; bad options are usage errors
head -c 3000 "$D/g.data" > "$D/cut.data"
"$PROSPECT" script -i "$D/cut.data" > /dev/null 2> "$D/cut.err"; rc=$?
check script_truncated_file_is_one_error [ $rc -le 1 -a "$(grep -c "cut.data: offset" "$D/cut.err")" -eq 1 ]
"$PROSPECT" script -i "$D/nonexistent.data" > /dev/null 2> "$D/ne.err"; rc=$?
if [ $rc -eq 1 ] && grep -q nonexistent.data "$D/ne.err"; then pass script_missing_file_is_error
else fail script_missing_file_is_error "exit $rc: $(head -1 "$D/ne.err")"; fi
"$PROSPECT" script -i "$D/g.data" -F comm,bogus > /dev/null 2> "$D/f.err"; rc=$?
check script_unknown_field_is_usage_error [ $rc -eq 2 ]
"$PROSPECT" script -i "$D/c.data" -F comm,cpu > /dev/null 2> "$D/f2.err"; rc=$?
check script_missing_field_is_error grep -q "no cpu" "$D/f2.err"
"$PROSPECT" script -i "$D/g.data" --time 5,2 > /dev/null 2>&1; rc=$?
check script_bad_time_is_usage_error [ $rc -eq 2 ]
