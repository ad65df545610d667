#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# prospect stat -r NAME: what a function name resolves to. IFUNCs count the implementation this
# CPU uses, gcc clones (.isra/.constprop) and partly qualified C++ names resolve with a note,
# a typo gets did-you-mean, and a set-user-ID program (whose counters the kernel stops) warns.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/stat_lib.sh"
if ! uprobes_ready; then
    skip stat_names "no writable tracefs uprobe_events (region tracing needs it)"
    exit 0
fi
W=$WL
out=$TEST_TMP/names.csv
err=$TEST_TMP/names.err
# in_range A LO HI: LO <= A <= HI
in_range() { [ -n "$1" ] && [ "$1" -ge "$2" ] && [ "$1" -le "$3" ]; }

# IFUNC: 1000 calls each in the workload (libc calls a few more itself), not the resolver's 1-2.
build_workload stat_ifunc stat_ifunc -O2 -fno-builtin -lm || { fail build "stat_ifunc"; exit 0; }
res=$("$PROSPECT" stat -s --csv -o "$out" -r libc:memcpy -r libc:strlen -r libm:cos \
      "$W/stat_ifunc" 2>"$err")
check ifunc_output_unchanged [ "$res" = "43000 0.862" ]
check ifunc_memcpy_1000 in_range "$(csv_get "$out" libc.so.6:memcpy calls)" 1000 1010
check ifunc_strlen_1000 in_range "$(csv_get "$out" libc.so.6:strlen calls)" 1000 1010
check ifunc_cos_1000 in_range "$(csv_get "$out" libm.so.6:cos calls)" 1000 1010
# The implementation is named by libc's symbols: with its debug symbols (libc6-dbg) installed,
# by name; without them only the address is known.
libc=$(ldd "$W/stat_ifunc" | awk '$1 ~ /^libc\.so/ { print $3 }')
bid=$(readelf -n "$libc" 2>/dev/null | awk '/Build ID/ { print $3 }')
if [ -n "$bid" ] && [ -f "/usr/lib/debug/.build-id/${bid:0:2}/${bid:2}.debug" ]; then
    check ifunc_names_implementation grep -Eq \
        "note: strlen -> __strlen_[a-z0-9_]+ \(IFUNC: the implementation this CPU uses\)" "$err"
else
    check ifunc_names_implementation grep -Eq "note: strlen -> 0x[0-9a-f]+ \(IFUNC" "$err"
fi
"$PROSPECT" stat -r libc:strlen -- env GLIBC_TUNABLES=glibc.cpu.x86_rep_movsb_threshold=4096 \
    "$W/stat_ifunc" >/dev/null 2>"$err"
check ifunc_tunables_warning grep -q "warning: the command sets GLIBC_TUNABLES" "$err"
# An IFUNC of the program itself cannot be resolved from outside: its resolver is probed, and
# the note says so instead of a silent 0.
build_workload stat_ifunc_own stat_ifunc_own -O2
"$PROSPECT" stat -r add "$W/stat_ifunc_own" >/dev/null 2>"$err"
check ifunc_own_note grep -q "note: add is an IFUNC: .*counting its resolver" "$err"

# gcc clones: the name finds busy.isra.0 / scale.constprop.0, and a function with a copy counts
# both (tally + tally.constprop.0, 500 calls each).
build_workload stat_clones stat_clones -O2 -g || { fail build "stat_clones"; exit 0; }
syms=$(nm "$W/stat_clones")
"$PROSPECT" stat -s --csv -o "$out" -r busy -r scale -r tally "$W/stat_clones" >/dev/null 2>"$err"
if grep -q ' busy\.isra\.0$' <<<"$syms"; then
    check clone_isra_1000 [ "$(csv_get "$out" busy calls)" = 1000 ]
    check clone_isra_note grep -q "note: busy -> busy.isra.0 (gcc clone)" "$err"
    "$PROSPECT" stat -r bussy "$W/stat_clones" >/dev/null 2>"$TEST_TMP/typo"
    check typo_exit_1 [ $? = 1 ]
    check typo_did_you_mean grep -q "no function 'bussy' in .*; did you mean busy" "$TEST_TMP/typo"
else
    skip clone_isra "this gcc did not emit busy.isra.0 ($(grep busy <<<"$syms" | tr '\n' ' '))"
fi
if grep -q ' scale\.constprop\.0$' <<<"$syms"; then
    check clone_constprop_1000 [ "$(csv_get "$out" scale calls)" = 1000 ]
    check clone_constprop_note grep -q "note: scale -> scale.constprop.0 (gcc clone)" "$err"
else
    skip clone_constprop "this gcc did not emit scale.constprop.0"
fi
check clone_and_original_1000 [ "$(csv_get "$out" tally calls)" = 1000 ]
check clone_and_original_note grep -q "note: tally -> tally, tally.constprop.0 (gcc clone)" "$err"

# C++: a template in a namespace by its full name, its bare name, and partly qualified member
# names with and without template arguments; 10 calls each. A typo gets suggestions.
if command -v g++ >/dev/null; then
    g++ -O2 -g -o "$W/stat_names" "$(dirname "$0")/../workloads/stat_names.cc"
    "$PROSPECT" stat -s --csv -o "$out" -r 'app::work<app::Parser>' -r work -r Parser::run \
        -r Box::get -r 'app::Box<long>::get' "$W/stat_names" >/dev/null 2>"$err"
    for r in 'app::work<app::Parser>' work Parser::run Box::get 'app::Box<long>::get'; do
        check "cxx_name_10:$r" [ "$(csv_get "$out" "$r" calls)" = 10 ]
    done
    "$PROSPECT" stat -r Parser::runn "$W/stat_names" >/dev/null 2>"$TEST_TMP/typo"
    check cxx_typo_did_you_mean grep -q \
        "no function 'Parser::runn' in .*; did you mean app::Parser::run(long)" "$TEST_TMP/typo"
else
    skip cxx_names "no g++"
fi

# Set-user-ID: the kernel detaches the counters at an exec that changes credentials
# (perf_event_exit_task), so a set-user-ID copy owned by nobody counts 0 where the original
# counts 1000; Prospect must say why.
if [ "$(id -u)" != 0 ]; then
    skip setuid_warning "needs root to make a set-user-ID copy owned by another user"
else
    cp "$W/stat_clones" "$W/stat_clones_suid"
    chown nobody "$W/stat_clones_suid" && chmod u+s "$W/stat_clones_suid"
    if findmnt -n -o OPTIONS -T "$W" | grep -qw nosuid; then
        skip setuid_warning "$W is on a nosuid mount: the bit has no effect there"
    else
        "$PROSPECT" stat -s --csv -o "$out" -r tally "$W/stat_clones_suid" >/dev/null 2>"$err"
        check setuid_counts_0 [ "$(csv_get "$out" tally calls)" = 0 ]
        check setuid_warning grep -q "stat_clones_suid is set-user-ID:" "$err"
        "$PROSPECT" stat -- "$W/stat_clones_suid" >/dev/null 2>"$err"
        check setuid_warning_program_mode grep -q "the kernel stops every perf event" "$err"
        # record and run lose their samples the same way, and say so.
        "$PROSPECT" record -o "$W/suid.data" -- "$W/stat_clones_suid" >/dev/null 2>"$err"
        check setuid_record_warning grep -q "prospect record: warning: .*stat_clones_suid is set-user-ID:" "$err"
        check setuid_record_no_samples grep -q "wrote 0 samples" "$err"
        "$PROSPECT" run -o /dev/null -- "$W/stat_clones_suid" >/dev/null 2>"$err"
        check setuid_run_warning grep -q "prospect run: warning: .*stat_clones_suid is set-user-ID:" "$err"
        "$PROSPECT" record -o "$W/plain.data" -- "$W/stat_clones" >/dev/null 2>"$err"
        check no_setuid_warning_for_a_plain_program [ -z "$(grep warning "$err")" ]
    fi
fi
check no_probes_left no_probes_left
