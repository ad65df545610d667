#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# prospect stat -r: functions, inlined copies, lines, addresses, libraries, threads, recursion,
# fork/exec, per-thread, summary/CSV/sort. Counts that the program determines are exact.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/stat_lib.sh"
if ! uprobes_ready; then
    skip stat_regions "no writable tracefs uprobe_events (region tracing needs it)"
    exit 0
fi
W=$WL
build_workload stat_sum_inl stat_sum -O2 -g || { fail build "stat_sum"; exit 0; }
build_workload stat_sum_noinl stat_sum -O2 -g -DNOINLINE
build_workload stat_pages stat_pages -O2 -g
build_workload stat_pages_O0 stat_pages -O0 -g
build_workload stat_threads stat_threads -O2 -g -lpthread
build_workload stat_fib stat_fib -O0 -g
build_workload stat_forkexec stat_forkexec -O2 -g
build_workload stat_status stat_status -O2 -g
gcc -O2 -g -shared -fPIC -o "$W/libstatlib.so" "$(dirname "$0")/../workloads/stat_lib.c"
build_workload stat_libmain stat_libmain -O2 -g -L"$W" -lstatlib -ldl -Wl,-rpath,"$W"
build_workload stat_dlopen stat_dlopen -O2 -g -ldl
out=$TEST_TMP/stat_out.csv

# The seed's sum benchmark: noinline (a function with entry/return probes) and inlined into
# main (a DWARF inlined_subroutine site): one crossing each, the program's output unchanged.
for v in noinl inl; do
    res=$("$PROSPECT" stat -s --csv -o "$out" -r sum -r main "$W/stat_sum_$v" 2>"$TEST_TMP/err")
    check "sum_${v}_output_unchanged" [ "$res" = "499999500000" ]
    check "sum_${v}_one_crossing" [ "$(csv_get "$out" sum crossings)" = 1 ]
    check "sum_${v}_main_one_crossing" [ "$(csv_get "$out" main crossings)" = 1 ]
done
"$PROSPECT" stat -v -r sum "$W/stat_sum_inl" >/dev/null 2>"$TEST_TMP/err"
check sum_inl_verbose_lists_inline_site grep -q "inlined sum in main called at stat_sum.c:" "$TEST_TMP/err"

# Exactly N fresh pages touched inside touch_pages(), none inside prepare().
N=2000
"$PROSPECT" stat -s --csv -o "$out" -e page-faults -r touch_pages -r prepare "$W/stat_pages" $N >/dev/null 2>&1
pf=$(csv_get "$out" touch_pages page-faults)
check pages_inside_within_2pct within 2 "${pf:-0}" $N
pf_out=$(csv_get "$out" prepare page-faults)
check pages_outside_near_zero [ "${pf_out:-99}" -le 2 ]

# file:line (end exclusive) and raw address ranges over the same loop.
l1=$(grep -n '/\* REGION-START' "$(dirname "$0")/../workloads/stat_pages.c" | cut -d: -f1)
l2=$(grep -n '/\* REGION-END' "$(dirname "$0")/../workloads/stat_pages.c" | cut -d: -f1)
"$PROSPECT" stat -s --csv -o "$out" -e page-faults -r "stat_pages.c:$l1-stat_pages.c:$l2" \
    "$W/stat_pages_O0" $N >/dev/null 2>&1
pf=$(csv_get "$out" "stat_pages.c:$l1-stat_pages.c:$l2" page-faults)
check lines_region_pages_within_2pct within 2 "${pf:-0}" $N
start=$(nm "$W/stat_pages" | awk '$3 == "touch_pages" { print $1 }')
ret=$(objdump -d --no-show-raw-insn "$W/stat_pages" | sed -n '/<touch_pages>:/,/^$/p' |
      grep -m1 -w ret | awk '{ print $1 }' | tr -d :)
"$PROSPECT" stat -s --csv -o "$out" -e page-faults -r "0x$start-0x$ret" "$W/stat_pages" $N >/dev/null 2>&1
pf=$(awk -F, 'NR == 2 { print $0 }' "$out" | cut -d, -f1-3)
check address_region_one_crossing [ "$(awk -F, 'NR == 2 { print $3 }' "$out")" = 1 ]
pf=$(awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) if ($i == "page-faults") c = i } NR == 2 { print $c }' "$out")
check address_region_pages_within_2pct within 2 "${pf:-0}" $N

# Non-PIE: the same function and address regions with absolute link addresses.
build_workload stat_pages_nopie stat_pages -O2 -g -no-pie
"$PROSPECT" stat -s --csv -o "$out" -e page-faults -r touch_pages "$W/stat_pages_nopie" $N >/dev/null 2>&1
pf=$(csv_get "$out" touch_pages page-faults)
check nopie_function_pages_within_2pct within 2 "${pf:-0}" $N
start=$(nm "$W/stat_pages_nopie" | awk '$3 == "touch_pages" { print $1 }')
ret=$(objdump -d --no-show-raw-insn "$W/stat_pages_nopie" | sed -n '/<touch_pages>:/,/^$/p' |
      grep -m1 -w ret | awk '{ print $1 }' | tr -d :)
"$PROSPECT" stat -s --csv -o "$out" -e page-faults -r "0x$start-0x$ret" "$W/stat_pages_nopie" $N >/dev/null 2>&1
check nopie_address_region_one_crossing [ "$(awk -F, 'NR == 2 { print $3 }' "$out")" = 1 ]

# 4 threads x 1000 calls, often at the same time: every crossing counted, per thread too.
"$PROSPECT" stat -s --csv -o "$out" -r region_work "$W/stat_threads" >/dev/null 2>&1
check threads_4000_calls [ "$(csv_get "$out" region_work calls)" = 4000 ]
check threads_4000_crossings [ "$(csv_get "$out" region_work crossings)" = 4000 ]
"$PROSPECT" stat --per-thread -e task-clock -r region_work "$W/stat_threads" >"$TEST_TMP/pt" 2>&1
"$PROSPECT" stat -s --csv -o "$out" --per-thread -e task-clock -r region_work "$W/stat_threads" >/dev/null 2>&1
check per_thread_summary_rows [ "$(grep -c '^region_work \[tid [0-9]*\],1000,1000,' "$out")" = 4 ]
check per_thread_four_tables [ "$(grep -c '^region_work \[pid .* tid .*\]: 1000 calls, 1000 crossings' "$TEST_TMP/pt")" = 4 ]

# Recursion: fib(15) twice = 3946 calls, 2 outermost crossings.
"$PROSPECT" stat -s --csv -o "$out" -r fib "$W/stat_fib" >/dev/null 2>&1
check fib_calls_exact [ "$(csv_get "$out" fib calls)" = 3946 ]
check fib_outermost_exact [ "$(csv_get "$out" fib crossings)" = 2 ]

# Recursion past the kernel's uretprobe nesting limit (64): every call seen, one crossing; exits
# are probes on the returns, not return probes, so no limit applies and nothing is lost.
build_workload stat_deep stat_deep -O1 -g
"$PROSPECT" stat -s --csv -o "$out" -r deep "$W/stat_deep" 100 >/dev/null 2>"$TEST_TMP/err"
check deep_recursion_101_calls [ "$(csv_get "$out" deep calls)" = 101 ]
check deep_recursion_1_crossing [ "$(csv_get "$out" deep crossings)" = 1 ]
check deep_recursion_no_limit not grep -q "deeper than the kernel's uretprobe limit" "$TEST_TMP/err"
check deep_recursion_no_resync not grep -q "crossing(s)" "$TEST_TMP/err"

# A program that the command runs (through a shell): PATH:FUNCTION, probes follow the file.
"$PROSPECT" stat -s --csv -o "$out" -r "$W/stat_fib:fib" sh -c "'$W/stat_fib'; '$W/stat_fib'" >/dev/null 2>&1
check exec_child_program_calls [ "$(csv_get "$out" stat_fib:fib calls)" = 7892 ]
check exec_child_program_crossings [ "$(csv_get "$out" stat_fib:fib crossings)" = 4 ]

# fork + exec: 1 call in the parent, 2 in the child, 3 in the exec'd image; the target works
# (its own checks pass) and its exit status 7 comes through.
"$PROSPECT" stat -s --csv -o "$out" -r work "$W/stat_forkexec" >/dev/null 2>"$TEST_TMP/err"
rc=$?
check forkexec_status_passed_through [ $rc = 7 ]
check forkexec_child_ok not grep -q "child failed" "$TEST_TMP/err"
check forkexec_6_calls [ "$(csv_get "$out" work calls)" = 6 ]

# A function in a shared library: 5 calls through the dynamic linker + 3 through dlopen.
"$PROSPECT" stat -s --csv -o "$out" -r libstatlib.so:lib_work "$W/stat_libmain" "$W/libstatlib.so" >/dev/null 2>&1
check shlib_8_calls [ "$(csv_get "$out" libstatlib.so:lib_work calls)" = 8 ]
# A library the program only dlopen()s after start.
"$PROSPECT" stat -s --csv -o "$out" -r "$W/libstatlib.so:lib_work" "$W/stat_dlopen" "$W/libstatlib.so" >/dev/null 2>&1
check dlopen_4_calls [ "$(csv_get "$out" libstatlib.so:lib_work calls)" = 4 ]

# A region that never runs is listed with zero calls.
"$PROSPECT" stat -s --csv -o "$out" -r never_called -r called_once "$W/stat_status" 0 >/dev/null 2>&1
check never_run_region_zero_calls [ "$(csv_get "$out" never_called calls)" = 0 ]
check called_once_one_call [ "$(csv_get "$out" called_once calls)" = 1 ]

# Summary/CSV/sort: --sort-key page-faults --reverse-sort puts touch_pages (N faults) first.
"$PROSPECT" stat --summary --csv -o "$out" -e page-faults --sort-key page-faults --reverse-sort \
    -r prepare -r touch_pages "$W/stat_pages" $N >/dev/null 2>&1
check csv_header [ "$(head -1 "$out")" = "region,calls,crossings,wall-clock (ns),task-clock (ns),page-faults,% running" ]
check sort_reverse_first_row [ "$(sed -n 2p "$out" | cut -d, -f1)" = touch_pages ]
"$PROSPECT" stat --summary --csv -o "$out" -e page-faults --sort-key page-faults \
    -r touch_pages -r prepare "$W/stat_pages" $N >/dev/null 2>&1
check sort_first_row [ "$(sed -n 2p "$out" | cut -d, -f1)" = prepare ]
"$PROSPECT" stat --detail -e page-faults -r touch_pages "$W/stat_pages" $N >"$TEST_TMP/d" 2>&1
check detail_has_percentiles grep -Eq "\| +p50 \| +p99 \|" "$TEST_TMP/d"
check table_has_wall_and_task_clock grep -Eq "^\| wall-clock +\| +[0-9.]+ [mun]?s \|" "$TEST_TMP/d"
"$PROSPECT" stat --csv -e page-faults -r touch_pages -o "$TEST_TMP/c" "$W/stat_pages" $N >/dev/null 2>&1
check long_csv_header grep -q "^region,event,total,mean,min,max$" "$TEST_TMP/c"

# Inlined instances with DW_AT_ranges (hot part + cold part, unrolled copies): 3 + 2 calls.
build_workload stat_inline_ranges stat_inline_ranges -O2 -g
if objdump --dwarf=info "$W/stat_inline_ranges" | grep -A3 DW_TAG_inlined_subroutine | grep -q DW_AT_ranges; then
    "$PROSPECT" stat -v -s --csv -o "$out" -r checked_sum "$W/stat_inline_ranges" >/dev/null 2>"$TEST_TMP/err"
    check inline_ranges_5_calls [ "$(csv_get "$out" checked_sum calls)" = 5 ]
    check inline_ranges_5_crossings [ "$(csv_get "$out" checked_sum crossings)" = 5 ]
    check inline_ranges_verbose_fragments grep -q "inlined checked_sum in main called at stat_inline_ranges.c:[0-9]*: range 2/" "$TEST_TMP/err"
else
    skip inline_ranges "this gcc emitted no DW_AT_ranges for the inlined instances"
fi

# C++: qualified names resolve through demangled symbols; a bare name shared by two is ambiguous.
if command -v g++ >/dev/null; then
    g++ -O2 -g -o "$W/stat_cxx" "$(dirname "$0")/../workloads/stat_cxx.cc"
    "$PROSPECT" stat -s --csv -o "$out" -r 'ns::work' -r 'ns::K::work' "$W/stat_cxx" >/dev/null 2>&1
    check cxx_ns_work_10 [ "$(csv_get "$out" ns::work calls)" = 10 ]
    check cxx_member_work_10 [ "$(csv_get "$out" ns::K::work calls)" = 10 ]
    "$PROSPECT" stat -r work "$W/stat_cxx" >/dev/null 2>"$TEST_TMP/err"
    check cxx_bare_name_ambiguous grep -q "'work' is ambiguous.*ns::work(int)" "$TEST_TMP/err"
else
    skip cxx_names "no g++"
fi

check no_probes_left_behind no_probes_left

# A line range whose start is a loop head: one crossing (the whole loop), not an entry per
# iteration that never closes; and a warning that each iteration hit the start probe.
"$PROSPECT" stat -s -r stat_sum.c:17-19 -o "$TEST_TMP/loophead.txt" -- "$WL/stat_sum_noinl" >/dev/null 2>"$TEST_TMP/loophead.err"
check loop_head_range_one_crossing grep -qE '^\| stat_sum.c:17-19 +\| +1 \| +1 \|' "$TEST_TMP/loophead.txt"
# (-o: the warning goes with the results, into the file.)
check loop_head_range_warned grep -q "its start was reached [0-9]* more times inside the region" "$TEST_TMP/loophead.txt"
