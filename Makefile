# SPDX-License-Identifier: MIT
# Prospect build.
#   make           build ./prospect (optimized, with debug info)
#   make check     install deps, build with ASan/UBSan, run every test; last line "N passed, N failed"
#   make demo      install deps, build, profile a bundled workload and print the report
#   make bench     compare with peers (perf, ptrace tracer), print medians and ratios
#   make fuzz      run the fuzzers: perf.data, call stacks, pipe mode, call traces (libFuzzer)
# Every .c under src/ is part of the build; tests/unit/test_*.c each become a test binary.

CC      ?= gcc
PKGS    := libelf libdw libzstd libdebuginfod libtraceevent
# Zydis (no .pc file), libpfm4 and libdebuginfod are loaded with dlopen when first needed
# (src/util/dlib.c, src/lazylib/): their headers are used, they are not linked (their load cost
# every run).
DLOPEN_PKGS := libdebuginfod
PKG_CFLAGS := $(shell pkg-config --cflags $(PKGS) 2>/dev/null)
PKG_LIBS   := $(shell pkg-config --libs $(filter-out $(DLOPEN_PKGS),$(PKGS)) 2>/dev/null)
.DEFAULT_GOAL := all
all: prospect
LIBS    := $(PKG_LIBS) -liberty -lz -lm -lpthread

WARN    := -Wall -Wextra -Werror -Wshadow -Wpointer-arith -Wformat=2 -Wno-unused-parameter \
           -Wmissing-prototypes -Wstrict-prototypes -Wvla
BASEFLAGS := -std=gnu11 -g -D_GNU_SOURCE -Isrc -Iinclude $(WARN) $(PKG_CFLAGS) -MMD -MP
REL_CFLAGS  := $(BASEFLAGS) -O2
ASAN_CFLAGS := $(BASEFLAGS) -O1 -fno-omit-frame-pointer -fsanitize=address,undefined \
               -fno-sanitize-recover=undefined
ASAN_LDFLAGS := -fsanitize=address,undefined

# src/intarget/ runs inside the measured program, never in Prospect itself: the entry hook and
# the interposer (shared libraries) and the replay child (a program) are built on their own (no
# sanitizers) and embedded as bytes; the markers library goes into libprospect only.
INTARGET_SRC := $(sort $(wildcard src/intarget/*.c))
MARKERS_LIB_SRC := $(sort $(wildcard src/intarget/markers_*.c))
REPLAY_CHILD_SRC := src/intarget/replay_child.c
LIB_SRC := $(filter-out src/prospect.c $(INTARGET_SRC),$(shell find src -name '*.c' | sort))
TEST_SRC := $(sort $(wildcard tests/unit/test_*.c))

# The entry hook (src/intarget/entry_hook.c, and lines_hook.c: lines' in-process counters) as a
# shared library, then as a C array in libpcore.
build/intarget/entry_hook.so: src/intarget/entry_hook.c src/intarget/lines_hook.c \
                              src/intarget/lines_abi.h
	@mkdir -p $(dir $@)
	@$(if $(Q),echo "  CC-SO   $<")
	$(Q)$(CC) -std=gnu11 -O2 -fPIC -shared -fvisibility=hidden $(WARN) -Wl,-z,noexecstack \
		-Wl,-z,now -o $@ src/intarget/entry_hook.c src/intarget/lines_hook.c

build/gen/entry_hook_so.c: build/intarget/entry_hook.so
	@mkdir -p $(dir $@)
	$(Q){ echo '/* Generated from $< by the Makefile. */'; \
	  echo 'extern const unsigned char prospect_entry_hook_so[];'; \
	  echo 'extern const unsigned long prospect_entry_hook_so_len;'; \
	  echo 'const unsigned char prospect_entry_hook_so[] = {'; \
	  od -An -v -tx1 $< | sed 's/ *\([0-9a-f][0-9a-f]\)/0x\1,/g'; \
	  echo '};'; \
	  echo 'const unsigned long prospect_entry_hook_so_len = sizeof(prospect_entry_hook_so);'; \
	} > $@.tmp && mv $@.tmp $@

# The replay child (src/intarget/replay_child.c), linked with libprospect.a only, then a C array.
build/intarget/replay_child: $(REPLAY_CHILD_SRC) src/intarget/replay_wire.h \
		build/lib/libprospect.a $(wildcard include/prospect/*.h)
	@mkdir -p $(dir $@)
	@$(if $(Q),echo "  CC-EXE  $@")
	$(Q)$(CC) -std=gnu11 -D_GNU_SOURCE -O2 -fno-builtin -Isrc -Iinclude $(WARN) -Wl,-z,noexecstack -o $@ \
		$(REPLAY_CHILD_SRC) build/lib/libprospect.a -lm -lpthread

build/gen/replay_child_bin.c: build/intarget/replay_child
	@mkdir -p $(dir $@)
	$(Q){ echo '/* Generated from $< by the Makefile. */'; \
	  echo 'extern const unsigned char prospect_replay_child[];'; \
	  echo 'extern const unsigned long prospect_replay_child_len;'; \
	  echo 'const unsigned char prospect_replay_child[] = {'; \
	  od -An -v -tx1 $< | sed 's/ *\([0-9a-f][0-9a-f]\)/0x\1,/g'; \
	  echo '};'; \
	  echo 'const unsigned long prospect_replay_child_len = sizeof(prospect_replay_child);'; \
	} > $@.tmp && mv $@.tmp $@

# The call-trace interposer (src/intarget/calltrace_preload.c), embedded the same way. It defines
# memcpy, strlen...: no builtins, no loop-to-memset rewriting, no fortify wrappers inside it.
build/intarget/calltrace_preload.so: src/intarget/calltrace_preload.c src/intarget/calltrace_abi.h
	@mkdir -p $(dir $@)
	@$(if $(Q),echo "  CC-SO   $<")
	$(Q)$(CC) -std=gnu11 -O2 -fPIC -shared -fvisibility=hidden -fno-builtin -U_FORTIFY_SOURCE \
		-fno-tree-loop-distribute-patterns -fno-stack-protector $(WARN) -Wl,-z,noexecstack \
		-Wl,-z,now -o $@ $< -ldl

build/gen/calltrace_preload_so.c: build/intarget/calltrace_preload.so
	@mkdir -p $(dir $@)
	$(Q){ echo '/* Generated from $< by the Makefile. */'; \
	  echo 'extern const unsigned char prospect_calltrace_preload_so[];'; \
	  echo 'extern const unsigned long prospect_calltrace_preload_so_len;'; \
	  echo 'const unsigned char prospect_calltrace_preload_so[] = {'; \
	  od -An -v -tx1 $< | sed 's/ *\([0-9a-f][0-9a-f]\)/0x\1,/g'; \
	  echo '};'; \
	  echo 'const unsigned long prospect_calltrace_preload_so_len = sizeof(prospect_calltrace_preload_so);'; \
	} > $@.tmp && mv $@.tmp $@

# The scripts and styles of the browser outputs (flame graph SVG, HTML page) and trace's
# prototype table (protos.conf, ltrace's syntax), kept as real files and embedded as
# NUL-terminated arrays: prospect_<file name, "." as "_">[] (flame_js, protos_conf).
WEB_ASSETS := src/flame/assets/flame.js src/html/assets/html.js src/html/assets/html.css \
              src/html/assets/source.js src/html/assets/diff.js src/html/assets/timeline.js \
              src/calltrace/protos.conf
build/gen/assets.c: $(WEB_ASSETS)
	@mkdir -p $(dir $@)
	$(Q){ echo '/* Generated from $(WEB_ASSETS) by the Makefile. */'; \
	  for f in $(WEB_ASSETS); do \
	    n=prospect_$$(basename $$f | tr . _); \
	    echo "extern const char $$n[];"; \
	    echo "const char $$n[] = {"; \
	    od -An -v -tx1 $$f | sed 's/ *\([0-9a-f][0-9a-f]\)/0x\1,/g'; \
	    echo '0x00};'; \
	  done; \
	} > $@.tmp && mv $@.tmp $@

REL_OBJ  := $(LIB_SRC:%.c=build/rel/%.o) build/rel/gen/entry_hook_so.o build/rel/gen/replay_child_bin.o \
            build/rel/gen/calltrace_preload_so.o build/rel/gen/assets.o
ASAN_OBJ := $(LIB_SRC:%.c=build/asan/%.o) build/asan/gen/entry_hook_so.o build/asan/gen/replay_child_bin.o \
            build/asan/gen/calltrace_preload_so.o build/asan/gen/assets.o

build/rel/gen/%.o: build/gen/%.c
	@mkdir -p $(dir $@)
	$(Q)$(CC) $(REL_CFLAGS) -c $< -o $@

build/asan/gen/%.o: build/gen/%.c
	@mkdir -p $(dir $@)
	$(Q)$(CC) $(ASAN_CFLAGS) -c $< -o $@
TEST_BIN := $(TEST_SRC:tests/unit/%.c=build/asan/tests/%)

.PHONY: all check demo bench fuzz clean deps test-bins install fixtures


deps:
	@scripts/install-deps

# V=1 shows full command lines.
Q := $(if $(V),,@)

build/rel/%.o: %.c
	@mkdir -p $(dir $@)
	@$(if $(Q),echo "  CC      $<")
	$(Q)$(CC) $(REL_CFLAGS) -c $< -o $@

build/asan/%.o: %.c
	@mkdir -p $(dir $@)
	@$(if $(Q),echo "  CC-ASAN $<")
	$(Q)$(CC) $(ASAN_CFLAGS) -c $< -o $@

build/rel/libpcore.a: $(REL_OBJ)
	@rm -f $@; ar rcs $@ $^

build/asan/libpcore.a: $(ASAN_OBJ)
	@rm -f $@; ar rcs $@ $^

prospect: build/rel/src/prospect.o build/rel/libpcore.a
	@$(if $(Q),echo "  LINK    $@")
	$(Q)$(CC) -o $@ $^ $(LIBS)

build/asan/prospect: build/asan/src/prospect.o build/asan/libpcore.a
	@$(if $(Q),echo "  LINK    $@")
	$(Q)$(CC) $(ASAN_LDFLAGS) -o $@ $^ $(LIBS)

include tests/fixtures/fixtures.mk

build/asan/tests/%: tests/unit/%.c tests/unit/test.h build/asan/libpcore.a | fixtures
	@mkdir -p $(dir $@)
	@$(if $(Q),echo "  TEST    $@")
	$(Q)$(CC) $(ASAN_CFLAGS) -Itests/unit -DFIXTURE_DIR='"$(CURDIR)/$(FIX)"' $< -o $@ build/asan/libpcore.a $(ASAN_LDFLAGS) $(LIBS)

test-bins: build/asan/prospect $(TEST_BIN)

# Tests run against the sanitized binary; the runner prints the final "N passed, N failed" line.
check: deps
	@$(MAKE) --no-print-directory test-bins
	@PROSPECT=$(CURDIR)/build/asan/prospect tests/run-tests build/asan/tests

demo: deps
	@$(MAKE) --no-print-directory prospect
	@scripts/demo

bench: deps
	@$(MAKE) --no-print-directory prospect
	@bench/run-bench

# The fuzzers (fuzz/, docs/perfdata.md): every library source built with clang's libFuzzer
# instrumentation. perfdata: the perf.data reader; callgraph: report --children, folded and
# pprof on files with -g and --call-graph dwarf samples (the unwinder); pipe: the same on
# pipe-mode streams; calltrace: the `trace -w` and `ltrace -o` readers behind `replay`.
# Each makes FUZZ_RUNS executions (default 5000: 20,000 in all; FUZZ_TIME=S: S seconds each
# instead) on a scratch copy of its seeds (fuzz/corpus, fuzz/corpus-NAME), and runs its whole
# budget whatever another found; findings land in build/fuzz/NAME/ (crash-*, leak-*, timeout-*)
# and make fails. FUZZ_JOBS>1: that many workers per fuzzer; FUZZERS="pipe": only those.
FUZZ_CC    ?= clang
FUZZ_RUNS  ?= 5000
FUZZ_TIME  ?= 0
FUZZ_JOBS  ?= 1
FUZZERS    ?= perfdata callgraph pipe calltrace
FUZZ_CFLAGS := -std=gnu11 -g -O1 -D_GNU_SOURCE -Isrc -Iinclude $(PKG_CFLAGS) \
               -fsanitize=fuzzer-no-link,address,undefined -fno-sanitize-recover=undefined
FUZZ_OBJ := $(LIB_SRC:%.c=build/fuzz/%.o) build/fuzz/gen/entry_hook_so.o build/fuzz/gen/replay_child_bin.o \
            build/fuzz/gen/calltrace_preload_so.o build/fuzz/gen/assets.o
FUZZ_BUDGET = $(if $(filter-out 0,$(FUZZ_TIME)),-max_total_time=$(FUZZ_TIME),-runs=$(FUZZ_RUNS))

build/fuzz/gen/%.o: build/gen/%.c
	@mkdir -p $(dir $@)
	$(Q)$(FUZZ_CC) $(FUZZ_CFLAGS) -c $< -o $@

build/fuzz/%.o: %.c
	@mkdir -p $(dir $@)
	@$(if $(Q),echo "  CC-FUZZ $<")
	$(Q)$(FUZZ_CC) $(FUZZ_CFLAGS) -c $< -o $@

build/fuzz/libpcore.a: $(FUZZ_OBJ)
	@rm -f $@; ar rcs $@ $^

build/fuzz/fuzz_%: fuzz/fuzz_%.c fuzz/callgraph_report.c fuzz/callgraph_report.h build/fuzz/libpcore.a
	@$(if $(Q),echo "  LINK    $@")
	$(Q)$(FUZZ_CC) $(FUZZ_CFLAGS) -fsanitize=fuzzer $(filter %.c %.a,$^) -o $@ $(LIBS)

fuzz: deps
	@$(MAKE) --no-print-directory $(FUZZERS:%=build/fuzz/fuzz_%)
	@status=0; for f in $(FUZZERS); do \
		seeds=fuzz/corpus-$$f; [ $$f = perfdata ] && seeds=fuzz/corpus; \
		rm -rf build/fuzz/$$f && mkdir -p build/fuzz/$$f/corpus && cp $$seeds/* build/fuzz/$$f/corpus/; \
		echo "== fuzz_$$f: $(FUZZ_BUDGET)"; \
		(cd build/fuzz/$$f && ../fuzz_$$f $(FUZZ_BUDGET) -max_len=65536 -timeout=60 \
			-rss_limit_mb=2048 $(if $(filter-out 1,$(FUZZ_JOBS)),-jobs=$(FUZZ_JOBS) -workers=$(FUZZ_JOBS)) \
			-print_final_stats=1 corpus) || status=1; \
	done; exit $$status

clean:
	rm -rf build prospect

-include $(shell find build -name '*.d' 2>/dev/null)

# ---- libprospect: the public timing library (issue 5) ------------------------------------
# Built from src/timing/ only (libc + libm), never from the profiler internals, so users' programs
# link it without elfutils/Zydis/libpfm. Public headers: include/prospect/*.h.
#   make lib                    build/lib/libprospect.a, libprospect.so(.0), prospect.pc
#   make examples               build/examples/* (seeds 000 and 004), linked against libprospect.a
#   make install PREFIX=DIR     headers, libs, prospect.pc and the prospect binary (DESTDIR too)
#   make install-lib PREFIX=DIR the same without the binary
PREFIX  ?= /usr/local
LIBDIR  ?= $(PREFIX)/lib
PUBLIC_HEADERS := $(sort $(wildcard include/prospect/*.h))
PLIB_SRC := $(sort $(wildcard src/timing/*.c)) $(MARKERS_LIB_SRC)
PLIB_OBJ := $(PLIB_SRC:%.c=build/pic/%.o)
PLIB_SOVER := 0
PLIB_A  := build/lib/libprospect.a
PLIB_SO := build/lib/libprospect.so.$(PLIB_SOVER)
# The libprospect examples (examples/hotspots.c is the demo workload, built by scripts/demo).
EXAMPLE_SRC := examples/sqrt_timing.c examples/malloc_bench.c
EXAMPLE_BIN := $(EXAMPLE_SRC:examples/%.c=build/examples/%)
SEED003_BIN := build/examples/no_alignment build/examples/alignment
.PHONY: lib examples install install-lib

build/pic/%.o: %.c
	@mkdir -p $(dir $@)
	@$(if $(Q),echo "  CC-PIC  $<")
	$(Q)$(CC) $(REL_CFLAGS) -fPIC -fvisibility=hidden -c $< -o $@

$(PLIB_A): $(PLIB_OBJ)
	@mkdir -p $(dir $@)
	@rm -f $@; ar rcs $@ $^

$(PLIB_SO): $(PLIB_OBJ)
	@mkdir -p $(dir $@)
	@$(if $(Q),echo "  LINK    $@")
	$(Q)$(CC) -shared -Wl,-soname,libprospect.so.$(PLIB_SOVER) -o $@ $^ -lm
	@ln -sf libprospect.so.$(PLIB_SOVER) build/lib/libprospect.so

# prospect.pc: $(call pc_lines,PREFIX,LIBDIR,INCLUDEDIR). The in-tree copy points at the build
# tree (PKG_CONFIG_PATH=build/lib); install-lib writes one for the install prefix.
PROSPECT_LIB_VERSION := $(shell sed -n 's/^\#define PROSPECT_VERSION "\(.*\)"/\1/p' src/cmd/cmd.h)
pc_lines = 'prefix=$(1)' 'libdir=$(2)' 'includedir=$(3)' '' 'Name: prospect' \
  'Description: Prospect timing library: serialized TSC reads, calibration, histograms' \
  'Version: $(PROSPECT_LIB_VERSION)' 'Cflags: -I$${includedir}' \
  'Libs: -L$${libdir} -lprospect' 'Libs.private: -lm'

build/lib/prospect.pc: Makefile src/cmd/cmd.h
	@mkdir -p $(dir $@)
	@printf '%s\n' $(call pc_lines,$(CURDIR),$(CURDIR)/build/lib,$(CURDIR)/include) > $@

lib: $(PLIB_A) $(PLIB_SO) build/lib/prospect.pc

build/examples/%: examples/%.c $(PLIB_A) $(PUBLIC_HEADERS)
	@mkdir -p $(dir $@)
	@$(if $(Q),echo "  EXAMPLE $@")
	$(Q)$(CC) -std=gnu11 -O2 -g -Iinclude $(WARN) -o $@ $< $(PLIB_A) -lm

examples: $(EXAMPLE_BIN) $(SEED003_BIN)

# Seed 003 (false sharing): the two programs, then scripts/seed003 runs them under prospect run
# and stat and samples the CPU's cache events where it can (SEED003_LOOPS: outer loop count).
build/examples/no_alignment build/examples/alignment: build/examples/%: examples/%.c
	@mkdir -p $(dir $@)
	$(Q)$(CC) -std=gnu11 -O2 -g $(WARN) -pthread -o $@ $<
.PHONY: seed003
seed003: prospect $(SEED003_BIN)
	@scripts/seed003

# The tests use the library, the examples and the C++ header check.
test-bins: lib examples

install-lib: lib
	install -d $(DESTDIR)$(PREFIX)/include/prospect $(DESTDIR)$(LIBDIR)/pkgconfig
	install -m 644 $(PUBLIC_HEADERS) $(DESTDIR)$(PREFIX)/include/prospect/
	install -m 644 $(PLIB_A) $(DESTDIR)$(LIBDIR)/
	install -m 755 $(PLIB_SO) $(DESTDIR)$(LIBDIR)/
	ln -sf libprospect.so.$(PLIB_SOVER) $(DESTDIR)$(LIBDIR)/libprospect.so
	printf '%s\n' $(call pc_lines,$(PREFIX),$(LIBDIR),$(PREFIX)/include) \
	  > $(DESTDIR)$(LIBDIR)/pkgconfig/prospect.pc

install: prospect install-lib
	install -d $(DESTDIR)$(PREFIX)/bin
	install -m 755 prospect $(DESTDIR)$(PREFIX)/bin/
	@$(MAKE) --no-print-directory install-docs

# Man pages (prospect.1, prospect-COMMAND.1) and bash/zsh completion, all from the commands'
# option tables (src/cmd/options.h): the pages are printed by the binary itself.
PROSPECT_BIN ?= ./prospect
MAN_CMDS := $(shell sed -n 's/^    { "\([a-z]*\)", cmd_.*/\1/p' src/cmd/commands.c)
MANDIR  ?= $(PREFIX)/share/man/man1
.PHONY: install-docs
install-docs:
	install -d $(DESTDIR)$(MANDIR) $(DESTDIR)$(PREFIX)/share/bash-completion/completions \
		$(DESTDIR)$(PREFIX)/share/zsh/site-functions
	$(PROSPECT_BIN) help --man > $(DESTDIR)$(MANDIR)/prospect.1
	for c in $(MAN_CMDS); do $(PROSPECT_BIN) help --man $$c > $(DESTDIR)$(MANDIR)/prospect-$$c.1 || exit 1; done
	install -m 644 scripts/completion/prospect.bash \
		$(DESTDIR)$(PREFIX)/share/bash-completion/completions/prospect
	install -m 644 scripts/completion/_prospect $(DESTDIR)$(PREFIX)/share/zsh/site-functions/
# ---- end libprospect ----------------------------------------------------------------------
