# SPDX-License-Identifier: MIT
# Debug info from debuginfod (issue 11): a stripped program whose debug file only a local
# debuginfod server (Debian's `debuginfod`, serving a directory on 127.0.0.1) has: its symbols
# and source lines resolved through the server for annotate and report --sort srcline, the
# download kept in Prospect's private cache, and one clear note when the server is unreachable.
. "$(dirname "$0")/lib.sh"
export PERF_BUILDID_DIR=$TEST_TMP/perf-buildid-cache   # perf record's copies: the test's own

command -v debuginfod >/dev/null || { skip annotate_debuginfod "the debuginfod package is not installed"; exit 0; }
command -v curl >/dev/null || { skip annotate_debuginfod "curl is needed to see the server ready"; exit 0; }
if ! command -v perf >/dev/null || ! perf record -q -o "$TEST_TMP/probe.data" -- true >/dev/null 2>&1; then
    skip annotate_debuginfod "perf is not installed or cannot record here"
    exit 0
fi
srv=$TEST_TMP/srv
mkdir -p "$srv"
prog=$TEST_TMP/prog
mkdir -p "$TEST_TMP/src"
cp "$(dirname "$0")/../workloads/annotate_div.c" "$TEST_TMP/src/div.c"
gcc -O2 -g -Wl,--build-id -o "$prog" "$TEST_TMP/src/div.c" &&
    objcopy --only-keep-debug "$prog" "$srv/prog.debug" && strip --strip-all "$prog" ||
    { fail annotate_debuginfod "cannot build and strip the program"; exit 0; }
bid=$(readelf -n "$prog" | awk '/Build ID/ { print $3 }')
data=$TEST_TMP/p.data
perf record -q -o "$data" -- "$prog" 20000000 >/dev/null 2>&1 || { fail annotate_debuginfod "perf record failed"; exit 0; }
# Prospect's caches (decompressed debug files, debuginfod downloads) in the test's directory.
export XDG_CACHE_HOME=$TEST_TMP/cache
unset DEBUGINFOD_CACHE_PATH

# Without a server: the stripped program has no names.
out=$(env -u DEBUGINFOD_URLS "$PROSPECT" annotate -i "$data" divide 2>&1)
check debuginfod_baseline_stripped grep -q "no samples in a function named 'divide'" <<<"$out"

# The server: a free port (asked of the kernel), its own database; ready once it serves the
# program's debug file (polled, each try bounded).
server_pid=
for attempt in 1 2 3; do
    port=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
    debuginfod -F -d "$TEST_TMP/db$attempt.sqlite" -p "$port" -t 0 -g 0 "$srv" \
        > "$TEST_TMP/debuginfod$attempt.log" 2>&1 &
    server_pid=$!
    ready=
    for i in $(seq 300); do
        kill -0 "$server_pid" 2>/dev/null || break
        if curl -sf --max-time 2 -o /dev/null "http://127.0.0.1:$port/buildid/$bid/debuginfo"; then
            ready=1
            break
        fi
        sleep 0.1
    done
    [ -n "$ready" ] && break
    kill "$server_pid" 2>/dev/null; wait "$server_pid" 2>/dev/null
    server_pid=
done
if [ -z "$server_pid" ]; then
    fail annotate_debuginfod "the debuginfod server did not start ($(tail -1 "$TEST_TMP/debuginfod$attempt.log"))"
    exit 0
fi
stop_server() { [ -n "$server_pid" ] && kill "$server_pid" 2>/dev/null && wait "$server_pid" 2>/dev/null; server_pid=; }
trap stop_server EXIT
export DEBUGINFOD_URLS=http://127.0.0.1:$port

"$PROSPECT" annotate -i "$data" --format csv divide > "$TEST_TMP/a.csv" 2> "$TEST_TMP/a.err"
check debuginfod_symbols grep -q "^divide,$prog," "$TEST_TMP/a.csv"
check debuginfod_source_lines grep -Eq '^divide,[^,]*,0x[0-9a-f]+,[0-9]+,[0-9.]+,/[^,]*/div.c,12,' "$TEST_TMP/a.csv"
check debuginfod_cache_private sh -c "[ \"\$(stat -c %a '$XDG_CACHE_HOME/prospect/debuginfod')\" = 700 ]"
check debuginfod_cache_has_file sh -c "ls '$XDG_CACHE_HOME/prospect/debuginfod/$bid/' | grep -q debuginfo"
"$PROSPECT" report -i "$data" --sort srcline > "$TEST_TMP/sl.txt" 2>&1
check debuginfod_report_srcline grep -Eq '^ +[0-9.]+%  div.c:12$' "$TEST_TMP/sl.txt"
"$PROSPECT" report -i "$data" > "$TEST_TMP/flat.txt" 2>&1
check debuginfod_report_symbols grep -q "divide" "$TEST_TMP/flat.txt"

# The source text too, when this machine has no copy: the source directory hidden from
# Prospect (a tmpfs over it in a mount namespace of its own), not from the server.
if unshare -m --propagation private true 2>/dev/null; then
    unshare -m --propagation private sh -c "mount -t tmpfs none '$TEST_TMP/src' &&
        '$PROSPECT' annotate -i '$data' --wide divide" > "$TEST_TMP/src.txt" 2>&1
    check debuginfod_source_text grep -Eq '^ +div.c:12   acc \+= \(i \* 7' "$TEST_TMP/src.txt"
    check debuginfod_source_says_where grep -q "^# source $TEST_TMP/src/div.c read from $XDG_CACHE_HOME/prospect/debuginfod/" "$TEST_TMP/src.txt"
else
    skip debuginfod_source_text "no mount namespaces here to hide the local source"
fi

# Served from the cache once fetched: the server gone, the names stay (no note either).
stop_server
out=$("$PROSPECT" annotate -i "$data" divide 2>&1)
check debuginfod_cached_after_server_gone grep -q '^divide ' <<<"$out"

# An unreachable server: a clear note, the listing of what is known, no long wait per file.
export XDG_CACHE_HOME=$TEST_TMP/cache2
out=$(DEBUGINFOD_URLS=http://127.0.0.1:$port timeout 60 "$PROSPECT" report -i "$data" --sort srcline 2>&1); rc=$?
check debuginfod_unreachable_no_hang [ $rc = 0 ]
check debuginfod_unreachable_note grep -q "note: debuginfod: http://127.0.0.1:$port unreachable" <<<"$out"
check debuginfod_unreachable_one_note [ "$(grep -c 'debuginfod' <<<"$out")" = 1 ]

# libdebuginfod is loaded only when a server is to be asked: when it cannot be (here a file
# that is not a library bound over it, in a mount namespace of its own), one clear note and
# the report of what is known, as for an unreachable server; without DEBUGINFOD_URLS, no note.
lib=$(ldconfig -p | awk '$1 == "libdebuginfod.so.1" { print $NF; exit }')
if [ -z "$lib" ]; then
    skip debuginfod_library_missing "libdebuginfod.so.1 is not in the loader's cache"
elif ! unshare -m --propagation private true 2>/dev/null; then
    skip debuginfod_library_missing "no mount namespaces here to hide libdebuginfod"
else
    export XDG_CACHE_HOME=$TEST_TMP/cache3
    nolib() { unshare -m --propagation private sh -c "mount --bind /dev/null '$lib' && \"\$@\"" sh "$@"; }
    out=$(DEBUGINFOD_URLS=http://127.0.0.1:$port nolib "$PROSPECT" report -i "$data" --sort srcline 2>&1); rc=$?
    check debuginfod_library_missing_runs [ $rc = 0 ]
    check debuginfod_library_missing_note grep -q "note: debuginfod: DEBUGINFOD_URLS is set but libdebuginfod.so.1 cannot be loaded (.*): no debug info fetched" <<<"$out"
    check debuginfod_library_missing_one_note [ "$(grep -c 'debuginfod' <<<"$out")" = 1 ]
    out=$(unset DEBUGINFOD_URLS; nolib "$PROSPECT" report -i "$data" --sort srcline 2>&1); rc=$?
    check debuginfod_library_missing_unused [ "$rc:$(grep -c debuginfod <<<"$out")" = 0:0 ]
fi

# A server that accepts and never answers: one lookup is bounded by DEBUGINFOD_TIMEOUT in all
# (libdebuginfod alone stalled 3 x 10 s, on every run), the wait is said, and the failure is
# kept: the next run does not wait but names the kept failure and how to ask again, which
# works (the file deleted, it asks, and waits, again).
export XDG_CACHE_HOME=$TEST_TMP/cache4
mkfifo "$TEST_TMP/mute.port"
python3 -c '
import socket, sys
s = socket.socket(); s.bind(("127.0.0.1", 0)); s.listen(64)
with open(sys.argv[1], "w") as f: f.write("%d\n" % s.getsockname()[1])
held = []
while True: held.append(s.accept()[0])
' "$TEST_TMP/mute.port" & mute_pid=$!
read -r mport <"$TEST_TMP/mute.port"
mute() { DEBUGINFOD_URLS=http://127.0.0.1:$mport DEBUGINFOD_TIMEOUT=2 timeout 120 "$PROSPECT" report -i "$data" --sort srcline 2>&1 >/dev/null; }
out=$(mute); rc=$?
check debuginfod_mute_ends [ $rc = 0 ]
# (The first build-id asked for may be another file's than the program's: any is fine.)
check debuginfod_mute_says_waiting grep -Eq "^prospect report: note: debuginfod: waiting for http://127.0.0.1:$mport \(build-id [0-9a-f]{16}\.\.\., up to 2 s: DEBUGINFOD_TIMEOUT\)$" <<<"$out"
check debuginfod_mute_bounded grep -Eq "^prospect report: note: debuginfod: http://127.0.0.1:$mport did not answer within 2 s \(DEBUGINFOD_TIMEOUT\): no debug info fetched; the failure is kept for 600 s in $XDG_CACHE_HOME/prospect/debuginfod/[0-9a-f]{40}/debuginfo \(delete it to ask again\)$" <<<"$out"
out=$(mute); rc=$?
check debuginfod_kept_failure_status [ $rc = 0 ]
check debuginfod_kept_failure_no_wait not grep -q "waiting for" <<<"$out"
check debuginfod_kept_failure_named grep -Eq "^prospect report: note: debuginfod: no debug info for build-id [0-9a-f]{16}\.\.\.: an earlier lookup failed and the failure is kept for 600 s \(cache_miss_s\) in $XDG_CACHE_HOME/prospect/debuginfod/[0-9a-f]{40}/debuginfo; delete it to ask the servers again$" <<<"$out"
find "$XDG_CACHE_HOME/prospect/debuginfod" -name debuginfo -size 0 -delete
out=$(mute)
check debuginfod_retry_after_delete grep -q "note: debuginfod: waiting for http://127.0.0.1:$mport" <<<"$out"
kill "$mute_pid"; wait "$mute_pid" 2>/dev/null || true
