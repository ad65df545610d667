# SPDX-License-Identifier: MIT
# Helpers for the tests that read a running process (sourced after lib.sh; same_code needs EXE).
# until_true SECONDS CMD...: polls a condition (not a sleep standing for one); false at the limit.
until_true() {
    local n=$(($1 * 20)); shift
    while ! "$@"; do n=$((n - 1)); [ $n -gt 0 ] || return 1; sleep 0.05; done
}
# mem PID ADDR N: N bytes of the process's memory at ADDR (decimal), as hex.
mem() {
    dd if="/proc/$1/mem" bs=4096 iflag=skip_bytes,count_bytes skip="$2" count="$3" \
        2>/dev/null | od -An -v -tx1
}
# same_code PID: every executable mapping of the program in PID holds the file's bytes.
same_code() {
    local range perms off dev ino path s e o n size found=0
    size=$(stat -c %s "$EXE")
    while read -r range perms off dev ino path; do
        [ "$path" = "$EXE" ] && [[ $perms == *x* ]] || continue
        s=$((16#${range%-*})) e=$((16#${range#*-})) o=$((16#$off))
        n=$((e - s))
        [ $((o + n)) -le "$size" ] || n=$((size - o))
        [ "$(mem "$1" $s $n)" = "$(dd if="$EXE" bs=4096 iflag=skip_bytes,count_bytes \
              skip=$o count=$n 2>/dev/null | od -An -v -tx1)" ] || return 1
        found=1
    done <"/proc/$1/maps"
    [ $found = 1 ]
}
# attach_lines NAME ARGS...: lines -p on the target $A (its commands on fd 9), with ARGS, the
# CSV in NAME.csv and stderr in NAME.err; $L its pid. Once it counts, 0; else a failure said,
# both killed, fd 9 closed, 1.
attach_lines() {
    local name=$1; shift
    "$PROSPECT" lines -v -p $A "$@" --format csv -o "$TEST_TMP/$name.csv" \
        2>"$TEST_TMP/$name.err" &
    L=$!
    until_true 120 grep -qs "counting process $A" "$TEST_TMP/$name.err" && return 0
    fail "${name}_attached" "$(tail -n3 "$TEST_TMP/$name.err")"
    kill -9 $L $A 2>/dev/null
    exec 9>&-
    return 1
}
# detach_lines NAME: Ctrl-C to lines (it ends with 0 and the counts, as for a process it did not
# start), and the target's code is the file's again.
detach_lines() {
    kill -INT $L
    wait $L
    check "${1}_ctrl_c_ends_lines" [ $? = 0 ]
    check "${1}_code_is_the_file_s" same_code $A
}
