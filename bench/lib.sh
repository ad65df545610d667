# SPDX-License-Identifier: MIT
# Helpers of the bench_*.sh scripts that time a command against its peer: source it after
# setting T (the script's scratch directory).
median() { sort -g | awk '{ a[NR] = $1 } END { print (NR % 2) ? a[(NR + 1) / 2] : (a[NR / 2] + a[NR / 2 + 1]) / 2 }'; }
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { printf("%.2f", (b > 0) ? a / b : 0) }'; }
timed() {   # timed PREFIX OUTFILE CMD...: sets <prefix>_wall (s, to the microsecond) and <prefix>_rss (KiB)
    local p=$1 out=$2 t0 t1 w r; shift 2
    t0=$EPOCHREALTIME
    /usr/bin/time -f "%e %M" -o "$T/time.txt" "$@" >"$out" 2>"$T/err.txt" || return 1
    t1=$EPOCHREALTIME
    w=$(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.4f", b - a }')
    read -r _ r < <(tail -1 "$T/time.txt")
    eval "${p}_wall=\$w; ${p}_rss=\$r"
}
mib() { awk -v k="$1" 'BEGIN { printf "%.1f", k / 1024 }'; }
