# SPDX-License-Identifier: MIT
# Unwinding (issue 10, part 1): record --call-graph dwarf[,SIZE], user stacks unwound at report
# time from CFI (src/unwind/), and the caller a frameless leaf hides from frame-pointer chains.
# On Prospect's and perf's files; perf report must read Prospect's DWARF files.
. "$(dirname "$0")/lib.sh"

W=$(dirname "$0")/../workloads
if ! gcc -O2 -fomit-frame-pointer -fPIC -shared -o "$WL/libunwlib.so" "$W/unwlib.c" ||
   ! strip "$WL/libunwlib.so" ||
   ! gcc -O2 -fno-omit-frame-pointer -DWITH_LIB -o "$WL/unw" "$W/unwind.c" -L"$WL" -lunwlib \
        -Wl,-rpath,"$WL" -pthread; then
    fail unwind_build "cannot build tests/workloads/unwind.c and unwlib.c"
    exit 0
fi
U=$WL/unw
HAVE_PERF=1
if ! command -v perf >/dev/null || ! perf record -q -o "$TEST_TMP/probe.data" -- true >/dev/null 2>&1; then
    HAVE_PERF=0
fi

# --call-graph sizes as perf takes them; lbr refused, nothing run.
out=$("$PROSPECT" record --call-graph dwarf,70000 -o "$TEST_TMP/x.data" -- touch "$TEST_TMP/ran" 2>&1)
check dwarf_size_too_big_is_usage_error [ $? -eq 2 -a ! -e "$TEST_TMP/ran" -a \
    -n "$(grep "invalid --call-graph dwarf size '70000'" <<<"$out")" ]
out=$("$PROSPECT" record --call-graph lbr -o "$TEST_TMP/x.data" -- touch "$TEST_TMP/ran" 2>&1)
check lbr_refused_not_run [ $? -ne 0 -a ! -e "$TEST_TMP/ran" -a -n "$(grep "lbr: not yet" <<<"$out")" ]

rec() { "$PROSPECT" record -F 4000 "$@" >/dev/null 2>&1; }
if ! rec --call-graph dwarf -o "$TEST_TMP/d.data" -- "$U" split 240000; then
    fail record_dwarf "prospect record --call-graph dwarf failed"
    exit 0
fi

# share FILE SYMBOL: the Children percentage of SYMBOL.
share() {
    "$PROSPECT" report -i "$1" --children -g none --sort sym |
        awk -v s="$2" '$NF == s { sub("%", "", $1); print $1; exit }'
}
in_range() { awk -v v="${1:-x}" -v lo="$2" -v hi="$3" 'BEGIN { exit !(v != "x" && v >= lo && v <= hi) }'; }
# split NAME FILE: of the samples under via_a or via_b, 60% via_a and 40% via_b within 3 points
# (the workload's 3/5 and 2/5 of leaf's calls). The split is taken among the two callers, so
# samples elsewhere (startup, the kernel, main) do not bias it; about 5,800 samples make 3
# points 4.7 standard deviations.
split() {
    local a b pa pb
    a=$(share "$2" via_a); b=$(share "$2" via_b)
    pa=$(awk -v a="${a:-0}" -v b="${b:-0}" 'BEGIN { if (a + b > 0) printf "%.2f", 100 * a / (a + b) }')
    pb=$(awk -v a="${a:-0}" -v b="${b:-0}" 'BEGIN { if (a + b > 0) printf "%.2f", 100 * b / (a + b) }')
    check "${1}_via_a_60" in_range "$pa" 57 63
    check "${1}_via_b_40" in_range "$pb" 37 43
    in_range "$pa" 57 63 || echo "  ($1: via_a ${a:-none}%, via_b ${b:-none}% of all samples)"
}
split dwarf_split_ours "$TEST_TMP/d.data"
out=$("$PROSPECT" report -i "$TEST_TMP/d.data" --callers leaf)
check dwarf_callers_tree_has_both_paths [ -n "$(grep -E '^ +[0-9.]+%    via_a$' <<<"$out")" -a \
    -n "$(grep -E '^ +[0-9.]+%    via_b$' <<<"$out")" -a -n "$(grep -E '^ +[0-9.]+%      main$' <<<"$out")" ]

if [ $HAVE_PERF = 1 ]; then
    # perf reads Prospect's DWARF file and unwinds it to the same split.
    ev=$(perf evlist -v -i "$TEST_TMP/d.data" 2>/dev/null)
    check dwarf_attrs_as_perf [ -n "$(grep "REGS_USER|STACK_USER" <<<"$ev")" -a \
        -n "$(grep "sample_regs_user: 0xff0fff" <<<"$ev")" -a \
        -n "$(grep "sample_stack_user: 8192" <<<"$ev")" -a -n "$(grep "exclude_callchain_user: 1" <<<"$ev")" ]
    pa=$(perf report -i "$TEST_TMP/d.data" --children --stdio -g none --sort sym 2>/dev/null |
         awk '$NF == "via_a" { sub("%", "", $1); print $1; exit }')
    ours=$(share "$TEST_TMP/d.data" via_a)
    check perf_report_unwinds_our_dwarf_file in_range "$(awk -v a="${pa:-0}" -v b="${ours:-100}" \
        'BEGIN { d = a - b; print d < 0 ? -d : d }')" 0 1
else
    skip perf_reads_our_dwarf_file "perf is not installed or cannot record here"
fi

# dwarf,SIZE: rounded up to 8 bytes as perf does.
if rec --call-graph dwarf,4001 -o "$TEST_TMP/d4.data" -- "$U" split 12000 && [ $HAVE_PERF = 1 ]; then
    check dwarf_size_rounded_to_8 grep -q "sample_stack_user: 4008" \
        <(perf evlist -v -i "$TEST_TMP/d4.data" 2>/dev/null)
fi

# Frame pointers: the leaf has no frame, and the kernel's chain skips via_a and via_b; the
# call before the next return address names them.
if rec -g -o "$TEST_TMP/fp.data" -- "$U" split 240000; then
    split fp_split_ours "$TEST_TMP/fp.data"
else
    fail record_fp "prospect record -g failed"
fi

if [ $HAVE_PERF = 1 ]; then
    if precord -F 4000 -g -o "$TEST_TMP/pfp.data" -- "$U" split 240000; then
        split fp_split_perf_file "$TEST_TMP/pfp.data"
    else
        skip fp_split_perf_file "perf record -g failed three times"
    fi
    if precord -F 4000 --call-graph dwarf -o "$TEST_TMP/pd.data" -- "$U" split 240000; then
        split dwarf_split_perf_file "$TEST_TMP/pd.data"
        # perf's own unwind of its file: the program's rows agree within a point.
        bad=""
        for sym in main via_a via_b leaf; do
            pv=$(perf report -i "$TEST_TMP/pd.data" --children --stdio -g none --sort sym 2>/dev/null |
                 awk -v s="$sym" '$NF == s { sub("%", "", $1); print $1; exit }')
            ov=$(share "$TEST_TMP/pd.data" "$sym")
            in_range "$(awk -v a="${pv:-0}" -v b="${ov:-200}" 'BEGIN { d = a - b; print d < 0 ? -d : d }')" 0 1 ||
                bad="$bad $sym(perf ${pv:-none}, ours ${ov:-none})"
        done
        check dwarf_perf_file_rows_match_perf [ -z "$bad" ]
        [ -z "$bad" ] || echo "  ($bad)"
    else
        skip dwarf_split_perf_file "perf record --call-graph dwarf failed three times"
    fi
else
    skip perf_files "perf is not installed or cannot record here"
fi

# Recursion: rec five deep under main, counted once per sample.
rec --call-graph dwarf -o "$TEST_TMP/rec.data" -- "$U" rec 600
"$PROSPECT" report -i "$TEST_TMP/rec.data" --format folded >"$TEST_TMP/rec.folded"
check dwarf_recursion_unwound grep -q ';main;rec;rec;rec;rec;rec;rec;leaf [0-9]*$' "$TEST_TMP/rec.folded"
r=$(share "$TEST_TMP/rec.data" rec); l=$(share "$TEST_TMP/rec.data" leaf)
# Counted once: rec's share is leaf's plus the few samples in rec itself, never 5 times it
# (a sample can land in rec's own code, so the two need not be equal).
check dwarf_recursion_counted_once in_range "$r" "${l:-101}" 100

# A thread: its own stack, unwound to start_thread and the clone that began it.
rec --call-graph dwarf -o "$TEST_TMP/thr.data" -- "$U" thread 3000
"$PROSPECT" report -i "$TEST_TMP/thr.data" --format folded >"$TEST_TMP/thr.folded"
check dwarf_thread_stack grep -q '^unw;clone3;start_thread;worker;leaf [0-9]*$' "$TEST_TMP/thr.folded"

# A signal handler: through __restore_rt's frame to the interrupted raise and its callers.
rec --call-graph dwarf -o "$TEST_TMP/sig.data" -- "$U" sig 600
"$PROSPECT" report -i "$TEST_TMP/sig.data" --format folded >"$TEST_TMP/sig.folded"
check dwarf_signal_frame grep -q ';main;raiser;raise;.*__restore_rt;on_sig;leaf [0-9]*$' \
    "$TEST_TMP/sig.folded"

# CFI in .debug_frame only (gcc -g without unwind tables: .eh_frame keeps only crt's).
if gcc -O2 -fno-omit-frame-pointer -fno-asynchronous-unwind-tables -fno-unwind-tables -g \
       -o "$WL/unw_df" "$W/unwind.c"; then
    rec --call-graph dwarf -o "$TEST_TMP/df.data" -- "$WL/unw_df" split 20000
    "$PROSPECT" report -i "$TEST_TMP/df.data" --format folded >"$TEST_TMP/df.folded"
    check dwarf_from_debug_frame grep -q ';main;via_a;leaf [0-9]*$' "$TEST_TMP/df.folded"
fi

# No CFI at all (no unwind tables, no -g): the frame-pointer chain as perf's libdw falls back
# to, so main and everything above it are there (the leaf's own caller is skipped: it has no
# frame, as in -g chains); the unwind used to stop at the sampled function.
if gcc -O2 -fno-omit-frame-pointer -fno-asynchronous-unwind-tables -fno-unwind-tables \
       -o "$WL/unw_nocfi" "$W/unwind.c" && ! readelf -wf "$WL/unw_nocfi" | grep -q 'pc=.*leaf'; then
    rec --call-graph dwarf -o "$TEST_TMP/nocfi.data" -- "$WL/unw_nocfi" split 20000
    m=$(share "$TEST_TMP/nocfi.data" main)
    check dwarf_without_cfi_by_frame_pointer in_range "$m" 95 100.01
    "$PROSPECT" report -i "$TEST_TMP/nocfi.data" --format folded >"$TEST_TMP/nocfi.folded"
    check dwarf_without_cfi_reaches_libc grep -q '__libc_start_call_main;main;leaf [0-9]*$' \
        "$TEST_TMP/nocfi.folded"
fi

# The vDSO: through __vdso_clock_gettime (CFI from the vDSO image) to its callers.
rec --call-graph dwarf -o "$TEST_TMP/vdso.data" -- "$U" vdso 1000
"$PROSPECT" report -i "$TEST_TMP/vdso.data" --format folded >"$TEST_TMP/vdso.folded"
check dwarf_through_vdso grep -q ';main;ticker;clock_gettime[^;]*;__vdso_clock_gettime [0-9]*$' \
    "$TEST_TMP/vdso.folded"

# JIT code (anonymous memory, named by /tmp/perf-PID.map): the unwind stops there, cleanly.
if gcc -O2 -o "$WL/jit" "$W/jit.c"; then
    rec --call-graph dwarf -o "$TEST_TMP/jit.data" -- "$WL/jit" 3
    "$PROSPECT" report -i "$TEST_TMP/jit.data" --format folded >"$TEST_TMP/jit.folded" 2>&1
    check dwarf_stops_at_jit_code grep -q '^jit;jitted_count_loop [0-9]*$' "$TEST_TMP/jit.folded"
    jpid=$("$PROSPECT" report -i "$TEST_TMP/jit.data" --flat --sort pid,sym -t '|' 2>/dev/null |
           awk -F'|' '$3 == "[.] jitted_count_loop" && match($2, /[0-9]+/) {
                          print substr($2, RSTART, RLENGTH); exit }')
    [ -n "$jpid" ] && rm -f "/tmp/perf-$jpid.map"    # the JIT's map outlives it (perf's way)
fi

# A stripped library without frame pointers: unwound through its .eh_frame, its static
# helper shown as the bracket between dynamic symbols.
rec --call-graph dwarf -o "$TEST_TMP/lib.data" -- "$U" lib 600
"$PROSPECT" report -i "$TEST_TMP/lib.data" --format folded >"$TEST_TMP/lib.folded"
check dwarf_stripped_library_bracket grep -q ';main;lib_work;[^;]*->[^;]* [0-9]*$' "$TEST_TMP/lib.folded"
lw=$(share "$TEST_TMP/lib.data" lib_work)
check dwarf_stripped_library_share in_range "$lw" 90 100

# Hostile input. patch IN OUT WHAT: the first sample's stack size, dyn_size or the attr's
# register mask rewritten.
patch() {
    python3 - "$@" <<'PY'
import struct, sys
src, dst, what = sys.argv[1:4]
b = bytearray(open(src, 'rb').read())
attrs_off, attrs_size = struct.unpack_from('<QQ', b, 24)
attr_size = struct.unpack_from('<I', b, attrs_off + 4)[0]
st = struct.unpack_from('<Q', b, attrs_off + 24)[0]
if what == 'mask':             # ip's bit moved to ds's: same length, no ip
    struct.pack_into("<Q", b, attrs_off + 80, 0xff1eff)
    open(dst, 'wb').write(b); sys.exit(0)
off, size = struct.unpack_from('<QQ', b, 40)
pos = off
while pos + 8 <= off + size:
    typ, misc, sz = struct.unpack_from('<IHH', b, pos)
    if sz < 8:
        break
    if typ == 9 and sz > 1024:
        # identifier ip tid time cpu period, nr + chain, abi + 20 regs, size, data, dyn_size
        p = pos + 8 + 6 * 8
        nr = struct.unpack_from('<Q', b, p)[0]
        p += 8 + nr * 8
        p += 8 + 20 * 8
        ssz = struct.unpack_from('<Q', b, p)[0]
        if what == 'dyn':
            struct.pack_into('<Q', b, p + 8 + ssz, 1 << 40)
        elif what == 'wrap':      # 2^64 - 7: rounded up to words it once wrapped to 0
            struct.pack_into('<Q', b, p, (1 << 64) - 7)
            # ip in no map, rbp 64 GiB up: the frame-pointer step read there, unmapped
            # (perf's order: bp, sp, ip are registers 6, 7, 8)
            sp = struct.unpack_from('<Q', b, p - 160 + 7 * 8)[0]
            struct.pack_into('<QQQ', b, p - 160 + 6 * 8, sp + (1 << 36), sp, 0x1000)
        else:
            struct.pack_into('<Q', b, p, 1 << 20)
        break
    pos += sz
open(dst, 'wb').write(b)
PY
}
patch "$TEST_TMP/rec.data" "$TEST_TMP/dyn.data" dyn
out=$("$PROSPECT" report -i "$TEST_TMP/dyn.data" --format folded 2>&1 >"$TEST_TMP/dyn.out")
check hostile_dyn_size_clamped_and_said [ $? -eq 0 -a -n "$(grep ';rec;leaf ' "$TEST_TMP/dyn.out")" -a \
    -n "$(grep "dyn.data: note: 1 sample claims more user stack than it carries" <<<"$out")" ]
patch "$TEST_TMP/rec.data" "$TEST_TMP/trunc.data" size
out=$("$PROSPECT" report -i "$TEST_TMP/trunc.data" --children -g none 2>&1 >/dev/null)
check hostile_truncated_stack_named [ $? -eq 0 -a \
    -n "$(grep "trunc.data: offset 0x[0-9a-f]*: sample does not match" <<<"$out")" ]
# A stack size of 2^64 - 7 (once rounded up to 0 words: the unwinder read far past the
# record, SIGSEGV): the sample is skipped with one warning line, in every call-stack report.
patch "$TEST_TMP/rec.data" "$TEST_TMP/wrap.data" wrap
for how in "children --children" "folded --format folded" \
           "pprof --format pprof -o $TEST_TMP/wrap.pb.gz"; do
    "$PROSPECT" report -i "$TEST_TMP/wrap.data" ${how#* } >/dev/null 2>"$TEST_TMP/wrap.err"
    rc=$?
    check "hostile_stack_size_wrapping_${how%% *}" [ $rc -eq 0 -a \
        "$(grep -c 'wrap.data: offset 0x[0-9a-f]*: sample does not match' "$TEST_TMP/wrap.err")" = 1 \
        -a -z "$(grep -E 'runtime error|Sanitizer' "$TEST_TMP/wrap.err")" ]
done
patch "$TEST_TMP/rec.data" "$TEST_TMP/mask.data" mask
out=$("$PROSPECT" report -i "$TEST_TMP/mask.data" --children -g none 2>&1 >/dev/null)
check hostile_regs_mask_without_ip_said [ $? -eq 0 -a \
    -n "$(grep "mask.data: note: [0-9]* samples' user registers lack ip or sp" <<<"$out")" ]

# A DWARF file cut before its first sample (a recording killed early): the Children table and
# its --inline form print an empty table and exit 0 (qsort/memcpy of nothing used to be
# undefined behaviour that UBSan stopped on).
head -c 1000 "$TEST_TMP/rec.data" >"$TEST_TMP/cut.data"
out=$("$PROSPECT" report -i "$TEST_TMP/cut.data" --children -g none 2>&1)
check hostile_cut_before_samples_children [ $? -eq 0 -a -n "$(grep '^# Samples: 0 ' <<<"$out")" -a \
    -z "$(grep 'runtime error' <<<"$out")" ]
out=$("$PROSPECT" report -i "$TEST_TMP/cut.data" --children -g none --inline 2>&1)
check hostile_cut_before_samples_inline [ $? -eq 0 -a -z "$(grep 'runtime error' <<<"$out")" ]
