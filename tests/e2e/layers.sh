#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# The include rules of docs/ARCHITECTURE.md hold (scripts/check-layers), and the check would
# catch an upward include and a stale allowance in a copy of the tree.
source "$(dirname "$0")/lib.sh"
root=$(cd "$(dirname "$0")/../.." && pwd)
out=$("$root/scripts/check-layers" "$root" 2>&1)
check layers_hold [ $? -eq 0 ]
[ -z "$out" ] || echo "$out" | head -20

copy=$TEST_TMP/layers-copy
mkdir -p "$copy/docs" "$copy/scripts"
cp -r "$root/src" "$copy/"
cp "$root/docs/ARCHITECTURE.md" "$copy/docs/"
echo '#include "report/csv.h"' >> "$copy/src/util/vec.h"
out=$("$root/scripts/check-layers" "$copy" 2>&1); rc=$?
check layers_catch_upward_include [ $rc -eq 1 ]
check layers_upward_include_named \
    grep -q 'src/util/vec.h: includes report/csv.h: util (floor 0) may not include report' <<<"$out"

cp "$root/docs/ARCHITECTURE.md" "$copy/docs/"
cp "$root/src/util/vec.h" "$copy/src/util/vec.h"
sed -i 's/^floor 0: util .*$/&\nallow util -> symbol/' "$copy/docs/ARCHITECTURE.md"
out=$("$root/scripts/check-layers" "$copy" 2>&1); rc=$?
check layers_stale_allow_fails [ $rc -eq 1 ]
check layers_stale_allow_named grep -q 'allow util -> symbol is no longer needed' <<<"$out"
