# SPDX-License-Identifier: MIT
# libprospect as users consume it: `make install-lib PREFIX=...`, then pkg-config, static and
# shared linking; the public headers compile as C99 and C++; only the API is exported.
source "$(dirname "$0")/lib.sh"
prefix=$TEST_TMP/prefix
make -s --no-print-directory install-lib PREFIX="$prefix" >"$TEST_TMP/install.log" 2>&1
check install_lib_succeeds test $? -eq 0
for f in include/prospect/cycles.h include/prospect/calibrate.h include/prospect/histogram.h \
         lib/libprospect.a lib/libprospect.so lib/libprospect.so.0 lib/pkgconfig/prospect.pc; do
    check "installed_$(basename "$f")" test -e "$prefix/$f"
done
export PKG_CONFIG_PATH=$prefix/lib/pkgconfig
check pkg_config_cflags test "$(pkg-config --cflags prospect | sed "s/ *$//")" = "-I$prefix/include"
check pkg_config_libs test "$(pkg-config --libs prospect | sed "s/ *$//")" = "-L$prefix/lib -lprospect"

src=$TEST_TMP/user.c
cat >"$src" <<'C'
#include <stdio.h>
#include <prospect/calibrate.h>
#include <prospect/histogram.h>
int main(void)
{
    struct prospect_hist *h = prospect_hist_new("user");
    uint64_t p;
    for (uint64_t v = 1; v <= 100; v++)
        prospect_hist_add(h, v, 0);
    if (prospect_hist_percentile(h, PROSPECT_KEEP_ALL, 90, &p))
        return 1;
    printf("p90=%llu\n", (unsigned long long)p);
    prospect_hist_free(h);
    return 0;
}
C
gcc -std=c99 -pedantic -Wall -Wextra -Werror -o "$TEST_TMP/user_shared" "$src" \
    $(pkg-config --cflags --libs prospect) 2>"$TEST_TMP/cc.log"
check links_shared test $? -eq 0
check runs_shared test "$(LD_LIBRARY_PATH=$prefix/lib "$TEST_TMP/user_shared")" = "p90=90"
gcc -o "$TEST_TMP/user_static" "$src" $(pkg-config --cflags prospect) "$prefix/lib/libprospect.a" \
    $(pkg-config --libs-only-l --static prospect | sed 's/-lprospect//') 2>>"$TEST_TMP/cc.log"
check links_static test $? -eq 0
check runs_static test "$("$TEST_TMP/user_static")" = "p90=90"

# Internal helpers stay hidden; the public API is exported.
syms=$(nm -D --defined-only "$prefix/lib/libprospect.so" | awk '{print $3}')
check so_exports_api grep -qx prospect_calibrate <<<"$syms"
check so_hides_internals bash -c '! grep -qv "^prospect_" <<<"$1"' _ "$syms"

# The headers compile as C99 and as C++ (cycles.h is header-only: no library needed).
hdr=$TEST_TMP/hdr.c
cat >"$hdr" <<'C'
#include <prospect/cycles.h>
#include <prospect/calibrate.h>
#include <prospect/histogram.h>
int main(void)
{
    uint32_t a0, a1;
    uint64_t t0 = prospect_tsc_start_aux(&a0), t1 = prospect_tsc_end(&a1);
    uint64_t t2 = prospect_tsc_start_mode(PROSPECT_BARRIER_LFENCE);
    uint64_t t3 = prospect_tsc_end_mode(PROSPECT_BARRIER_LFENCE, 0);
    (void)prospect_tsc_hz_cpuid();
    return prospect_tsc_unusable() || t1 <= t0 || t3 <= t2 || prospect_tsc_migrated(a0, a0);
}
C
gcc -std=c99 -pedantic -Wall -Wextra -Werror -Iinclude -o "$TEST_TMP/hdr_c" "$hdr" 2>"$TEST_TMP/c99.log"
check headers_compile_as_c99 test $? -eq 0
if command -v g++ >/dev/null; then
    cp "$hdr" "$TEST_TMP/hdr.cc"
    g++ -std=c++11 -pedantic -Wall -Wextra -Werror -Iinclude -o "$TEST_TMP/hdr_cc" "$TEST_TMP/hdr.cc" 2>"$TEST_TMP/cxx.log"
    check headers_compile_as_cxx test $? -eq 0
    grep -qw constant_tsc /proc/cpuinfo && check header_only_program_runs "$TEST_TMP/hdr_cc"
else
    skip headers_compile_as_cxx "g++ not installed (scripts/install-deps installs it)"
fi
