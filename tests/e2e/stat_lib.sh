# SPDX-License-Identifier: MIT
# Helpers for the `prospect stat` end-to-end tests (sourced after lib.sh).
# csv_get FILE REGION COLUMN: the COLUMN value of REGION's row in a --summary --csv file.
csv_get() {
    awk -F, -v r="$2" -v c="$3" '
        NR == 1 { for (i = 1; i <= NF; i++) if ($i == c) col = i; next }
        $1 == r && col { print $col; exit }' "$1"
}
# uprobes_ready: the kernel lets us create uprobes through tracefs: it is writable, or it is not
# mounted yet and we are root on a kernel with tracefs (Prospect mounts it then, as perf does).
uprobes_ready() {
    [ -w /sys/kernel/tracing/uprobe_events ] || [ -w /sys/kernel/debug/tracing/uprobe_events ] ||
        { [ "$(id -u)" -eq 0 ] && grep -qw tracefs /proc/filesystems &&
          [ "$(stat -f -c %T /sys/kernel/tracing 2>/dev/null)" != tracefs ]; }
}
# no_probes_left: every probe of a finished Prospect is gone (groups are prospect_<pid>; those of
# a Prospect still running, e.g. another test session, are not ours to judge).
no_probes_left() {
    local f=/sys/kernel/tracing/uprobe_events pid
    [ -r $f ] || f=/sys/kernel/debug/tracing/uprobe_events
    for pid in $(sed -n 's/^[pr]:prospect_\([0-9]*\)\/.*/\1/p' $f | sort -u); do
        kill -0 "$pid" 2>/dev/null || return 1
    done
    return 0
}
# within PCT A B: |A - B| <= PCT% of B
within() { awk -v p="$1" -v a="$2" -v b="$3" 'BEGIN { d = a - b; if (d < 0) d = -d; exit !(d <= b * p / 100) }'; }
# not CMD...: succeeds when CMD fails (check cannot take a bare "!").
not() { ! "$@"; }
