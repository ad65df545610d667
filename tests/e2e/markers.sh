# SPDX-License-Identifier: MIT
# In-program markers (<prospect/region.h>, libprospect) counted by `prospect stat --markers`:
# through the installed library and pkg-config, exact across threads, nested, and inert outside
# Prospect.
source "$(dirname "$0")/lib.sh"
prefix=$TEST_TMP/prefix
make -s --no-print-directory install-lib PREFIX="$prefix" >"$TEST_TMP/install.log" 2>&1
check install_lib_succeeds test $? -eq 0
check installed_region_h test -f "$prefix/include/prospect/region.h"
export PKG_CONFIG_PATH=$prefix/lib/pkgconfig
src=$(dirname "$0")/../workloads/markers.c
gcc -std=c99 -pedantic -Wall -Wextra -Werror -O2 -o "$TEST_TMP/mk_static" "$src" \
    $(pkg-config --cflags prospect) "$prefix/lib/libprospect.a" -lpthread -lm 2>"$TEST_TMP/cc.log"
check links_static test $? -eq 0
gcc -std=c99 -Wall -Wextra -Werror -O2 -o "$TEST_TMP/mk_shared" "$src" \
    $(pkg-config --cflags --libs prospect) -lpthread 2>>"$TEST_TMP/cc.log"
check links_shared test $? -eq 0
if command -v g++ >/dev/null; then
    cp "$src" "$TEST_TMP/mk.cc"
    g++ -std=c++11 -Wall -Wextra -Werror -o "$TEST_TMP/mk_cxx" "$TEST_TMP/mk.cc" \
        $(pkg-config --cflags prospect) "$prefix/lib/libprospect.a" -lpthread 2>"$TEST_TMP/cxx.log"
    check region_h_compiles_as_cxx test $? -eq 0
else
    skip region_h_compiles_as_cxx "g++ not installed (scripts/install-deps installs it)"
fi

# 2 threads x 1000 crossings: exactly 2000 crossings of each region; "outer" is re-entered
# inside itself, so 4000 calls for 2000 crossings.
for kind in static shared; do
    out=$TEST_TMP/stat_$kind.txt
    LD_LIBRARY_PATH=$prefix/lib "$PROSPECT" stat --markers -o "$out" -- "$TEST_TMP/mk_$kind" 2 1000 \
        >"$TEST_TMP/stdout_$kind" 2>"$TEST_TMP/stderr_$kind"
    rc=$?
    check "exit_status_passed_${kind}" test $rc -eq 3
    check "program_saw_prospect_${kind}" grep -qx "markers on" "$TEST_TMP/stdout_$kind"
    check "inner_exact_2000_${kind}" grep -qx "inner: 2000 calls, 2000 crossings" "$out"
    check "outer_counts_once_per_crossing_${kind}" grep -qx "outer: 4000 calls, 2000 crossings" "$out"
done

# Names are text, not pointers: a buffer reused for other names, one name from two arrays, and
# a newline in a name (written as '?': it must not cut the channel's records).
gcc -std=c99 -Wall -Wextra -Werror -O2 -o "$TEST_TMP/mk_names" \
    "$(dirname "$0")/../workloads/markers_names.c" $(pkg-config --cflags prospect) \
    "$prefix/lib/libprospect.a" -lpthread 2>>"$TEST_TMP/cc.log"
"$PROSPECT" stat --markers -e task-clock -o "$TEST_TMP/names.txt" -- "$TEST_TMP/mk_names" \
    >/dev/null 2>"$TEST_TMP/names.err"
check reused_buffer_names_apart grep -qx "a: 100 calls, 100 crossings" "$TEST_TMP/names.txt"
check reused_buffer_second_name grep -qx "b: 50 calls, 50 crossings" "$TEST_TMP/names.txt"
check same_name_two_arrays_one_crossing grep -qx "outer: 2 calls, 1 crossing" "$TEST_TMP/names.txt"
check newline_in_name_kept grep -qx "new?line: 1 call, 1 crossing" "$TEST_TMP/names.txt"

# Ended threads' tables are merged: 4000 short-lived threads count exactly, their unclosed
# regions are reported, and the program's memory stays small (one table per thread was
# ~14 KiB each: 56 MiB here, 270 MB for 20000 threads).
gcc -std=c99 -Wall -Wextra -Werror -O2 -o "$TEST_TMP/mk_threads" \
    "$(dirname "$0")/../workloads/markers_threads.c" $(pkg-config --cflags prospect) \
    "$prefix/lib/libprospect.a" -lpthread 2>>"$TEST_TMP/cc.log"
"$PROSPECT" stat --markers -e task-clock -o "$TEST_TMP/threads.txt" -- "$TEST_TMP/mk_threads" 4000 \
    >"$TEST_TMP/threads.out" 2>"$TEST_TMP/threads.err"
check ended_threads_exact grep -qx "t: 4000 calls, 4000 crossings" "$TEST_TMP/threads.txt"
# "t" is empty (sub-microsecond crossings): each column has its unit, so no time cell reads
# "0.000" (ms, once the table's one unit, chosen by the largest total).
check empty_region_times_keep_digits not grep -q " 0\.000 " "$TEST_TMP/threads.txt"
check empty_region_time_units grep -Eq "^\| wall-clock +\| +[0-9.]+ [mun]?s \| +[0-9.]+ [mun]?s \|" "$TEST_TMP/threads.txt"
# (-o: the warning goes with the results, into the file, not into the command's stderr.)
check ended_threads_unclosed_reported grep -q "open.*4000" "$TEST_TMP/threads.txt"
check ended_threads_warning_not_on_stderr not grep -q "open.*4000" "$TEST_TMP/threads.err"
rss=$(awk '/^maxrss_kb/ { print $2 }' "$TEST_TMP/threads.out")
check ended_threads_memory_bounded [ "${rss:-999999}" -lt 24000 ]

# Nesting: outer contains inner, so its task-clock total is at least inner's; the table is
# stat -r's (CSV: region,event,total,mean,min,max).
"$PROSPECT" stat --markers --csv -e task-clock,page-faults -o "$TEST_TMP/n.csv" -- \
    "$TEST_TMP/mk_static" 2 300 >/dev/null 2>"$TEST_TMP/n.err"
tc() { awk -F, -v r="$1" '$1 == r && $2 ~ /^task-clock/ { print $3 }' "$TEST_TMP/n.csv"; }
inner=$(tc inner); outer=$(tc outer)
check nested_outer_contains_inner test -n "$inner" -a -n "$outer" -a "${outer:-0}" -ge "${inner:-1}"
check two_events_in_group grep -q "^inner,page-faults," "$TEST_TMP/n.csv"

# --detail: percentiles from the library's histograms, in order.
"$PROSPECT" stat --markers --detail -o "$TEST_TMP/d.txt" -- "$TEST_TMP/mk_static" 1 200 \
    >/dev/null 2>&1
check detail_has_percentiles grep -q "p50 .*p99" "$TEST_TMP/d.txt"

# Outside Prospect the markers are off, the output and status are the program's own.
"$TEST_TMP/mk_static" 2 100 >"$TEST_TMP/plain.out" 2>"$TEST_TMP/plain.err"
rc=$?
check unaffected_outside_prospect test $rc -eq 3 -a "$(cat "$TEST_TMP/plain.out")" = "markers off" \
    -a ! -s "$TEST_TMP/plain.err"
# A stale variable naming a descriptor that is not Prospect's channel changes nothing.
PROSPECT_MARKERS_FD=1 "$TEST_TMP/mk_static" 1 10 >"$TEST_TMP/stale.out" 2>&1
check stale_channel_variable_ignored test "$(cat "$TEST_TMP/stale.out")" = "markers off"
exec 7>"$TEST_TMP/regular_file"
PROSPECT_MARKERS_FD=7 "$TEST_TMP/mk_static" 1 10 >"$TEST_TMP/stale2.out" 2>&1
exec 7>&-
check regular_file_is_not_a_channel test "$(cat "$TEST_TMP/stale2.out")" = "markers off" \
    -a ! -s "$TEST_TMP/regular_file"

# A program without markers: stat says so instead of printing an empty table.
"$PROSPECT" stat --markers -- /bin/true >/dev/null 2>"$TEST_TMP/none.err"
check no_markers_explained grep -q "no marked region was crossed" "$TEST_TMP/none.err"
# Usage errors.
"$PROSPECT" stat --markers -r main -- /bin/true >/dev/null 2>&1
check markers_with_region_is_usage_error test $? -eq 2
