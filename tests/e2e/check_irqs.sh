# SPDX-License-Identifier: MIT
# prospect check's IRQ item and --move-irqs on a fake root of 19 IRQs that may all hit the CPU:
# every one is listed and moved (the advice once named and moved only the lowest 12), and an
# IRQ the kernel keeps (per-CPU, from debugfs) is reported with the reason, not tried.
source "$(dirname "$0")/lib.sh"
root=$TEST_TMP/irqroot
cp -r tests/fixtures/syscheck/noisy "$root"
for i in $(seq 28 43); do
    mkdir -p "$root/proc/irq/$i"
    echo 0-3 >"$root/proc/irq/$i/smp_affinity_list"
done
# noisy's 24, 25 and 27 may hit CPU 3, 26 may not: 19 of 20 IRQs.
mkdir -p "$root/sys/kernel/debug/irq/irqs"
printf 'handler:  handle_percpu_devid_irq\ndstate:   0x00003000\n            IRQD_PER_CPU\n' \
    >"$root/sys/kernel/debug/irq/irqs/40"

out=$("$PROSPECT" check --root "$root" 2>&1)
check check_irqs_all_listed grep -qE '^warn +irq_affinity +19 of 20 IRQs may be delivered to CPU 3 \(24-25 27-43\); the kernel keeps 1 there \(40 per-CPU\) -- move them to CPU 0-2: prospect check --cpu 3 --move-irqs' <<<"$out"

out=$("$PROSPECT" check --root "$root" --move-irqs 2>&1); rc=$?
check check_irqs_move_status [ "$rc" -eq 1 ]
check check_irqs_moved_all_movable grep -qx 'Moved 18 of 19 IRQs off CPU 3 to CPU 0-2: 24-25 27-39 41-43' <<<"$out"
check check_irqs_refusal_reason grep -qx '  IRQ 40 not moved: per-CPU IRQ (debugfs); not tried' <<<"$out"
moved=0
for i in $(seq 24 43); do
    [ "$(cat "$root/proc/irq/$i/smp_affinity_list")" = 0-2 ] && moved=$((moved + 1))
done
check check_irqs_files_written [ "$moved" -eq 18 ]
check check_irqs_fixed_untouched [ "$(cat "$root/proc/irq/40/smp_affinity_list")" = 0-3 ]
check check_irqs_after_move grep -qE '^warn +irq_affinity +1 of 20 IRQs may be delivered to CPU 3 \(40\)' <<<"$out"

# The kernel's refusal is reported per IRQ: here a planted symlink (never followed).
rm "$root/proc/irq/41/smp_affinity_list"
echo 3 >"$root/proc/irq/41/real"
ln -s real "$root/proc/irq/41/smp_affinity_list"
out=$("$PROSPECT" check --root "$root" --move-irqs 2>&1)
check check_irqs_symlink_refused grep -q '^  IRQ 41 not moved: Too many levels of symbolic links' <<<"$out"
check check_irqs_symlink_not_followed [ "$(cat "$root/proc/irq/41/real")" = 3 ]

json=$("$PROSPECT" check --root "$root" --move-irqs --format json)
check check_irqs_json python3 -c '
import json, sys
d = json.load(sys.stdin)
m = {x["irq"]: x for x in d["irq_moves"]}
assert m[40]["moved"] is False and "per-CPU" in m[40]["reason"], m
assert m[41]["moved"] is False, m
' <<<"$json"
