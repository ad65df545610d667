#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Builds the symbol-reader fuzzer with clang (libFuzzer + ASan + UBSan) and runs it for
# SECONDS (default 60) on a corpus seeded with the test fixtures. Prints libFuzzer's summary.
set -eu
cd "$(dirname "$0")/../.."
unset DEBUGINFOD_URLS    # fuzzed build-ids must not become queries to debuginfod servers
secs=${1:-60}
out=build/fuzz
mkdir -p "$out/corpus-symbols"
make --no-print-directory fixtures >/dev/null
cp build/fixtures/libsym*.so build/fixtures/prog-* build/fixtures/cxx-prog build/fixtures/hot-prog \
   build/fixtures/*.txt "$out/corpus-symbols/" 2>/dev/null || true
gcc -O2 -g -o "$out/corpus-symbols/dwarf-seed" tests/fuzz/dwarf_seed.c
clang -g -O1 -std=gnu11 -D_GNU_SOURCE -Isrc -fsanitize=fuzzer,address,undefined \
    -fno-sanitize-recover=undefined $(pkg-config --cflags libelf libdw libdebuginfod) \
    tests/fuzz/fuzz_symbols.c src/symbol/*.c src/util/*.c -o "$out/fuzz_symbols" \
    $(pkg-config --libs libelf libdw) -liberty -lz
"$out/fuzz_symbols" -max_total_time="$secs" -max_len=65536 -print_final_stats=1 \
    "$out/corpus-symbols" 2>&1 | tail -25
