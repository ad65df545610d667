# SPDX-License-Identifier: MIT
# prospect run: profiles of known workloads (issue 2, tests 1-5).
. "$(dirname "$0")/lib.sh"

# share FILE SYMBOL: the % column of SYMBOL's first row in the report.
share() { awk -v s="$2" '$2 ~ /%$/ { for (i = 3; i <= NF; i++) if ($i == s) { sub("%", "", $2); print $2; exit } }' "$1"; }
# within A B TOL: |A - B| <= TOL (floating point).
within() { awk -v a="$1" -v b="$2" -v t="$3" 'BEGIN { d = a - b; if (d < 0) d = -d; exit !(a != "" && d <= t) }'; }
samples() { awk '$1 == "Samples" { print $2; exit }' "$1"; }

# 1. Three functions with a 50/30/20 split, at -O0 and -O2: shares within 5 points.
for opt in O0 O2; do
    build_workload split_$opt split -$opt -g || { fail split_$opt "cannot build workload"; continue; }
    out=$TEST_TMP/split_$opt.txt
    "$PROSPECT" run -F 4000 -o "$out" -- "$WL/split_$opt" 400 >/dev/null
    rc=$?
    check "split_${opt}_exit_status" [ "$rc" -eq 0 ]
    n=$(samples "$out")
    # ~0.75 s of CPU here, ~3000 samples: 1000 leaves room for a faster CPU and still bounds
    # the shares' sampling error well inside the 5 points checked below.
    check "split_${opt}_enough_samples" [ "${n:-0}" -ge 1000 ]
    ok=1
    for f in "work_fifty 50" "work_thirty 30" "work_twenty 20"; do
        set -- $f
        s=$(share "$out" "$1")
        within "$s" "$2" 5 || { ok=0; fail "split_${opt}_$1" "share ${s:-missing}%, expected $2 +- 5"; }
    done
    [ $ok = 1 ] && pass "split_${opt}_shares_50_30_20"
done

# The same workload without symbols at all: hits are still attributed to the file (addresses).
build_workload split_nosym split -O2 -s
out=$TEST_TMP/split_nosym.txt
"$PROSPECT" run -o "$out" -- "$WL/split_nosym" 60 >/dev/null
check split_stripped_exe_reports_file grep -qE '0x[0-9a-f]+ +split_nosym' "$out"

# perf as the oracle: perf record + perf report of the same workload gives the same shares.
if command -v perf >/dev/null && perf record -q -e cpu-clock -F 4000 -o "$TEST_TMP/split.data" \
        -- "$WL/split_O2" 250 >/dev/null 2>&1; then
    perf report -i "$TEST_TMP/split.data" --stdio --sort sym 2>/dev/null > "$TEST_TMP/perf_split.txt"
    ours=$TEST_TMP/split_O2.txt
    ok=1
    for f in work_fifty work_thirty work_twenty; do
        p=$(awk -v s="$f" '$NF == s { sub("%", "", $1); print $1; exit }' "$TEST_TMP/perf_split.txt")
        o=$(share "$ours" "$f")
        within "$o" "$p" 5 || { ok=0; fail "perf_agrees_$f" "prospect ${o:-?}% vs perf ${p:-?}%"; }
    done
    [ $ok = 1 ] && pass perf_agrees_on_split_shares
else
    skip perf_agrees_on_split_shares "perf record does not work here"
fi

# 2. A stripped shared library: the hot static function shows as the bracket of its neighbours.
libdir=$TEST_TMP/lib
mkdir -p "$libdir"
if gcc -O1 -fno-toplevel-reorder -fPIC -shared -o "$libdir/libhot.so" "$(dirname "$0")/../workloads/libhot.c" &&
   strip --strip-all "$libdir/libhot.so" &&
   gcc -O1 -o "$WL/usehot" "$(dirname "$0")/../workloads/usehot.c" -L"$libdir" -lhot \
       -Wl,-rpath,"$libdir"; then
    out=$TEST_TMP/usehot.txt
    "$PROSPECT" run -o "$out" -- "$WL/usehot" 200 >/dev/null
    check stripped_lib_bracket grep -qE 'hot_lo->hot_hi +libhot\.so' "$out"
    check stripped_lib_path grep -q "$libdir/libhot.so" "$out"
    check stripped_lib_status grep -q 'dynamic symbols only' "$out"
else
    fail stripped_lib "cannot build the stripped library"
fi

# 3. A syscall-heavy loop: system hits dominate and the kernel profile names the syscall path.
build_workload syscalls syscalls -O2
out=$TEST_TMP/syscalls.txt
"$PROSPECT" run -o "$out" -- "$WL/syscalls" 300000 >/dev/null
user=$(awk '$1 == "User" && $2 == "hits" { print $3; exit }' "$out")
sys=$(awk '$1 == "System" && $2 == "hits" { print $3; exit }' "$out")
check syscalls_system_dominates [ "${sys:-0}" -gt "${user:-0}" ]
check syscalls_kernel_path_named grep -qE 'pipe_(read|write)|ksys_(read|write)|vfs_(read|write)|do_syscall_64' "$out"
check syscalls_global_kernel_profile grep -q 'Global KERNEL Profile' "$out"

# 4. fork + exec of a second program: both processes appear with their own profiles.
build_workload forker forker -O2
out=$TEST_TMP/forker.txt
"$PROSPECT" run -o "$out" -- "$WL/forker" "$WL/split_O2" 60 >/dev/null
check fork_exec_parent_profile grep -qE '^Process [0-9]+ forker$' "$out"
check fork_exec_child_profile grep -qE '^Process [0-9]+ split_O2$' "$out"
check fork_exec_parent_symbol grep -q 'parent_work' "$out"
check fork_exec_child_symbol grep -q 'work_fifty' "$out"

# 5. -a: a process started outside prospect is profiled.
build_workload spin spin -O2
fifo=$TEST_TMP/spin.fifo
mkfifo "$fifo"
"$WL/spin" "$fifo" &
spinpid=$!
read -r _ < "$fifo"
out=$TEST_TMP/system.txt
"$PROSPECT" run -a -d 1 -o "$out"
rc=$?
kill "$spinpid"; wait "$spinpid" 2>/dev/null
check system_wide_exit_status [ "$rc" -eq 0 ]
check system_wide_sees_outside_process grep -qE "^ +$spinpid +spin " "$out"
check system_wide_outside_symbol grep -q 'spin_outside' "$out"
check system_wide_counts_itself grep -qE "Prospect's own hits +[0-9]+ \(" "$out"

# A tracepoint is sampled on every event by default (as perf does): 1000 writes, 1000 samples.
# As root it must open (Prospect mounts tracefs on a fresh machine) unless the kernel has no
# syscall tracepoints.
if "$PROSPECT" run -e syscalls:sys_enter_write -o /dev/null -- true 2>"$TEST_TMP/tp.err"; then
    build_workload writes writes -O1
    "$PROSPECT" run -e syscalls:sys_enter_write -o "$TEST_TMP/tp.txt" -- "$WL/writes" 1000 >/dev/null
    check tracepoint_every_event [ "$(samples "$TEST_TMP/tp.txt")" = 1000 ]
elif [ "$(id -u)" -eq 0 ] && [ -d /sys/kernel/tracing/events/syscalls ]; then
    fail tracepoint_every_event "refused as root: $(head -1 "$TEST_TMP/tp.err")"
else
    skip tracepoint_every_event "syscalls:sys_enter_write does not open (not root, or no syscall tracepoints)"
fi

# A clock period below the kernel's 10 us timer floor is counted as 10 us, and said so.
"$PROSPECT" run -e cpu-clock:1000 -o "$TEST_TMP/floor.txt" -- "$WL/split_O2" 5 >/dev/null
check clock_floor_reported grep -q "less than the kernel's 10 us timer" "$TEST_TMP/floor.txt"
check clock_floor_rate grep -qE "achieved 100000 Hz \(mean period 0.010 ms\)" "$TEST_TMP/floor.txt"
