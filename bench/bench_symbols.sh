#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Symbol loading and resolution speed (figures, not pass/fail): kallsyms load, ELF symbol table
# load, merge-walk versus per-address binary search.
set -eu
cd "$(dirname "$0")/.."
out=${BENCH_TMP:-/tmp}/bench_symbols
${CC:-gcc} -O2 -std=gnu11 -D_GNU_SOURCE -Isrc -o "$out" bench/bench_symbols.c build/rel/libpcore.a \
    $(pkg-config --libs libelf libdw) -liberty -lz
"$out"
