# SPDX-License-Identifier: MIT
# Event specs on this machine (issue 13): libpfm4 names, oprofile specs, raw and PMU/term forms;
# errors that name the CPU's PMU model where the counters are not exposed; `list pmu`; several
# sampling events in one record/run, read back by perf and by prospect per event.
source "$(dirname "$0")/lib.sh"
expect() {
    local name=$1 want=$2 pat=$3; shift 4
    local err=$TEST_TMP/$name.err rc
    "$PROSPECT" "$@" >/dev/null 2>"$err"; rc=$?
    if [ "$rc" -ne "$want" ]; then
        fail "$name" "exit status $rc, expected $want: $(head -c 300 "$err")"
    elif ! grep -qE -- "$pat" "$err"; then
        fail "$name" "stderr lacks /$pat/: $(head -c 300 "$err")"
    elif grep -q "unknown event" "$err" && [ "$want" -ne 2 ]; then
        fail "$name" "says unknown event for a name the CPU has: $(head -c 300 "$err")"
    else
        pass "$name"
    fi
}
build_workload faults faults -O1 || { fail build_faults "gcc failed"; exit 0; }

"$PROSPECT" list pmu >"$TEST_TMP/pmu.txt" 2>&1
model=$(sed -n 's/^PMU model \([^ ]*\) .*/\1/p' "$TEST_TMP/pmu.txt" | head -1)
if [ -z "$model" ]; then
    skip pmu_model_errors "libpfm4 knows no PMU model for this CPU"
elif [ -r /sys/bus/event_source/devices/cpu/type ]; then
    skip pmu_model_errors "this machine exposes a CPU PMU (the no-counters errors need a VM without one)"
else
    # Names this CPU has, in every form: valid, but no counters here.
    no_hw="valid for this CPU's PMU model \($model\).*not available to this machine.*cpu-clock.*enable the PMU"
    expect oprofile_generic_name_valid_no_pmu 1 "$no_hw" -- run -e CPU_CLK_UNHALTED:100000 -- true
    expect libpfm4_name_with_modifier_no_pmu 1 "$no_hw" -- run -e "$model::RETIRED_INSTRUCTIONS:u" -- true
    expect raw_no_pmu 1 "$no_hw" -- run -e r00c0 -- true
    expect pmu_terms_no_pmu 1 "PMU model $model.*not available to this machine" \
        -- run -e cpu/event=0xc0,umask=0/ -- true
    expect stat_pmu_name_no_pmu 1 "$no_hw" -- stat -e RETIRED_INSTRUCTIONS -- true
    # Seed 003's Intel event: not this CPU's, so suggestions from its own list.
    expect seed003_l2_lines_in_suggests 2 "unknown event 'L2_LINES_IN:100000:0xf0'.*$model.*did you mean" \
        -- record -e L2_LINES_IN:100000:0xf0 -o "$TEST_TMP/never.data" -- true
    expect misspelt_name_suggests 2 "did you mean RETIRED_INSTRUCTIONS" \
        -- run -e RETIRED_INSTRUCTONS -- true
fi
# issue 13's own example names Zen 3's model: on a CPU of another model, the error names both
# models and this CPU's spelling of the event, never "unknown event" (model forced here).
LIBPFM_FORCE_PMU=amd64_fam19h_zen4 expect other_model_prefix_names_this_cpus_event 2 \
    "amd64_fam19h_zen3 is libpfm4's model of another CPU; this CPU's is amd64_fam19h_zen4, where the event is -e RETIRED_INSTRUCTIONS:u" \
    -- run -e amd64_fam19h_zen3::RETIRED_INSTRUCTIONS:u -- true
expect raw_over_64_bits 2 "event 'r11111111111111111111': a raw config is at most 64 bits" \
    -- run -e r11111111111111111111 -- true
expect pmu_terms_error_said_once 2 "^prospect run: event 'software/': expected PMU/term" \
    -- run -e software/ -- true
"$PROSPECT" run -e :sched_switch -- true >/dev/null 2>"$TEST_TMP/empty_name.err"
check empty_name_no_suggestions [ $? -eq 2 -a -z "$(grep "did you mean" "$TEST_TMP/empty_name.err")" ]
# Misspelt names get suggestions from the list they belong to (issue 19), not from the PMU's.
expect sw_typo_task_clok_suggests 2 \
    "^prospect stat: unknown event 'task-clok'; did you mean task-clock\? \(prospect list software\)$" \
    -- stat -e task-clok -- true
expect sw_typo_cpu_clck_suggests 2 "unknown event 'cpu-clck'; did you mean cpu-clock\? \(prospect list software\)$" \
    -- record -e cpu-clck -o "$TEST_TMP/never.data" -- true
expect sw_typo_page_fault_suggests 2 "unknown event 'page-fault'; did you mean page-faults\? \(prospect list software\)$" \
    -- run -e page-fault -- true
if "$PROSPECT" stat -e sched:sched_switch -- true >/dev/null 2>&1; then
    expect tp_typo_suggests_from_subsystem 2 \
        "^prospect stat: unknown tracepoint 'sched:sched_swich'; did you mean sched:sched_switch\? \(prospect list tracepoint 'sched:\*'\)$" \
        -- stat -e sched:sched_swich -- true
    expect tp_subsystem_typo_suggests 2 "unknown event 'schd:sched_switch'; did you mean sched:sched_switch\?" \
        -- record -e schd:sched_switch -o "$TEST_TMP/never.data" -- true
    expect tp_unknown_event_names_subsystem_list 2 \
        "unknown tracepoint 'sched:qqqqqqqqqqqq' \(its subsystem's: prospect list tracepoint 'sched:\*'\)$" \
        -- stat -e sched:qqqqqqqqqqqq -- true
else
    skip tp_typo_suggests_from_subsystem "sched:sched_switch does not open here (tracefs)"
fi
# The kernel refuses periods of 2^63 and more: a usage error naming the limit, not "invalid
# settings for this kernel" after the command was set up.
expect period_at_2_63_usage_error 2 "a period of 1 to 2\^63-1" \
    -- run -e cpu-clock:9223372036854775808 -- true
expect c_at_2_63_usage_error 2 "invalid period '9223372036854775808' \(1 to 2\^63-1 events\)" \
    -- run -c 9223372036854775808 -- true
expect bad_oprofile_fields 2 "NAME:PERIOD\[:UNITMASK" -- run -e cpu-clock:1000:0:7 -- true
expect unit_mask_on_software 2 "unit mask applies to the CPU's PMU events only" \
    -- run -e cpu-clock:1000:0xf0 -- true
expect pmu_term_unknown 2 "PMU 'software' has no term or event 'nosuch'" \
    -- run -e software/nosuch=1/ -- true

# list pmu: the model, its events with descriptions and unit masks, 100 columns, and (here)
# the counters' absence said once.
if [ -n "$model" ]; then
    "$PROSPECT" list pmu '*CACHE*' >"$TEST_TMP/cache.txt" 2>&1
    check list_pmu_names_model grep -q "^PMU model $model " "$TEST_TMP/cache.txt"
    check list_pmu_glob_filters bash -c '! grep -E "^  [A-Z]" "$1" | grep -qv CACHE' _ "$TEST_TMP/cache.txt"
    check list_pmu_unit_masks grep -qE "^    :[A-Z0-9_]+ +0x[0-9a-f]+ " "$TEST_TMP/cache.txt"
    check list_pmu_fits_100_columns bash -c '! awk "length > 100" "$1" | grep -q .' _ "$TEST_TMP/pmu.txt"
    if [ -r /sys/bus/event_source/devices/cpu/type ]; then
        skip list_pmu_says_once "this machine exposes a CPU PMU"
    else
        check list_pmu_says_once test "$(grep -c "cannot be opened here" "$TEST_TMP/pmu.txt")" -eq 1
    fi
fi
# ophelp on seed 003's CPU (Core 2, forced in libpfm4): L2_LINES_IN and its unit masks.
LIBPFM_FORCE_PMU=core "$PROSPECT" list pmu 'L2_LINES_IN' >"$TEST_TMP/core.txt" 2>&1
check list_pmu_forced_core2 grep -q "^  L2_LINES_IN " "$TEST_TMP/core.txt"
check list_pmu_core2_unit_masks grep -qE "^    :ANY +0x" "$TEST_TMP/core.txt"

# Several sampling events: separate evsels with ids; perf reads them, prospect reports each.
data=$TEST_TMP/two.data
"$PROSPECT" record -e task-clock,page-faults -o "$data" -- "$WL/faults" 2000 >/dev/null 2>&1
check record_two_events test $? -eq 0
if command -v perf >/dev/null; then
    perf evlist -i "$data" >"$TEST_TMP/evlist.txt" 2>&1
    check perf_evlist_two_events test "$(grep -cx "task-clock\|page-faults" "$TEST_TMP/evlist.txt")" -eq 2
    perf report -i "$data" --stdio >"$TEST_TMP/perf.txt" 2>&1
    check perf_report_task_clock grep -qE "^# Samples: [1-9][0-9]* +of event 'task-clock'" "$TEST_TMP/perf.txt"
    check perf_report_page_faults grep -qE "^# Samples: [1-9][0-9]* +of event 'page-faults'" "$TEST_TMP/perf.txt"
    # The faults are in touch_second (10x touch_first's pages): perf and prospect agree.
    perf report -i "$data" --stdio --sort sym 2>/dev/null |
        awk "/of event 'page-faults'/ { on = 1 } on" | grep -m1 -oE "touch_(first|second)" \
        >"$TEST_TMP/perf_top"
    "$PROSPECT" report -i "$data" --event page-faults >"$TEST_TMP/pr_pf.txt" 2>&1
    check report_event_page_faults grep -q "Event  *page-faults" "$TEST_TMP/pr_pf.txt"
    top=$(grep -m1 -oE "touch_(first|second)" "$TEST_TMP/pr_pf.txt")
    check page_faults_top_agrees_with_perf test -n "$top" -a "$top" = "$(cat "$TEST_TMP/perf_top")"
else
    skip perf_evlist_two_events "perf is not installed"
fi
"$PROSPECT" report -i "$data" >"$TEST_TMP/both.txt" 2>&1
check report_sections_per_event test "$(grep -c "^# ==== event [12] of 2: " "$TEST_TMP/both.txt")" -eq 2
"$PROSPECT" report -i "$data" --event page-faults 2>&1 >/dev/null | grep "note: .*other events" \
    >"$TEST_TMP/note.txt"
check chosen_event_no_other_events_note [ ! -s "$TEST_TMP/note.txt" ]
check report_each_event_named bash -c 'grep -q "Event  *task-clock" "$1" && grep -q "Event  *page-faults" "$1"' _ "$TEST_TMP/both.txt"
# A fixed period is honoured for software events: page-faults:10 is one sample per 10 faults,
# each of period 10 (with PERF_SAMPLE_PERIOD in the samples the kernel sampled every fault).
"$PROSPECT" record -e task-clock,page-faults:10 -o "$TEST_TMP/p10.data" -- "$WL/faults" 2000 \
    >/dev/null 2>&1
if command -v perf >/dev/null; then
    perf script -i "$TEST_TMP/p10.data" -F event,period 2>/dev/null |
        awk '$2 == "page-faults:" { print $1 }' | sort | uniq -c >"$TEST_TMP/p10.periods"
    check page_faults_period_10_honoured bash -c \
        '[ "$(wc -l <"$1")" -eq 1 ] && awk "{ exit !(\$1 > 10 && \$2 == 10) }" "$1"' _ "$TEST_TMP/p10.periods"
fi
"$PROSPECT" report -i "$TEST_TMP/p10.data" --event page-faults >"$TEST_TMP/p10.txt" 2>&1
check report_page_faults_mean_period_10 grep -q "every 10 events asked; achieved mean period 10 events" \
    "$TEST_TMP/p10.txt"
# -F applies to the events without a period of their own (docs/events.md); an error only when
# every event has one.
"$PROSPECT" record -F 500 -e task-clock,page-faults:10 -o "$TEST_TMP/mix.data" -- "$WL/faults" 200 \
    >/dev/null 2>&1
check freq_for_events_without_period [ $? -eq 0 -a \
    -n "$("$PROSPECT" report -i "$TEST_TMP/mix.data" --event task-clock 2>/dev/null | grep '500 Hz asked')" -a \
    -n "$("$PROSPECT" report -i "$TEST_TMP/mix.data" --event page-faults 2>/dev/null | grep 'every 10 events asked')" ]
expect freq_with_every_period_given 2 "every event in '-e task-clock:1000,page-faults:5' has one" \
    -- record -F 500 -e task-clock:1000,page-faults:5 -o "$TEST_TMP/never.data" -- true
# Repeated -e is the same as a list.
"$PROSPECT" record -e task-clock -e page-faults -o "$TEST_TMP/rep.data" -- "$WL/faults" 200 >/dev/null 2>&1
check repeated_e_records_both bash -c 'perf evlist -i "$1" 2>/dev/null | grep -qx page-faults' _ "$TEST_TMP/rep.data"
# run: one report per event.
"$PROSPECT" run -e task-clock,page-faults -- "$WL/faults" 2000 >/dev/null 2>"$TEST_TMP/run2.txt"
check run_sections_per_event test "$(grep -c "^==== event [12] of 2: " "$TEST_TMP/run2.txt")" -eq 2
# A software PMU event in the PMU/term form opens and samples.
"$PROSPECT" record -e software/config=1/ -o "$TEST_TMP/sw.data" -- "$WL/faults" 2000 >/dev/null 2>&1
check pmu_terms_software_records test $? -eq 0
# stat: commas inside PMU/terms/ belong to the terms.
"$PROSPECT" stat -e software/config=1/,page-faults -- "$WL/faults" 10 >/dev/null 2>"$TEST_TMP/st.txt"
check stat_pmu_terms_in_list bash -c 'grep -q "software/config=1/" "$1" && grep -q "page-faults" "$1"' _ "$TEST_TMP/st.txt"
