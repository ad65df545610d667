# SPDX-License-Identifier: MIT
# prospect report on bad input (issue 3, section 5): a one-line error naming the file and the
# byte offset, or for damage past the header a warning and the report of what was read; never
# a crash or a hang.
. "$(dirname "$0")/lib.sh"

d=$TEST_TMP/report_errors
mkdir -p "$d"
# run NAME ARGS...: runs prospect report with a time limit, keeps stdout/stderr/status.
run() {
    local name=$1; shift
    timeout 60 "$PROSPECT" report "$@" >"$d/$name.out" 2>"$d/$name.err"
    echo $? >"$d/$name.rc"
}
rc() { cat "$d/$1.rc"; }
one_line() { [ "$(wc -l <"$d/$1.err")" -eq 1 ]; }
u64_at() { od -An -tu8 -j"$2" -N8 "$1" | tr -d ' '; }
poke() {   # poke FILE OFFSET BYTES-as-printf-escapes
    printf "$3" | dd of="$1" bs=1 seek="$2" conv=notrunc status=none
}

# Usage errors: one line and a hint, status 2.
"$PROSPECT" record --bogus >/dev/null 2>"$d/u1.err"; check record_unknown_option_2 [ $? -eq 2 ]
check record_unknown_option_message grep -q "^prospect record: unknown option '--bogus'" "$d/u1.err"
"$PROSPECT" record >/dev/null 2>&1; check record_without_command_2 [ $? -eq 2 ]
"$PROSPECT" report --flat --sort nope >/dev/null 2>"$d/u2.err"; check report_bad_sort_2 [ $? -eq 2 ]
check report_bad_sort_message grep -q "unknown --sort key 'nope'" "$d/u2.err"
"$PROSPECT" report --format xml >/dev/null 2>&1; check report_bad_format_2 [ $? -eq 2 ]

run missing -i "$d/nope.data"
check missing_file_status [ "$(rc missing)" = 1 ]
check missing_file_message grep -q "^prospect report: $d/nope.data: No such file or directory" "$d/missing.err"
check missing_file_one_line one_line missing

: >"$d/empty.data"
run empty -i "$d/empty.data"
check empty_file grep -q "empty.data: file is empty" "$d/empty.err"
check empty_file_status [ "$(rc empty)" = 1 ]

run dir -i "$d"
check directory_message grep -q "is a directory" "$d/dir.err"

head -c 4096 /dev/urandom >"$d/random.data"
run random -i "$d/random.data"
check corrupt_header_names_offset grep -q "random.data: offset 0x0: not a perf.data file" "$d/random.err"
check corrupt_header_status [ "$(rc random)" = 1 ]

if ! command -v perf >/dev/null || ! perf record -q -o "$d/good.data" -- sh -c 'i=0; while [ $i -lt 20000 ]; do i=$((i+1)); done; cat /proc/kallsyms >/dev/null' >/dev/null 2>&1; then
    skip damaged_perf_files "perf cannot record here"
    exit 0
fi
good=$d/good.data
size=$(stat -c %s "$good")
attrs=$(u64_at "$good" 24)
data=$(u64_at "$good" 40)
datasize=$(u64_at "$good" 48)

cp "$good" "$d/hdr.data"; poke "$d/hdr.data" 8 '\x50'        # header size 80
run hdr -i "$d/hdr.data"
check bad_header_size grep -q "offset 0x8: header size 80" "$d/hdr.err"
check bad_header_size_one_line one_line hdr

head -c 60 "$good" >"$d/short.data"
run short -i "$d/short.data"
check truncated_header grep -q "offset 0x3c: file is truncated inside the header" "$d/short.err"

# Cut in the middle of the data: a warning with the offset, then the report of what was read.
head -c $((data + datasize / 2)) "$good" >"$d/cut.data"
run cut -i "$d/cut.data" --flat
check truncated_file_reports_what_was_read [ "$(rc cut)" = 0 ]
check truncated_file_warns_with_offset grep -qE "cut.data: offset 0x[0-9a-f]+: .*(runs past|cut off|truncated).*records read" "$d/cut.err"
check truncated_file_table grep -q "^# Overhead" "$d/cut.out"

# A zero-sized record (the first one of the data section).
cp "$good" "$d/zero.data"; poke "$d/zero.data" $((data + 6)) '\x00\x00'
run zero -i "$d/zero.data" --header
check zero_size_record_offset grep -q "zero.data: offset $(printf '0x%x' "$data"): record size 0" "$d/zero.err"
check zero_size_record_status [ "$(rc zero)" = 0 ]

# A record whose size runs past the end of the data section.
cp "$good" "$d/past.data"; poke "$d/past.data" $((data + 6)) '\xff\xff'
run past -i "$d/past.data" --stats
check record_past_end grep -q "past.data: offset $(printf '0x%x' "$data"): record size 65535 .* runs past the end" "$d/past.err"

# An attr size perf does not know (bigger than the file's entries).
cp "$good" "$d/attr.data"; poke "$d/attr.data" $((attrs + 4)) '\x00\x10'
run attr -i "$d/attr.data"
check unknown_attr_size grep -q "attr.data: offset $(printf '0x%x' $((attrs + 4))): event 0: perf_event_attr size 4096" "$d/attr.err"
check unknown_attr_size_status [ "$(rc attr)" = 1 ]
check unknown_attr_size_one_line one_line attr

# A sample format that does not match the samples (claims READ data they do not carry).
cp "$good" "$d/fmt.data"
st=$(u64_at "$good" $((attrs + 24)))
poke "$d/fmt.data" $((attrs + 24)) "$(printf '\\x%02x' $(( (st | 0x10) & 0xff )))"
run fmt -i "$d/fmt.data" --header
check mismatched_sample_format grep -qE "fmt.data: offset 0x[0-9a-f]+: sample does not match the sample format .*skipped" "$d/fmt.err"
check mismatched_sample_format_status [ "$(rc fmt)" = 0 ]

# A file from a newer perf with a feature this reader does not know: bit 63 set.
cp "$good" "$d/feat.data"; poke "$d/feat.data" $((72 + 7)) '\x80'
run feat -i "$d/feat.data" --header
check unknown_feature_not_fatal [ "$(rc feat)" = 0 ]
check unknown_feature_explained grep -qE "newer perf|feature (table|section)" "$d/feat.err"

# perf killed before it finalized: data size 0 in the header.
cp "$good" "$d/unfinished.data"; poke "$d/unfinished.data" 48 '\x00\x00\x00\x00\x00\x00\x00\x00'
run unfinished -i "$d/unfinished.data" --flat
check unfinished_perf_file_read_to_end grep -q "the recording did not finish" "$d/unfinished.err"
check unfinished_perf_file_status [ "$(rc unfinished)" = 0 ]

# The same kernel from another boot (KASLR moved it): kernel symbols would be wrong: said.
# (The recorded workload reads /proc/kallsyms: ~40 ms in the kernel, so it has kernel samples.)
kt=$(grep -obUa '\[kernel.kallsyms\]_text' "$good" | head -1 | cut -d: -f1)
if [ -n "$kt" ]; then
    cp "$good" "$d/kaslr.data"
    poke "$d/kaslr.data" $((kt - 8 + 2)) '\x7f'       # pgoff (recorded _text) += 0x7f0000
    run kaslr -i "$d/kaslr.data" --flat
    check kaslr_moved_kernel_noted grep -q "another boot): kernel symbols are wrong" "$d/kaslr.err"
    check kaslr_still_reports [ "$(rc kaslr)" = 0 ]
fi

# Pipe-mode output of perf is read: tests/e2e/report_input.sh.

# Random damage anywhere past the header never crashes (ASan build) and never hangs.
ok=1
for seed in 1 2 3 4 5 6 7 8; do
    cp "$good" "$d/rnd.data"
    off=$(( (seed * 7919 + 104) % size ))
    head -c 16 /dev/urandom | dd of="$d/rnd.data" bs=1 seek="$off" conv=notrunc status=none
    run rnd -i "$d/rnd.data" --flat
    r=$(rc rnd)
    [ "$r" = 0 ] || [ "$r" = 1 ] || { ok=0; echo "seed $seed offset $off: status $r"; }
    grep -q "AddressSanitizer\|runtime error" "$d/rnd.err" && { ok=0; cat "$d/rnd.err"; }
done
check random_damage_never_crashes [ $ok = 1 ]

# A file its record left unfinished (killed: no feature sections, so no CPU count): the
# duration is given without a made-up "on 0 CPUs".
"$PROSPECT" record -o "$d/killed.data" -- find /usr/lib -name x >/dev/null 2>&1
cp "$d/killed.data" "$d/nofeat.data"
poke "$d/nofeat.data" 72 '\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0'
run nofeat -i "$d/nofeat.data"
check unfinished_file_status [ "$(rc nofeat)" = 0 ]
check unfinished_file_said grep -q "the recording did not finish" "$d/nofeat.err"
check unfinished_no_zero_cpus not grep -q "on 0 CPUs" "$d/nofeat.out"
check unfinished_duration_said grep -Eq "^  Duration +[0-9.]+ s elapsed \(the file records no CPU count\)$" "$d/nofeat.out"

# A full disk: one error with the write's own errno (it was two, the second "Input/output
# error"), for a report larger than stdio's buffer and for annotate's listing.
if [ -w /dev/full ]; then
    "$PROSPECT" report --top 0 -i "$d/killed.data" 2>/dev/null >"$d/full_size.out"
    if [ "$(wc -c <"$d/full_size.out")" -gt 16384 ]; then
        "$PROSPECT" report --top 0 -i "$d/killed.data" >/dev/full 2>"$d/full.err"
        check report_full_status_1 [ $? = 1 ]
        check report_full_one_error [ "$(grep -c "^prospect report: " "$d/full.err")" = 1 ]
        check report_full_errno grep -q "^prospect report: writing the report: No space left on device$" "$d/full.err"
    else
        skip report_full "the report of find's recording is under 16 KiB (few samples)"
    fi
    "$PROSPECT" annotate -i "$d/killed.data" >/dev/full 2>"$d/afull.err"
    check annotate_full_status_1 [ $? = 1 ]
    check annotate_full_errno grep -q "^prospect annotate: writing the listing: No space left on device$" "$d/afull.err"
    check annotate_full_no_eio not grep -q "Input/output error" "$d/afull.err"
else
    skip report_full "/dev/full is not writable here"
fi
