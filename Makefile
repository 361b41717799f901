# exdb - a debugger for torch.export programs.
#
#   make run     install what is missing, build, open the REPL on the bundled example
#   make test    install what is missing, build with ASan+UBSan, run every test
#                (T=golden/find: one suite or test; UPDATE=1 T=golden/NAME rewrites that golden)
#   make quick   unit + golden + malformed only, for the edit loop
#   make bench   the speed and memory table
#   make bench-peer  lint and dce against torch 2.13's torch.fx (build/venv)
#   make conformance exdb against torch 2.13 itself (tests/conformance)
#   make coverage  line coverage of core/ and viz/ by the unit, golden, malformed and fault suites
#   make all | install PREFIX=/usr/local | clean | deps | format

CC      ?= cc
PREFIX  ?= /usr/local
PKGS    := libcjson libcgraph libgvc libzip libedit libxxhash zlib
WARN    := -Wall -Wextra -Wshadow -Wstrict-prototypes -Wmissing-prototypes -Wno-unused-parameter \
           -Wno-missing-field-initializers
# A warning fails the developer and CI builds (make, make test); a packager
# with another compiler may build with WERROR= .
WERROR  ?= -Werror
# Each object's header dependencies come from the compiler (.d beside the .o),
# as git's Makefile does: touching one header rebuilds only its users.
DEPFLAGS := -MMD -MP
CSTD    := -std=c11 -D_POSIX_C_SOURCE=200809L -D_DEFAULT_SOURCE
# One version (VERSION) for the binary, libexdb.a (core/base/version.c), the wheel and make install.
VERSION := $(shell cat VERSION)
CSTD    += -DEXDB_VERSION='"$(VERSION)"'
OPT     ?= -O2 -g
PKG_CFLAGS = $(shell pkg-config --cflags $(PKGS) 2>/dev/null)
PKG_LIBS   = $(shell pkg-config --libs $(PKGS) 2>/dev/null)
# viz/cgdisc.c's fast DOT path leans on Graphviz 2.42's internals (Debian 12
# ships 2.42.2, whose .pc says 2.43.0); other versions get the plain path.
# tests/unit/test_cgdisc.c proves it: every view's DOT is the same graph as
# the one cgraph's own disciplines write.
CGRAPH_FAST = $(shell pkg-config --atleast-version=2.42 libcgraph 2>/dev/null && \
	pkg-config --max-version=2.43.0 libcgraph 2>/dev/null && echo -DEXDB_CGRAPH_FAST)
CFLAGS_ALL  = $(CSTD) $(WARN) $(WERROR) $(OPT) $(PKG_CFLAGS) $(CGRAPH_FAST) -I. $(EXTRA_CFLAGS)
LDLIBS_ALL  = $(PKG_LIBS) -lm -pthread

SAN     := -fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=undefined

# core/'s folders, lowest first: each may include only its own and lower
# folders' headers (scripts/check_layers.sh, run before the library is built).
LAYERS   := base format fx export unflatten
CORE_SRC := $(sort $(foreach l,$(LAYERS),$(wildcard core/$(l)/*.c)))
# The viewer's JavaScript and CSS (viz/viewer/) are compiled in as strings
# (scripts/embed.sh writes build/gen/viz_assets.c; viz/assets.h declares them).
VIZ_ASSETS := $(sort $(wildcard viz/viewer/*.js viz/viewer/*.css))
VIZ_GEN  := build/gen/viz_assets.c
VIZ_SRC  := $(sort $(wildcard viz/*.c)) $(VIZ_GEN)
REPL_SRC := $(sort $(wildcard repl/*.c))
UNIT_SRC := $(sort $(wildcard tests/unit/*.c))
CORE_HDR := $(sort $(foreach l,$(LAYERS),$(wildcard core/$(l)/*.h)))
HDRS     := $(CORE_HDR) $(wildcard viz/*.h repl/*.h tests/unit/*.h)
ALL_SRC  := $(CORE_SRC) $(VIZ_SRC) $(REPL_SRC) $(UNIT_SRC)

# Release objects in build/rel, sanitizer objects in build/san.
rel = $(patsubst %.c,build/rel/%.o,$(1))
san = $(patsubst %.c,build/san/%.o,$(1))

.PHONY: all run test quick check bench bench-peer conformance install clean deps deps-test format unit golden \
	readme-picture valgrind-session
.DEFAULT_GOAL := all

all: deps exdb core/libexdb.a

deps:
	@scripts/deps.sh

deps-test:
	@scripts/deps.sh test

# V=1 shows the full compiler lines.
Q := $(if $(V),,@)

# assert() checks invariants (core/fx/graph_check.h, core/unflatten/journal.h) in the sanitizer build only.
$(VIZ_GEN): scripts/embed.sh $(VIZ_ASSETS)
	@mkdir -p $(dir $@)
	$(Q)scripts/embed.sh $(VIZ_ASSETS) >$@.tmp && mv $@.tmp $@

build/rel/%.o: %.c build/rel/%.d
	@mkdir -p $(dir $@)
	@$(if $(Q),echo "  CC      $<")
	$(Q)$(CC) $(CFLAGS_ALL) $(DEPFLAGS) -DNDEBUG -c $< -o $@

build/san/%.o: %.c build/san/%.d
	@mkdir -p $(dir $@)
	@$(if $(Q),echo "  CC-SAN  $<")
	$(Q)$(CC) $(CFLAGS_ALL) $(DEPFLAGS) $(SAN) $(SAN_FAULT) -O1 -c $< -o $@

# The compiler's header dependencies of every object built so far. An
# object without its .d (built by an older Makefile, or interrupted) is
# rebuilt: its .d is a target with no recipe, so it counts as new.
$(foreach b,rel san cov fuzz/obj,build/$(b)/%.d): ;
.PRECIOUS: $(foreach b,rel san cov fuzz/obj,build/$(b)/%.d)
-include $(wildcard $(foreach b,rel san cov fuzz/obj,$(patsubst %.c,build/$(b)/%.d,$(ALL_SRC))))

# The sanitizer build of core/ and viz/ carries the out-of-memory fault
# injection hook (core/base/fault.h): every malloc, calloc, realloc, strdup and
# arena allocation can be made to fail by tests/faults/fault_walk.
FAULT := -DEXDB_FAULT -include core/base/fault.h
$(call san,$(CORE_SRC) $(VIZ_SRC)): SAN_FAULT = $(FAULT)

# An #include that runs back up the layers (base <- format <- fx <- export <-
# unflatten <- viz <- repl) fails the build.
# repl/ and viz/ include only the public headers of core/public.txt.
build/layers.ok: scripts/check_layers.sh core/public.txt $(CORE_SRC) $(HDRS) $(VIZ_SRC) $(REPL_SRC)
	$(Q)scripts/check_layers.sh && mkdir -p build && touch $@

$(foreach d,rel san cov fuzz/obj,build/$(d)/core/base/version.o): VERSION

core/libexdb.a: $(call rel,$(CORE_SRC)) build/layers.ok
	$(Q)rm -f $@ && ar rcs $@ $(filter %.o,$^)

build/san/libexdb.a: $(call san,$(CORE_SRC)) build/layers.ok
	$(Q)rm -f $@ && ar rcs $@ $(filter %.o,$^)

exdb: $(call rel,$(REPL_SRC) $(VIZ_SRC)) core/libexdb.a
	@$(if $(Q),echo "  LINK    $@")
	$(Q)$(CC) $(OPT) -o $@ $^ $(LDLIBS_ALL)

build/san/exdb: $(call san,$(REPL_SRC) $(VIZ_SRC)) build/san/libexdb.a
	@$(if $(Q),echo "  LINK    $@")
	$(Q)$(CC) $(SAN) -o $@ $^ $(LDLIBS_ALL)

build/san/unit: $(call san,$(UNIT_SRC) $(VIZ_SRC)) build/san/libexdb.a
	@$(if $(Q),echo "  LINK    $@")
	$(Q)$(CC) $(SAN) -o $@ $^ $(LDLIBS_ALL) $(shell pkg-config --libs criterion 2>/dev/null)

# tests/faults/fault_walk.c: the session of the REPL (without main.c) with
# the Nth allocation failing, for tests/run_faults.extra.sh.
FAULT_WALK_OBJS = $(call san,$(VIZ_SRC) $(filter-out repl/main.c,$(REPL_SRC))) build/san/libexdb.a
build/san/fault_walk: tests/faults/fault_walk.c core/base/fault.h $(FAULT_WALK_OBJS)
	@$(if $(Q),echo "  LINK    $@")
	$(Q)$(CC) $(CFLAGS_ALL) $(SAN) -DEXDB_FAULT -O1 -o $@ $< $(FAULT_WALK_OBJS) $(LDLIBS_ALL)

build/rel/bench_load: scripts/bench/bench_load.c core/libexdb.a
	@mkdir -p $(dir $@)
	$(Q)$(CC) $(CFLAGS_ALL) -o $@ $^ $(LDLIBS_ALL)

build/rel/bench_goto: scripts/bench/bench_goto.c core/libexdb.a
	@mkdir -p $(dir $@)
	$(Q)$(CC) $(CFLAGS_ALL) -o $@ $^ $(LDLIBS_ALL)

build/rel/bench_diff: scripts/bench/bench_diff.c core/libexdb.a
	@mkdir -p $(dir $@)
	$(Q)$(CC) $(CFLAGS_ALL) -o $@ $^ $(LDLIBS_ALL)

build/rel/bench_ops: scripts/bench/bench_ops.c $(call rel,$(VIZ_SRC)) core/libexdb.a
	@mkdir -p $(dir $@)
	$(Q)$(CC) $(CFLAGS_ALL) -o $@ $^ $(LDLIBS_ALL)

# The REPL without main.c: session_exec as the prompt runs it.
build/rel/bench_repl: scripts/bench/bench_repl.c $(call rel,$(filter-out repl/main.c,$(REPL_SRC)) $(VIZ_SRC)) core/libexdb.a
	@mkdir -p $(dir $@)
	$(Q)$(CC) $(CFLAGS_ALL) -o $@ $^ $(LDLIBS_ALL)

run: all
	./exdb tests/fixtures/example.json

# Everything under ASan+UBSan; tests/run.sh prints the "N passed, N failed" line.
# T="SUITE[/NAME] ..." picks suites and tests (tests/run.sh), UPDATE=1 rewrites goldens.
# The release ./exdb too: the cache suite's checks of the IR entry's writer
# run it (the sanitizer build's core never forks a writer).
test: deps-test
	@$(MAKE) --no-print-directory build/san/exdb build/san/unit exdb
	@T='$(T)' UPDATE='$(UPDATE)' tests/run.sh build/san

# The edit loop's suites: unit, golden and malformed (T=... narrows them further).
quick: deps-test
	@$(MAKE) --no-print-directory build/san/exdb build/san/unit
	@T='$(or $(T),unit golden malformed)' UPDATE='$(UPDATE)' tests/run.sh build/san

check: test

# The long-session test (tests/long_session.py; make test runs it 1,000 cycles
# under ASan+UBSan+LSan) with the release build under valgrind's memcheck:
# VALGRIND_CYCLES (200) cycles; valgrind's summaries, non-zero on any error.
VALGRIND_CYCLES ?= 200
valgrind-session: deps exdb
	@scripts/valgrind-session.sh $(VALGRIND_CYCLES)

bench: deps exdb
	@scripts/bench.sh

# lint and dce beside torch.fx's Graph.lint()/eliminate_dead_code() on the same
# graphs, torch 2.13 from build/venv (scripts/deps.sh peer makes it); without
# torch the table has exdb's column only.
bench-peer: deps exdb
	@scripts/deps.sh peer >/dev/null || echo "bench-peer: torch 2.13.0 could not be installed" >&2
	@scripts/bench_peer.sh

# torch 2.13 as the judge: regenerate the scenario programs and torch's
# answers (CONFORMANCE_UPDATE=1: into the committed corpus), generate
# CONFORMANCE_N (300) random programs and the transformers architectures,
# compare exdb with torch on all (scripts/conformance.sh).
conformance: deps exdb
	@scripts/conformance.sh

# The README's picture: resnet18 (exported by torch 2.12) as module-level dataflow.
REAL ?= ../shared/real_pt2
readme-picture: exdb
	./exdb -q $(REAL)/TheCBaH__pytorch.models.pt2__resnet18__model.json \
	    -ex 'render modules --depth 2 -o docs/resnet18-modules.svg' -batch

# Headers: core's public ones (core/public.txt) and the internal ones they
# still include (scripts/public_headers.sh), not the rest.
install: all
	install -d $(DESTDIR)$(PREFIX)/bin $(DESTDIR)$(PREFIX)/lib \
		$(foreach l,$(LAYERS),$(DESTDIR)$(PREFIX)/include/exdb/core/$(l))
	install -m 755 exdb $(DESTDIR)$(PREFIX)/bin/exdb
	install -m 644 core/libexdb.a $(DESTDIR)$(PREFIX)/lib/libexdb.a
	for h in $$(scripts/public_headers.sh $(CC)); do \
		install -m 644 $$h $(DESTDIR)$(PREFIX)/include/exdb/$$h || exit 1; done
	install -d $(DESTDIR)$(PREFIX)/lib/pkgconfig
	printf 'prefix=%s\nName: exdb\nDescription: %s\nVersion: %s\nCflags: -I$${prefix}/include/exdb\nLibs: -L$${prefix}/lib -lexdb -lm\nRequires: %s\n' \
		'$(PREFIX)' 'the torch.export program library of exdb' '$(VERSION)' 'libzip libxxhash zlib' \
		>$(DESTDIR)$(PREFIX)/lib/pkgconfig/exdb.pc

format:
	clang-format -i $(CORE_SRC) $(filter-out $(VIZ_GEN),$(VIZ_SRC)) $(REPL_SRC) $(UNIT_SRC) $(CORE_HDR) $(wildcard viz/*.h repl/*.h)

clean:
	rm -rf build exdb core/libexdb.a

# ---- coverage (issue 13) ------------------------------------------------------
# make coverage: everything built with gcc --coverage (no sanitizers, -O0,
# the fault injection hook in) into build/cov/, then the unit, golden,
# malformed and fault injection suites run with it, and
# scripts/coverage.sh prints the line coverage of core/ and viz/ per file
# and in total (plain gcov, no other tool). The suites' failures are
# reported, not fatal: a coverage figure is wanted even then.
COV_FLAGS := --coverage -O0 -g -DEXDB_COVERAGE
cov = $(patsubst %.c,build/cov/%.o,$(1))

build/cov/%.o: %.c build/cov/%.d
	@mkdir -p $(dir $@)
	@$(if $(Q),echo "  CC-COV  $<")
	$(Q)$(CC) $(CSTD) $(WARN) $(DEPFLAGS) $(PKG_CFLAGS) $(CGRAPH_FAST) -I. $(COV_FLAGS) $(COV_FAULT) -c $< -o $@

$(call cov,$(CORE_SRC) $(VIZ_SRC)): COV_FAULT = $(FAULT)

build/cov/exdb: $(call cov,$(REPL_SRC) $(VIZ_SRC) $(CORE_SRC))
	$(Q)$(CC) --coverage -o $@ $^ $(LDLIBS_ALL)

build/cov/unit: $(call cov,$(UNIT_SRC) $(VIZ_SRC) $(CORE_SRC))
	$(Q)$(CC) --coverage -o $@ $^ $(LDLIBS_ALL) $(shell pkg-config --libs criterion 2>/dev/null)

COV_WALK_OBJS = $(call cov,$(VIZ_SRC) $(filter-out repl/main.c,$(REPL_SRC)) $(CORE_SRC))
build/cov/fault_walk: tests/faults/fault_walk.c core/base/fault.h $(COV_WALK_OBJS)
	$(Q)$(CC) $(CSTD) $(WARN) $(PKG_CFLAGS) -I. $(COV_FLAGS) -DEXDB_FAULT -o $@ $< \
		$(COV_WALK_OBJS) $(LDLIBS_ALL)

.PHONY: coverage
coverage: deps-test
	@$(MAKE) --no-print-directory -j2 build/cov/exdb build/cov/unit build/cov/fault_walk
	@scripts/coverage.sh build/cov

# ---- fuzzing (issue 7) ---------------------------------------------------------
# libFuzzer harnesses in tests/fuzz (clang's libFuzzer, ASan+UBSan):
#   make fuzz          build every harness into build/fuzz/
#   make fuzz-smoke    run each for FUZZ_SMOKE_SECONDS (20); "fuzz-smoke: N passed, M failed"
#                      (make test runs each for 3 s: tests/run_fuzz_smoke.extra.sh)
#   make fuzz-long     run each for FUZZ_SECONDS (600), FUZZ_JOBS (1) at a time
# Seed corpora are built at run time by tests/fuzz/seeds.sh (from ../shared/real_pt2
# and tests/) into build/fuzz/seeds/; what the fuzzers find goes to
# build/fuzz/corpus/ and crash files to build/fuzz/artifacts/. The regression
# replays (tests/run_fuzz_regressions.extra.sh) use build/san/fuzz-replay/, the
# same harnesses linked without libFuzzer against the ASan+UBSan objects.
# clang (scripts/deps.sh test installs the release's clang and libclang-rt-dev,
# which holds libFuzzer), or clang-14.
ifeq ($(origin FUZZ_CC),undefined)
FUZZ_CC := $(or $(shell command -v clang 2>/dev/null),$(shell command -v clang-14 2>/dev/null),clang)
endif
FUZZ_SECONDS       ?= 600
FUZZ_SMOKE_SECONDS ?= 20
FUZZ_JOBS          ?= 1
FUZZ_HARNESSES     := json load container treespec stack repl unflatten shape cache
FUZZ_SAN  := -fsanitize=address,undefined -fno-sanitize-recover=undefined -fno-omit-frame-pointer
FUZZ_LIB_SRC := $(CORE_SRC) $(VIZ_SRC) $(filter-out repl/main.c,$(REPL_SRC))
FUZZ_BINS    := $(addprefix build/fuzz/fuzz_,$(FUZZ_HARNESSES))
FUZZ_REPLAYS := $(addprefix build/san/fuzz-replay/fuzz_,$(FUZZ_HARNESSES))
fuzzobj = $(patsubst %.c,build/fuzz/obj/%.o,$(1))

.PHONY: fuzz fuzz-smoke fuzz-long fuzz-replay fuzz-seeds

fuzz: $(FUZZ_BINS)

build/fuzz/obj/%.o: %.c build/fuzz/obj/%.d
	@mkdir -p $(dir $@)
	@$(if $(Q),echo "  CC-FUZZ $<")
	$(Q)$(FUZZ_CC) $(CFLAGS_ALL) $(DEPFLAGS) $(FUZZ_SAN) -fsanitize=fuzzer-no-link -O1 -c $< -o $@
	@touch $@ # clang writes the .d after the .o, which would rebuild it every time

build/fuzz/libexdb-fuzz.a: $(call fuzzobj,$(FUZZ_LIB_SRC))
	$(Q)rm -f $@ && ar rcs $@ $^

build/fuzz/fuzz_%: tests/fuzz/fuzz_%.c tests/fuzz/fuzz_common.h build/fuzz/libexdb-fuzz.a
	@$(if $(Q),echo "  LINK    $@")
	$(Q)$(FUZZ_CC) $(CFLAGS_ALL) $(FUZZ_SAN) -fsanitize=fuzzer -O1 -o $@ $< \
		build/fuzz/libexdb-fuzz.a $(LDLIBS_ALL)

fuzz-replay: $(FUZZ_REPLAYS)

build/san/fuzz-replay/fuzz_%: tests/fuzz/fuzz_%.c tests/fuzz/replay_main.c tests/fuzz/fuzz_common.h \
		$(call san,$(VIZ_SRC) $(filter-out repl/main.c,$(REPL_SRC))) build/san/libexdb.a
	@mkdir -p $(dir $@)
	@$(if $(Q),echo "  LINK    $@")
	$(Q)$(CC) $(CFLAGS_ALL) $(SAN) -O1 -o $@ $< tests/fuzz/replay_main.c \
		$(call san,$(VIZ_SRC) $(filter-out repl/main.c,$(REPL_SRC))) build/san/libexdb.a $(LDLIBS_ALL)

fuzz-seeds:
	@tests/fuzz/seeds.sh build/fuzz/seeds

# FUZZ_RUN_SECONDS, then "NAME: ok|FAILED (how) after N executions"; the
# summary line counts harnesses. Options: a hang is an input running 10 s,
# rss above 2 GiB or one malloc above 1 GiB is an out-of-memory finding (and
# each harness has a per-input memory budget, tests/fuzz/fuzz_common.h).
FUZZ_OPTS = -timeout=10 -rss_limit_mb=2048 -malloc_limit_mb=1024 -print_final_stats=1
fuzz-smoke: FUZZ_RUN_SECONDS = $(FUZZ_SMOKE_SECONDS)
fuzz-long: FUZZ_RUN_SECONDS = $(FUZZ_SECONDS)
fuzz-smoke fuzz-long: fuzz fuzz-seeds
	@FUZZ_LABEL=$@ FUZZ_OPTS='$(FUZZ_OPTS)' tests/fuzz/run.sh $(FUZZ_RUN_SECONDS) $(FUZZ_JOBS) $(FUZZ_HARNESSES)

# ---- the wheel (issue 26) -------------------------------------------------------
# make wheel: dist/exdb-VERSION-py3-none-manylinux_*.whl, the exdb binary and
# the exdb Python package (python/exdb) with the shared libraries exdb needs
# inside (auditwheel repair, from PyPI into build/pytools; scripts/wheel.sh).
# pip install . builds the same wheel unrepaired (python/build/exdb_build.py).
# The wheel's binary links Graphviz's dot, neato (sfdp) and core plugins and
# hands them to gvc itself (viz/gvcontext.c), so nothing is loaded from a
# plugin directory at run time.
GV_PLUGIN_DIR = $(shell pkg-config --variable=libdir libgvc 2>/dev/null)/graphviz
WHEEL_GV_LIBS = -L$(GV_PLUGIN_DIR) -Wl,-rpath,$(GV_PLUGIN_DIR) -l:libgvplugin_dot_layout.so.6 \
	-l:libgvplugin_neato_layout.so.6 -l:libgvplugin_core.so.6
WHEEL_OBJS = $(filter-out build/rel/viz/gvcontext.o,$(call rel,$(REPL_SRC) $(VIZ_SRC))) \
	build/wheel/viz/gvcontext.o

.PHONY: wheel
wheel: deps
	@scripts/wheel.sh

build/wheel/viz/gvcontext.o: viz/gvcontext.c viz/gvcontext.h
	@mkdir -p $(dir $@)
	$(Q)$(CC) $(CFLAGS_ALL) -DNDEBUG -DEXDB_GV_BUILTINS -c $< -o $@

build/wheel/exdb: $(WHEEL_OBJS) core/libexdb.a
	@$(if $(Q),echo "  LINK    $@")
	$(Q)$(CC) $(OPT) -o $@ $^ $(LDLIBS_ALL) $(WHEEL_GV_LIBS)
