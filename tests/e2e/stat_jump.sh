#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# prospect stat -r with jump entries (the default for a command's functions): the same counts
# as plain uprobes (--entry trap) on leaves, recursion, threads and fork+exec; the program and
# its file unchanged; the user's LD_PRELOAD kept; nothing left behind; the cases that keep a
# uprobe say why; a process the hook could not patch is reported.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/stat_lib.sh"
if ! uprobes_ready; then
    skip stat_jump "no writable tracefs uprobe_events (region tracing needs it)"
    exit 0
fi
W=$WL
build_workload stat_leaf stat_leaf -O2 -g || { fail build stat_leaf; exit 0; }
build_workload stat_fib stat_fib -O0 -g
build_workload stat_threads stat_threads -O2 -g -lpthread
build_workload stat_forkexec stat_forkexec -O2 -g
out=$TEST_TMP/jump.csv
err=$TEST_TMP/jump.err
# The hook's files go to $TMPDIR: a private one shows whether they are removed.
export TMPDIR=$TEST_TMP/tmpdir
mkdir -p "$TMPDIR"

# calls and crossings of REGION in a --summary --csv run, as "calls crossings".
counts() { echo "$(csv_get "$out" "$1" calls) $(csv_get "$out" "$1" crossings)"; }

# A leaf whose first instruction a uprobe would single-step: a jump entry, exact counts.
sum_before=$(md5sum <"$W/stat_leaf")
"$PROSPECT" stat -v -s --csv -o "$out" -e task-clock -r leaf "$W/stat_leaf" 10000 2>"$err"
check leaf_exit_status [ $? = 0 ]
check leaf_is_jump_entry grep -q "leaf: jump entry (first [0-9]* bytes moved" "$err"
check leaf_jump_10000 [ "$(counts leaf)" = "10000 10000" ]
"$PROSPECT" stat -v -s --csv -o "$out" -e task-clock --entry trap -r leaf "$W/stat_leaf" 10000 2>"$err"
check leaf_trap_10000 [ "$(counts leaf)" = "10000 10000" ]
check leaf_trap_no_jump_entry not grep -q "jump entry" "$err"
check leaf_file_unchanged [ "$(md5sum <"$W/stat_leaf")" = "$sum_before" ]
check leaf_no_files_left [ -z "$(ls -A "$TMPDIR")" ]
check leaf_no_probes_left no_probes_left

# Recursion: every call counted, the outermost entries are the crossings.
"$PROSPECT" stat -v -s --csv -o "$out" -r fib "$W/stat_fib" >"$TEST_TMP/fib.out" 2>"$err"
check fib_is_jump_entry grep -q "fib: jump entry" "$err"
check fib_jump_calls_exact [ "$(counts fib)" = "3946 2" ]
check fib_output_unchanged [ "$(cat "$TEST_TMP/fib.out")" = "610 610" ]

# Threads: 4 x 1000 crossings, often at the same time.
"$PROSPECT" stat -v -s --csv -o "$out" -r region_work "$W/stat_threads" >/dev/null 2>"$err"
check threads_is_jump_entry grep -q "region_work: jump entry" "$err"
check threads_jump_4000 [ "$(counts region_work)" = "4000 4000" ]

# fork, then exec of the same program: the hook patches the exec'd image too; 6 calls in three
# processes and the program's exit status (7) passed through.
"$PROSPECT" stat -v -s --csv -o "$out" -r work "$W/stat_forkexec" >/dev/null 2>"$err"
st=$?
check forkexec_is_jump_entry grep -q "work: jump entry" "$err"
check forkexec_jump_6_calls [ "$(counts work)" = "6 6" ]
check forkexec_exit_status_7 [ $st = 7 ]
check forkexec_no_warning not grep -q "warning" "$err"

# An image exec'd with an empty environment runs without the hook: not counted, and said.
"$PROSPECT" stat -s --csv -o "$out" -r leaf "$W/stat_leaf" 40 clearenv >/dev/null 2>"$err"
check clearenv_exit_status [ $? = 0 ]
check clearenv_patched_image_counted [ "$(counts leaf)" = "40 40" ]
check clearenv_unpatched_image_said grep -q "warning: 1 process image(s) of the program ran without the entry hook" "$err"
"$PROSPECT" stat -s --csv -o "$out" --entry trap -r leaf "$W/stat_leaf" 40 clearenv >/dev/null 2>"$err"
check clearenv_trap_counts_both [ "$(counts leaf)" = "80 80" ]

# The user's LD_PRELOAD is kept (the hook is appended), and the program sees it.
# (ASAN_OPTIONS: the sanitized prospect under test would refuse a preload ahead of its runtime.)
res=$(LD_PRELOAD=libm.so.6 ASAN_OPTIONS=verify_asan_link_order=0 "$PROSPECT" stat -s --csv -o "$out" -r leaf "$W/stat_leaf" 5 env 2>"$err")
check user_preload_kept [ "${res%%:*}" = "LD_PRELOAD=libm.so.6" ]
check user_preload_hook_appended grep -q "entry_hook.so" <<<"$res"
check user_preload_counts [ "$(counts leaf)" = "5 5" ]

# A statically linked program cannot take a preloaded hook: a uprobe, said with -v; exact.
if gcc -O2 -g -static -o "$W/stat_leaf_static" "$(dirname "$0")/../workloads/stat_leaf.c" 2>/dev/null; then
    "$PROSPECT" stat -v -s --csv -o "$out" -r leaf "$W/stat_leaf_static" 300 2>"$err"
    check static_keeps_uprobe grep -q "leaf: entry stays a uprobe: the program is statically linked" "$err"
    check static_counts_exact [ "$(counts leaf)" = "300 300" ]
else
    skip static_keeps_uprobe "gcc -static does not link here (no static libc)"
fi

# A function too short for a jump (xor; ret) keeps its uprobe, -v says why; counts exact.
cat >"$TEST_TMP/tiny.c" <<'EOF'
__attribute__((noipa)) int tiny(void) { return 0; }
int main(void) { int s = 0; for (int i = 0; i < 50; i++) s += tiny(); return s; }
EOF
gcc -O2 -g -o "$W/tiny" "$TEST_TMP/tiny.c"
"$PROSPECT" stat -v -s --csv -o "$out" -r tiny "$W/tiny" 2>"$err"
check tiny_keeps_uprobe grep -q "tiny: entry stays a uprobe: " "$err"
check tiny_counts_exact [ "$(counts tiny)" = "50 50" ]

# Errors after the plan was made leave nothing behind either.
"$PROSPECT" stat -r leaf -e no-such-event "$W/stat_leaf" >/dev/null 2>&1
check error_no_files_left [ -z "$(ls -A "$TMPDIR")" ]

# Somebody else's uprobe already sits on the function's first byte: the hook must not patch
# over it; prospect says which process and region were not counted.
T=/sys/kernel/tracing
[ -w $T/uprobe_events ] || T=/sys/kernel/debug/tracing
off=$(objdump -d -F "$W/stat_leaf" | sed -n 's/^[0-9a-f]* <leaf> (File Offset: 0x\([0-9a-f]*\)):$/\1/p')
grp=prospecttest_$$
if [ -n "$off" ] && echo "p:$grp/leaf $W/stat_leaf:0x$off" >>$T/uprobe_events 2>/dev/null; then
    echo 1 >$T/events/$grp/leaf/enable
    "$PROSPECT" stat -s --csv -o "$out" -r leaf "$W/stat_leaf" 20 >/dev/null 2>"$err"
    st=$?
    echo 0 >$T/events/$grp/leaf/enable
    echo "-:$grp/leaf" >>$T/uprobe_events
    check conflict_program_unharmed [ $st = 0 ]
    check conflict_reported grep -q "warning: process [0-9]*: leaf: a breakpoint is already there; its crossings there were not counted" "$err"
else
    skip conflict_reported "cannot create a test uprobe at leaf (offset '$off')"
fi

# A region in another program of the command (not the command itself) keeps its uprobe: the
# hook is not preloaded at all, so the shell and the program see their own environment.
res=$("$PROSPECT" stat -v -s --csv -o "$out" -r "$W/stat_leaf:leaf" sh -c "$W/stat_leaf 3 env" 2>"$err")
check other_program_keeps_uprobe grep -q "leaf: entry stays a uprobe: it is not in the command's own program" "$err"
check other_program_counts [ "$(counts stat_leaf:leaf)" = "3 3" ]
check other_program_no_preload [ "$res" = "LD_PRELOAD=" ]

# An instruction the kernel will not probe (lock prefix): a clear error with --entry trap, not a
# silent 0 at exec; the jump entry moves it and counts every call.
build_workload stat_atomic stat_atomic -O2 -g
"$PROSPECT" stat --entry trap -r bump "$W/stat_atomic" >/dev/null 2>"$err"
check refused_insn_exit_1 [ $? = 1 ]
check refused_insn_said grep -q "the kernel refuses a uprobe on the instruction at .*stat_atomic:0x[0-9a-f]* (region bump)" "$err"
"$PROSPECT" stat -s --csv -o "$out" -r bump "$W/stat_atomic" >"$TEST_TMP/atomic.out" 2>"$err"
check refused_insn_jump_counts [ "$(counts bump)" = "10 10" ]
check refused_insn_jump_output [ "$(cat "$TEST_TMP/atomic.out")" = 10 ]

# A second entry point inside the first bytes (reached through a pointer): no jump entry.
build_workload stat_altentry stat_altentry -O2
"$PROSPECT" stat -v -s --csv -o "$out" -r f_altentry "$W/stat_altentry" >/dev/null 2>"$err"
check altentry_program_unharmed [ $? = 0 ]
check altentry_keeps_uprobe grep -q "f_altentry: entry stays a uprobe: other code jumps into its first bytes, takes an address inside them, or a symbol starts there" "$err"
check altentry_counts [ "$(counts f_altentry)" = "3 3" ]

# A directory left by a killed prospect is removed by the next run; a noexec $TMPDIR is passed
# over for one the command can load the hook from.
dead=$(sh -c 'echo $$')
mkdir -m 700 "$TMPDIR/prospect-jump-$dead-AbC123" && : >"$TMPDIR/prospect-jump-$dead-AbC123/plan"
"$PROSPECT" stat -s --csv -o "$out" -r leaf "$W/stat_leaf" 3 >/dev/null 2>&1
check stale_dir_removed [ ! -e "$TMPDIR/prospect-jump-$dead-AbC123" ]
noexec=$TEST_TMP/noexec
mkdir -p "$noexec"
if mount -t tmpfs -o noexec,size=1m tmpfs "$noexec" 2>/dev/null; then
    TMPDIR=$noexec "$PROSPECT" stat -v -s --csv -o "$out" -r leaf "$W/stat_leaf" 7 >/dev/null 2>"$err"
    check noexec_tmpdir_passed_over grep -q "leaf: jump entry" "$err"
    check noexec_tmpdir_counts [ "$(counts leaf)" = "7 7" ]
    check noexec_tmpdir_empty [ -z "$(ls -A "$noexec")" ]
    umount "$noexec"
else
    skip noexec_tmpdir_passed_over "cannot mount a noexec tmpfs here"
fi

# A C++ program with a function region: exits are probes on its returns, so there is no exception
# hazard to warn about (stat_exits.sh throws through measured functions).
if command -v g++ >/dev/null; then
    cat >"$TEST_TMP/throw.cc" <<'CXX'
#include <stdexcept>
__attribute__((noinline)) int thrower(int x) { if (x > 5) throw std::runtime_error("x"); return x; }
int main() { int s = 0; try { for (int i = 0; i < 3; i++) s += thrower(i); } catch (...) {} return s != 3; }
CXX
    g++ -O2 -g -o "$W/throw" "$TEST_TMP/throw.cc"
    "$PROSPECT" stat -r thrower "$W/throw" >/dev/null 2>"$err"
    check cxx_program_runs [ $? = 0 ]
    check cxx_no_exception_note not grep -q "C++ exception" "$err"
else
    skip cxx_no_exception_note "no g++"
fi
"$PROSPECT" stat -r leaf "$W/stat_leaf" 3 >/dev/null 2>"$err"
check c_program_no_exception_note not grep -q "C++ exception" "$err"
# gcc's split-out cold part ("thrower(int) [clone .cold]") does not make the name ambiguous.
if [ -x "$W/throw" ]; then
    "$PROSPECT" stat -s --csv -o "$out" -r thrower "$W/throw" >/dev/null 2>"$err"
    check cold_part_not_ambiguous [ "$(counts thrower)" = "3 3" ]
fi

"$PROSPECT" stat --entry sideways -r leaf "$W/stat_leaf" 1 >/dev/null 2>"$err"
check bad_entry_mode_usage_error [ $? = 2 ]
check bad_entry_mode_said grep -q "invalid --entry 'sideways' (jump or trap)" "$err"

# A library's constructor starts a thread that runs the program's code before the hook: the
# hook must not patch under it (that crashed); it says so and the program runs to the end.
cat >"$TEST_TMP/ctorlib.c" <<'CSRC'
#include <pthread.h>
extern long spin_once(long);
extern volatile int stop_spin;
static void *run(void *a) { long s = 0; while (!stop_spin) s += spin_once(s); return (void *)s; }
__attribute__((constructor)) static void start(void) { pthread_t t; pthread_create(&t, 0, run, 0); pthread_detach(t); }
CSRC
cat >"$TEST_TMP/ctormain.c" <<'CSRC'
volatile int stop_spin;
volatile long sink;
__attribute__((noinline)) long spin_once(long x) { for (int i = 0; i < 100; i++) sink += x + i; return sink & 1; }
__attribute__((noinline)) void work(long x) { sink += x; }
int main(void) { for (long i = 0; i < 100; i++) work(i); stop_spin = 1; return 0; }
CSRC
gcc -O2 -shared -fPIC -o "$W/libctorthr.so" "$TEST_TMP/ctorlib.c" -lpthread
gcc -O2 -g -rdynamic -o "$W/ctormain" "$TEST_TMP/ctormain.c" -Wl,--no-as-needed -L"$W" -lctorthr -Wl,-rpath,"$W" -lpthread
"$PROSPECT" stat -s --csv -o "$out" -r work -r spin_once "$W/ctormain" >/dev/null 2>"$err"
check early_thread_program_unharmed [ $? = 0 ]
check early_thread_said grep -q "other threads were already running (started by a library)" "$err"
check early_thread_not_double_warned not grep -q "ran without the entry hook" "$err"
"$PROSPECT" stat -s --csv -o "$out" --entry trap -r work "$W/ctormain" >/dev/null 2>"$err"
check early_thread_trap_counts [ "$(counts work)" = "100 100" ]

# Points inside code (line ranges, inlined copies) move to the trampoline too: same counts as
# uprobes there.
build_workload stat_pages_O0 stat_pages -O0 -g
wl=$(dirname "$0")/../workloads
l1=$(grep -n '/\* REGION-START' "$wl/stat_pages.c" | cut -d: -f1)
l2=$(grep -n '/\* REGION-END' "$wl/stat_pages.c" | cut -d: -f1)
lr="stat_pages.c:$l1-stat_pages.c:$l2"
"$PROSPECT" stat -v -s --csv -o "$out" -e page-faults -r "$lr" "$W/stat_pages_O0" 1000 >/dev/null 2>"$err"
check lines_are_jump_points [ "$(grep -c "$lr: jump at 0x" "$err")" = 2 ]
check lines_jump_one_crossing [ "$(counts "$lr")" = "1 1" ]
pf=$(csv_get "$out" "$lr" page-faults)
check lines_jump_pages_within_2pct within 2 "${pf:-0}" 1000
build_workload stat_inline_ranges stat_inline_ranges -O2 -g
for mode in jump trap; do
    "$PROSPECT" stat -v -s --csv -o "$out" --entry $mode -r checked_sum "$W/stat_inline_ranges" >/dev/null 2>"$err"
    eval "inl_$mode=\"\$(counts checked_sum)\""
done
check inline_jump_counts_equal_trap [ "$inl_jump" = "$inl_trap" ]
check inline_jump_counts_5 [ "$inl_jump" = "5 5" ]
build_workload stat_sum_inl stat_sum -O2 -g
"$PROSPECT" stat -v -s --csv -o "$out" -r sum "$W/stat_sum_inl" >/dev/null 2>"$err"
check inlined_sum_jump_point grep -q "sum: jump at 0x" "$err"
check inlined_sum_one_crossing [ "$(counts sum)" = "1 1" ]

# In a C++ program, points keep their uprobes (exception landing pads are not visible branches);
# its function entries still jump.
if [ -x "$W/throw" ]; then
    tl=$(grep -n 'throw std::runtime_error' "$TEST_TMP/throw.cc" | cut -d: -f1)
    "$PROSPECT" stat -v -r thrower -r "throw.cc:$tl-$((tl + 1))" "$W/throw" >/dev/null 2>"$err"
    check cxx_points_keep_uprobes grep -q "stays a uprobe: the program uses C++ exceptions" "$err"
    check cxx_function_entry_jumps grep -q "thrower: jump entry" "$err"
fi

# A function split into hot and cold parts (a jump table in one targets the other): its points
# keep uprobes, and the program runs as without Prospect.
build_workload stat_split stat_split -O2 -g
l1=$(grep -n '/\* REGION-START' "$wl/stat_split.c" | cut -d: -f1)
l2=$(grep -n '/\* REGION-END' "$wl/stat_split.c" | cut -d: -f1)
expect=$("$W/stat_split")
res=$("$PROSPECT" stat -v -s --csv -o "$out" -r "stat_split.c:$l1-$l2" "$W/stat_split" 2>"$err")
check split_program_unharmed [ "$res" = "$expect" ]
if grep -q "split into hot and cold parts" "$err"; then
    pass split_points_keep_uprobes
else
    grep -q "jump at" "$err" && fail split_points_keep_uprobes "a point of a split function jumped" ||
        skip split_points_keep_uprobes "gcc did not split sw() here"
fi

# Two regions at one place (the same function twice, and an address range starting at it) share
# one slot: all jump, all counted.
start=$(printf %x "0x$(nm "$W/stat_leaf" | awk '$3 == "leaf" { print $1 }')")
"$PROSPECT" stat -v -s --csv -o "$out" -r leaf -r leaf -r "0x$start-0x$(printf %x $((0x$start + 7)))" \
    "$W/stat_leaf" 300 >/dev/null 2>"$err"
check shared_slot_all_jump [ "$(grep -c "jump entry\|jump at 0x$start" "$err")" = 3 ]
check shared_slot_counts [ "$(csv_get "$out" leaf calls)" = 300 ]
check shared_slot_range_counts [ "$(awk -F, 'NR == 4 { print $2 }' "$out")" = 300 ]
