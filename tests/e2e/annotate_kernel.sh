# SPDX-License-Identifier: MIT
# Kernel routines in prospect annotate (issue 11): listed with their hits when the kernel's bytes
# are readable (/proc/kcore as root, or --vmlinux FILE, placed by the running kernel's _stext:
# KASLR), else named with the reason. This VM has no /proc/kcore and no vmlinux: the --vmlinux
# path is checked with an image made here whose bytes at the hot routine are known.
. "$(dirname "$0")/lib.sh"
unset DEBUGINFOD_URLS   # no network: files not found here stay not found
export PERF_BUILDID_DIR=$TEST_TMP/perf-buildid-cache   # perf record's copies: the test's own

if ! command -v perf >/dev/null || ! perf record -q -o "$TEST_TMP/probe.data" -- true >/dev/null 2>&1; then
    skip annotate_kernel "perf is not installed or cannot record here"
    exit 0
fi
if ! awk '$3 == "_stext" && $1 !~ /^0+$/ { f = 1 } END { exit !f }' /proc/kallsyms; then
    skip annotate_kernel "kernel addresses are hidden (kptr_restrict)"
    exit 0
fi
data=$TEST_TMP/k.data
perf record -q -o "$data" -- dd if=/dev/zero of=/dev/null bs=1 count=400000 >/dev/null 2>&1 ||
    { fail annotate_kernel "perf record failed"; exit 0; }
"$PROSPECT" annotate -i "$data" --top 0 --format json > "$TEST_TMP/k.json" 2>/dev/null
# The hottest core-kernel routine (not a module: kallsyms gives its end).
read -r fn start size samples why < <(python3 -c "
import json, sys
d = json.load(open(sys.argv[1]))
k = [f for f in d['functions'] if f['dso'] == '[kernel.kallsyms]' and f['size']]
if k:
    f = max(k, key=lambda f: f['samples'])
    print(f['function'], f['start'], f['size'], f['samples'], f.get('error', '-').replace(' ', '_'))
" "$TEST_TMP/k.json")
if [ -z "${fn:-}" ]; then
    fail annotate_kernel_listed "no kernel routine in the listing"
    exit 0
fi
pass annotate_kernel_listed

if [ -r /proc/kcore ]; then
    check annotate_kernel_from_kcore [ "$why" = - ]
    # perf reads the same bytes from /proc/kcore when it can: the instruction addresses agree.
    perf annotate --stdio -i "$data" "$fn" 2>/dev/null |
        awk '$2 == ":" && $3 ~ /^[0-9a-f]+:$/ { a = $3; sub(":", "", a); print a }' > "$TEST_TMP/k.perf"
    if [ -s "$TEST_TMP/k.perf" ]; then
        "$PROSPECT" annotate -i "$data" --format csv "$fn" |
            awk -F, 'NR > 1 { a = $3; sub("0x", "", a); print a }' > "$TEST_TMP/k.ours"
        check annotate_kernel_addresses_are_perfs cmp -s "$TEST_TMP/k.perf" "$TEST_TMP/k.ours"
    else
        skip annotate_kernel_addresses_are_perfs "perf annotate could not disassemble $fn here"
    fi
else
    check annotate_kernel_no_kcore_says_why grep -q "no_/proc/kcore_on_this_machine_(give_--vmlinux_FILE" <<<"$why"
fi

# --vmlinux: an image linked 16 MiB below the running kernel (a KASLR offset), with a known
# instruction (movl $0x5ca1ab1e, %eax: b8 1e ab a1 5c; objdump and annotate write `mov`) filling
# the hot routine.
stext=$(awk '$3 == "_stext" { print $1; exit }' /proc/kallsyms)
off=$(( start - 0x$stext ))
if [ "$off" -lt 0 ] || [ "$off" -gt $((256 << 20)) ]; then
    skip annotate_kernel_vmlinux "$fn is $off bytes from _stext: not in the core image"
    exit 0
fi
link=$(printf '0x%x' $(( 0x$stext - (16 << 20) )))
cat > "$TEST_TMP/fake.S" <<EOF
    .section .text, "ax"
    .globl _stext
_stext:
    .fill $off, 1, 0xcc
    .rept $(( size / 5 + 1 ))
    movl \$0x5ca1ab1e, %eax
    .endr
EOF
if ! gcc -c -o "$TEST_TMP/fake.o" "$TEST_TMP/fake.S" ||
   ! ld -Ttext="$link" -e _stext -o "$TEST_TMP/vmlinux" "$TEST_TMP/fake.o"; then
    fail annotate_kernel_vmlinux "cannot build the test image"
    exit 0
fi
"$PROSPECT" annotate -i "$data" --vmlinux "$TEST_TMP/vmlinux" "$fn" > "$TEST_TMP/v.txt" 2>&1
check annotate_kernel_vmlinux_says_file grep -q "^# code read from $TEST_TMP/vmlinux" "$TEST_TMP/v.txt"
first=$(printf '%x' "$start")
check annotate_kernel_vmlinux_placed grep -Eq "^ +$first: +mov +\\\$0x5ca1ab1e, %eax$" "$TEST_TMP/v.txt"
"$PROSPECT" annotate -i "$data" --vmlinux "$TEST_TMP/vmlinux" --format csv "$fn" > "$TEST_TMP/v.csv"
hits=$(awk -F, 'NR > 1 { s += $4 } END { print s + 0 }' "$TEST_TMP/v.csv")
# Hits that fall inside an instruction of the fake code are counted apart, never lost.
between=$("$PROSPECT" annotate -i "$data" --vmlinux "$TEST_TMP/vmlinux" --format json "$fn" |
    python3 -c "import json,sys; print(json.load(sys.stdin)['functions'][0]['samples_between_instructions'])")
check annotate_kernel_vmlinux_hits_add_up [ $((hits + between)) = "$samples" ]
"$PROSPECT" annotate -i "$data" --vmlinux "$TEST_TMP/nonexistent" "$fn" > "$TEST_TMP/nv.txt" 2>&1
check annotate_kernel_vmlinux_missing_says_why grep -q "cannot read $TEST_TMP/nonexistent" "$TEST_TMP/nv.txt"
