# SPDX-License-Identifier: MIT
# Many short processes (issue 19, section 6): the Prospect text report frees exited processes
# it will not detail as it reads (session/release.c); its process counts and By command rows
# must still equal those of the JSON export, whose session keeps every process.
. "$(dirname "$0")/lib.sh"
d=$TEST_TMP/released
mkdir -p "$d"

# 300 short processes, then one more after a pause: its exit comes over a second of record
# time after theirs, which is when the report may release them.
if ! "$PROSPECT" record -F 4000 -e cpu-clock -o "$d/m.data" -- sh -c \
        'i=0; while [ $i -lt 300 ]; do /bin/true; i=$((i+1)); done; sleep 1.5; /bin/true' \
        >/dev/null 2>"$d/rec.err"; then
    fail released_setup "record failed: $(head -c 300 "$d/rec.err")"
    exit 0
fi
"$PROSPECT" report -v -v -i "$d/m.data" > "$d/m.txt" 2> "$d/m.err"
"$PROSPECT" report --format json -i "$d/m.data" > "$d/m.json" 2>/dev/null

# What the JSON says, in the text report's words: "S with samples, K shown", the hidden
# line's process and hit counts, and "comm nproc hits" per command.
python3 - "$d/m.json" > "$d/want.txt" <<'EOF'
import json, sys
procs = json.load(open(sys.argv[1]))["processes"]
hidden = [p for p in procs if not p["detailed"]]
print("sampled %d shown %d" % (len(procs), len(procs) - len(hidden)))
print("hidden %d hits %d" % (len(hidden), sum(p["samples"] for p in hidden)))
by = {}
for p in procs:
    n, s = by.get(p["comm"], (0, 0))
    by[p["comm"]] = (n + 1, s + p["samples"])
for c in sorted(by):
    print("%s %d %d" % (c, by[c][0], by[c][1]))
EOF
awk '
/Processes seen/ { gsub(/[(,]/, " "); print "sampled " $4 " shown " $7 }
/more processes below the thresholds/ { h = $1 " hits " $7 }
/^  By command/ { cmd = 1; next }
cmd && NF == 0 { cmd = 0 }
cmd { print $1, $2, $3 | "LC_ALL=C sort > '"$d/bycmd.txt"'" }
END { print "hidden " (h ? h : "0 hits 0") }' "$d/m.txt" > "$d/got.txt"
cat "$d/bycmd.txt" >> "$d/got.txt" 2>/dev/null

if ! grep -q "exited processes released" "$d/m.err"; then
    fail released_some "report -vv released no process: $(grep -c . "$d/m.err") log lines"
elif ! grep -q '^true ' "$d/want.txt"; then
    fail released_some "no sampled /bin/true process in the JSON export"
else
    pass released_some
fi
if diff "$d/want.txt" "$d/got.txt" > "$d/diff.txt"; then
    pass released_counts_match_export
else
    fail released_counts_match_export \
        "text report vs JSON export: $(head -c 400 "$d/diff.txt" | tr '\n' '|')"
fi
