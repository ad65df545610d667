# SPDX-License-Identifier: MIT
# Symbol sources of `report` (issue 9, sections 4 and 5): perf's build-id cache for deleted and
# rebuilt binaries, --symfs, --kallsyms, /tmp/perf-PID.map that is hostile (a FIFO, a NUL byte,
# another owner), and kallsyms read only for profiles with kernel samples.
. "$(dirname "$0")/lib.sh"

build_workload hot_main hot_main -O1 || { fail report_symbols "cannot build hot_main"; exit 0; }
# A private build-id cache for this script (perf honours the same variable).
export PERF_BUILDID_DIR=$TEST_TMP/bidcache
has_perf=0
if command -v perf >/dev/null &&
   perf record -q -o "$TEST_TMP/probe.data" -- true >/dev/null 2>&1; then
    has_perf=1
fi

# main_share FILE [report options]: the percentage of the hot_main row named main (empty if none).
main_share() {
    local f=$1; shift
    "$PROSPECT" report -i "$f" --flat --sort dso,sym -t '|' "$@" 2>/dev/null |
        awk -F'|' '$2 == "hot_main" && $3 == "[.] main" { sub("%", "", $1); print $1 }'
}
# perf 6.1 here aborts now and then: up to three tries until it prints its table. Why it gave
# none goes into perf_report.why (its status and last error line) for the failure message.
perf_main_share() {
    local f=$1 i rc; shift
    : >"$TEST_TMP/perf_report.why"
    for i in 1 2 3; do
        perf report -i "$f" --stdio --no-children -g none --sort dso,sym -t '|' "$@" \
            > "$TEST_TMP/perf_report.out" 2>"$TEST_TMP/perf_report.err"
        rc=$?
        [ $rc -eq 0 ] && grep -q '^# Samples' "$TEST_TMP/perf_report.out" && break
        echo "perf exit $rc: $(grep -v '^$' "$TEST_TMP/perf_report.err" | tail -1)" \
            >>"$TEST_TMP/perf_report.why"
    done
    grep -v '^#' "$TEST_TMP/perf_report.out" | awk -F'|' '{ for (i = 1; i <= NF; i++) gsub(/^ +| +$/, "", $i) }
            $2 == "hot_main" && $3 == "[.] main" { sub("%", "", $1); print $1 }'
}
# no_main FILE [report options]: no row is named main (with an empty build-id cache).
no_main() {
    local f=$1; shift
    [ -z "$(PERF_BUILDID_DIR=$TEST_TMP/empty main_share "$f" "$@")" ]
}
# named_after NAME FILE PERF(0/1) [report options]: main has most samples in our report (and in
# perf's when PERF is 1).
named_after() {
    local name=$1 f=$2 withperf=$3 ours theirs; shift 3
    ours=$(main_share "$f" "$@")
    if [ -z "$ours" ] || ! awk -v o="$ours" 'BEGIN { exit !(o > 50) }'; then
        fail "$name" "main has '${ours:-no row}' in our report"; return
    fi
    if [ "$withperf" = 1 ]; then
        theirs=$(perf_main_share "$f" "$@")
        if [ "$ours" != "$theirs" ]; then
            fail "$name" "main: ours ${ours}% perf ${theirs:-no row}% $(sort -u "$TEST_TMP/perf_report.why" |
                tr '\n' ' ')"; return
        fi
    fi
    pass "$name"
}

# 1. prospect record copies the binary into the cache; the binary is deleted, then rebuilt.
bin=$TEST_TMP/bid/hot_main
mkdir -p "$(dirname "$bin")"
cp "$WL/hot_main" "$bin"
"$PROSPECT" record -o "$TEST_TMP/ours.data" -- "$bin" 2 >/dev/null 2>"$TEST_TMP/ours.rec" ||
    { echo "prospect record failed ($?):"; tail -3 "$TEST_TMP/ours.rec"; }
check record_fills_buildid_cache bash -c "ls '$PERF_BUILDID_DIR$bin'/*/elf >/dev/null 2>&1 &&
    ls '$PERF_BUILDID_DIR'/.build-id/*/* >/dev/null 2>&1"
rm -f "$bin"
named_after deleted_binary_named_from_cache "$TEST_TMP/ours.data" "$has_perf"
gcc -O1 -DREBUILT -o "$bin" "$(dirname "$0")/../workloads/hot_main.c"
named_after rebuilt_binary_named_from_cache "$TEST_TMP/ours.data" "$has_perf"
# Without the cache the rebuilt file is not used: raw addresses, not a wrong name.
check rebuilt_binary_without_cache_not_named no_main "$TEST_TMP/ours.data"
check rebuilt_binary_without_cache_no_wrong_name bash -c "! PERF_BUILDID_DIR='$TEST_TMP/empty' \
    '$PROSPECT' report -i '$TEST_TMP/ours.data' --flat 2>/dev/null | grep -q rebuilt_filler"
rm -f "$bin"
# -N: no copy.
cp "$WL/hot_main" "$TEST_TMP/bid/nocache"
"$PROSPECT" record -N -o "$TEST_TMP/nocache.data" -- "$TEST_TMP/bid/nocache" 1 >/dev/null 2>&1
check record_N_made_a_file [ -s "$TEST_TMP/nocache.data" ]
check record_N_copies_nothing [ ! -e "$PERF_BUILDID_DIR$TEST_TMP/bid/nocache" ]

# 2. perf record fills the cache the same way; we read what perf wrote.
if [ "$has_perf" = 1 ]; then
    cp "$WL/hot_main" "$bin"
    perf record -q -o "$TEST_TMP/perf.data" -- "$bin" 2 >/dev/null 2>&1
    rm -f "$bin"
    named_after perf_cache_deleted_binary_named "$TEST_TMP/perf.data" 1
else
    skip perf_cache_deleted_binary_named "perf is not installed or cannot record here"
fi

# 3. --symfs: the binary only exists under DIR/<its path>.
sym=$TEST_TMP/symfs
mkdir -p "$sym$(dirname "$bin")"
cp "$WL/hot_main" "$bin"
"$PROSPECT" record -N -o "$TEST_TMP/symfs.data" -- "$bin" 2 >/dev/null 2>&1
mv "$bin" "$sym$bin"
if [ "$has_perf" = 1 ]; then
    # perf would find a cached copy first: compare with an empty cache.
    PERF_BUILDID_DIR=$TEST_TMP/empty \
        named_after symfs_binary_named "$TEST_TMP/symfs.data" 1 --symfs "$sym"
else
    named_after symfs_binary_named "$TEST_TMP/symfs.data" 0 --symfs "$sym"
fi
check symfs_needed no_main "$TEST_TMP/symfs.data"
"$PROSPECT" report -i "$TEST_TMP/symfs.data" --symfs "$TEST_TMP/nodir" \
    >/dev/null 2>"$TEST_TMP/symfs.err"
check symfs_missing_dir_is_usage_error [ $? = 2 ]
check symfs_missing_dir_says_so grep -q "symfs .*nodir: No such file" "$TEST_TMP/symfs.err"

# 4. --kallsyms FILE: kernel names come from FILE only.
build_workload syscalls syscalls -O1
fix=$(dirname "$0")/../fixtures/kallsyms.txt
"$PROSPECT" record -N -o "$TEST_TMP/kern.data" -- "$WL/syscalls" 200000 >/dev/null 2>&1
"$PROSPECT" report -i "$TEST_TMP/kern.data" --flat --sort dso,sym -t '|' --kallsyms "$fix" \
    2>/dev/null | awk -F'|' '$2 == "[kernel.kallsyms]" { print $3 }' | sort -u > "$TEST_TMP/knames"
# Every kernel row is a text symbol of the fixture (or an address below its first one).
awk '$2 ~ /^[tTwW]$/ { print "[k] " $3 }' "$fix" > "$TEST_TMP/fixnames"
check kallsyms_file_used bash -c "[ -s '$TEST_TMP/knames' ] &&
    ! grep -vxFf '$TEST_TMP/fixnames' '$TEST_TMP/knames' | grep -vqE '^\[k\] 0x[0-9a-f]+$'"
mkfifo "$TEST_TMP/kfifo"
timeout 20 "$PROSPECT" report -i "$TEST_TMP/kern.data" --kallsyms "$TEST_TMP/kfifo" \
    >/dev/null 2>"$TEST_TMP/kfifo.err"
check kallsyms_fifo_refused [ $? = 2 ]
check kallsyms_fifo_says_why grep -q "kfifo: not a regular file" "$TEST_TMP/kfifo.err"

# 5. kallsyms is read only when a profile has kernel samples (-v says when it is).
"$PROSPECT" record -N -e cpu-clock:u -o "$TEST_TMP/user.data" -- "$WL/hot_main" 1 >/dev/null 2>&1
"$PROSPECT" report -v -i "$TEST_TMP/user.data" >/dev/null 2>"$TEST_TMP/user.err"
check user_only_report_reads_no_kallsyms bash -c "! grep -q 'kernel text symbols' '$TEST_TMP/user.err'"
check user_only_report_has_no_kernel_samples bash -c "! '$PROSPECT' report -i \
    '$TEST_TMP/user.data' --flat 2>/dev/null | grep -q 'kernel.kallsyms'"
"$PROSPECT" report -v -i "$TEST_TMP/kern.data" >/dev/null 2>"$TEST_TMP/kern.err"
check kernel_report_reads_kallsyms grep -q "kernel text symbols" "$TEST_TMP/kern.err"

# 6. /tmp/perf-PID.map: a FIFO must not hang the report, a NUL byte must not lose the lines
# after it, and a map owned by another user is refused (as perf does). The recording is perf's
# (as a JIT's users make them); the map is replaced before each report.
build_workload jit jit -O1
if [ "$has_perf" = 1 ]; then
    perf record -q -o "$TEST_TMP/jit.data" -- "$WL/jit" 3 >/dev/null 2>&1
    jpid=$("$PROSPECT" report -i "$TEST_TMP/jit.data" --flat --sort pid,sym -t '|' 2>/dev/null |
           awk -F'|' '$3 == "[.] jitted_count_loop" && match($2, /[0-9]+/) {
                          print substr($2, RSTART, RLENGTH); exit }')
    map=/tmp/perf-$jpid.map
fi
if [ "$has_perf" != 1 ]; then
    skip jit_map_fifo_no_hang "perf is not installed or cannot record here"
elif [ -z "$jpid" ] || [ ! -f "$map" ]; then
    fail jit_map_fifo_no_hang "no jitted_count_loop row or no $map after the recording"
else
    line=$(cat "$map")
    jit_report() {
        timeout 60 "$PROSPECT" report -i "$TEST_TMP/jit.data" --flat --sort sym 2>"$TEST_TMP/jit.err"
    }
    rm -f "$map"; mkfifo "$map"
    jit_report > "$TEST_TMP/jit_fifo.out"; rc=$?
    check jit_map_fifo_no_hang [ "$rc" = 0 ]
    check jit_map_fifo_warned grep -q "perf-$jpid.map: not a regular file" "$TEST_TMP/jit.err"
    rm -f "$map"
    printf '1000 10 bad\0name\n%s\n' "$line" > "$map"
    jit_report > "$TEST_TMP/jit_nul.out"
    check jit_map_nul_keeps_later_lines grep -q jitted_count_loop "$TEST_TMP/jit_nul.out"
    check jit_map_nul_warned_with_offset \
        grep -q "perf-$jpid.map: offset 11: NUL byte" "$TEST_TMP/jit.err"
    printf '%s\n' "$line" > "$map"
    if [ "$(id -u)" = 0 ] && chown nobody "$map" 2>/dev/null; then
        jit_report > "$TEST_TMP/jit_owner.out"
        check jit_map_other_owner_refused bash -c "! grep -q jitted_count_loop \
            '$TEST_TMP/jit_owner.out' &&
            grep -q 'not owned by you or root' '$TEST_TMP/jit.err'"
    else
        skip jit_map_other_owner_refused "only root can give the map to user nobody"
    fi
    rm -f "$map"
fi
