# SPDX-License-Identifier: MIT
# prospect check against fixture trees (tests/fixtures/syscheck/<state>/): the ok/warn lines a
# user reads, the JSON, and the exit status (0 no warn, 1 some warn, 2 usage, 3 unassessable).
source "$(dirname "$0")/lib.sh"
FIX=tests/fixtures/syscheck

out=$("$PROSPECT" check --root $FIX/quiet 2>&1); rc=$?
check check_quiet_exit_0 test "$rc" -eq 0
check check_quiet_isolated grep -qE '^ok +isolcpus +CPU 2 is listed' <<<"$out"
check check_quiet_governor_performance grep -qE '^ok +governor +performance$' <<<"$out"
check check_quiet_smt_off grep -qE '^ok +smt +SMT off' <<<"$out"
check check_quiet_summary grep -qx '17 ok, 0 warn, 0 n/a' <<<"$out"

out=$("$PROSPECT" check --root $FIX/noisy --user 2>&1); rc=$?
check check_noisy_exit_1 test "$rc" -eq 1
check check_noisy_not_isolated grep -qE '^warn +isolcpus +CPU 3 is not listed .* -- boot with isolcpus=3' <<<"$out"
check check_noisy_governor_powersave grep -qE '^warn +governor +powersave' <<<"$out"
check check_noisy_smt_on grep -qE '^warn +smt +SMT active: CPU 3 shares its core with CPU 1' <<<"$out"
check check_noisy_irqs grep -qE '^warn +irq_affinity +3 of 4 IRQs may be delivered to CPU 3' <<<"$out"
check check_noisy_paranoid_for_user grep -qE '^warn +perf_event_paranoid +2:' <<<"$out"
check check_noisy_one_line_per_item test "$(grep -cE '^(ok|warn|n/a) ' <<<"$out")" -eq 17

out=$("$PROSPECT" check --root $FIX/noisy --cpu 0 2>&1)
check check_cpu_option_selects grep -qE '^warn +irq_affinity +3 of 4 IRQs may be delivered to CPU 0 \(24-26\)' <<<"$out"

out=$("$PROSPECT" check --root $FIX/vm 2>&1); rc=$?
check check_vm_exit_1 test "$rc" -eq 1
check check_vm_no_pmu grep -qE '^warn +pmu +no hardware PMU' <<<"$out"
check check_vm_hypervisor grep -qE '^warn +hypervisor +running under a hypervisor \(xen\)' <<<"$out"
check check_vm_no_cpufreq grep -qE '^n/a +governor' <<<"$out"
check check_vm_smt_na grep -qE '^n/a +smt' <<<"$out"

for state in quiet noisy vm garbage; do
    json=$("$PROSPECT" check --root $FIX/$state --format json 2>/dev/null)
    check "check_${state}_json_valid" bash -c 'python3 -m json.tool >/dev/null <<<"$1"' _ "$json"
done
json=$("$PROSPECT" check --root $FIX/vm --format json)
check check_json_items python3 -c '
import json, sys
d = json.load(sys.stdin)
items = {i["name"]: i for i in d["items"]}
assert d["cpu"] == 1 and d["cpu_chosen"] is True
assert len(d["items"]) == 17
assert items["pmu"]["status"] == "warn" and items["pmu"]["advice"]
assert items["governor"]["status"] == "n/a"
assert items["isolcpus"]["status"] == "ok"
assert d["summary"] == {"ok": 6, "warn": 6, "na": 5}, d["summary"]
' <<<"$json"
json=$("$PROSPECT" check --root $FIX/garbage --format json)
check check_json_escapes_untrusted python3 -c '
import json, sys
d = json.load(sys.stdin)
g = [i for i in d["items"] if i["name"] == "governor"][0]
assert "weird\"gov\\" in g["value"], g["value"]
' <<<"$json"

"$PROSPECT" check --root $FIX/quiet --cpu 9 >/dev/null 2>"$TEST_TMP/err"; rc=$?
check check_offline_cpu_exit_2 test "$rc" -eq 2
check check_offline_cpu_message grep -q 'CPU 9 is not online (online CPUs: 0-3)' "$TEST_TMP/err"
"$PROSPECT" check --cpu x >/dev/null 2>&1; rc=$?
check check_bad_cpu_exit_2 test "$rc" -eq 2
"$PROSPECT" check --format yaml >/dev/null 2>&1; rc=$?
check check_bad_format_exit_2 test "$rc" -eq 2

# The live system: every item answered, exit 0 or 1 (this machine's state is not asserted).
out=$("$PROSPECT" check 2>&1); rc=$?
check check_live_runs test "$rc" -le 1
check check_live_17_items test "$(grep -cE '^(ok|warn|n/a) ' <<<"$out")" -eq 17
check check_help bash -c '"$PROSPECT" check --help | grep -q "^Exit status: 0 when no item warns"'

# Untrusted input: garbled copies of a fixture tree (fixed seed) never crash the sanitized
# binary, and the JSON stays valid.
check check_garbled_trees_are_survived python3 - "$PROSPECT" "$FIX/noisy" "$TEST_TMP/garbled" <<'PY'
import json, os, random, shutil, subprocess, sys
prospect, src, dst = sys.argv[1:]
random.seed(1)
files = [os.path.relpath(os.path.join(d, f), src) for d, _, fs in os.walk(src) for f in fs]
files = [f for f in files if not f.endswith('cpu/online')]
for it in range(20):
    shutil.rmtree(dst, ignore_errors=True)
    shutil.copytree(src, dst)
    for f in files:
        if random.random() < 0.5:
            n = random.choice([0, 1, 5, 50, 5000])
            data = bytes(random.choice(b'0123456789-,: \n#cpu.nr_running\x00\xff\x01"\\') for _ in range(n))
            open(os.path.join(dst, f), 'wb').write(data)
    r = subprocess.run([prospect, 'check', '--root', dst, '--format', 'json'], capture_output=True)
    assert r.returncode in (0, 1), (it, r.returncode, r.stderr[:300])
    assert b'Sanitizer' not in r.stderr and b'runtime error' not in r.stderr, r.stderr[:300]
    json.loads(r.stdout.decode('utf-8'))
PY

# A root that cannot be assessed is its own status (3), apart from "warnings found" (1).
"$PROSPECT" check --root "$TEST_TMP/no-such-root" >/dev/null 2>"$TEST_TMP/noroot.err"; rc=$?
check check_unassessable_status [ "$rc" -eq 3 ]
check check_unassessable_message grep -q "cannot read or parse the online CPU list" "$TEST_TMP/noroot.err"
