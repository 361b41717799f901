# exdb - a debugger for torch.export programs.
#
#   make run     install what is missing, build, open the REPL on the bundled example
#   make test    install what is missing, build with ASan+UBSan, run every test
#   make bench   the speed and memory table
#   make all | install PREFIX=/usr/local | clean | deps | format

CC      ?= cc
PREFIX  ?= /usr/local
PKGS    := libcjson libcgraph libgvc libzip libedit
WARN    := -Wall -Wextra -Wshadow -Wstrict-prototypes -Wno-unused-parameter
CSTD    := -std=c11 -D_POSIX_C_SOURCE=200809L -D_DEFAULT_SOURCE
OPT     ?= -O2 -g
PKG_CFLAGS = $(shell pkg-config --cflags $(PKGS) 2>/dev/null)
PKG_LIBS   = $(shell pkg-config --libs $(PKGS) 2>/dev/null)
CFLAGS_ALL  = $(CSTD) $(WARN) $(OPT) $(PKG_CFLAGS) -I. $(EXTRA_CFLAGS)
LDLIBS_ALL  = $(PKG_LIBS) -lm

SAN     := -fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=undefined

CORE_SRC := $(sort $(wildcard core/*.c))
VIZ_SRC  := $(sort $(wildcard viz/*.c))
REPL_SRC := $(sort $(wildcard repl/*.c))
UNIT_SRC := $(sort $(wildcard tests/unit/*.c))
HDRS     := $(wildcard core/*.h viz/*.h repl/*.h tests/unit/*.h)

# Release objects in build/rel, sanitizer objects in build/san.
rel = $(patsubst %.c,build/rel/%.o,$(1))
san = $(patsubst %.c,build/san/%.o,$(1))

.PHONY: all run test check bench bench-peer install clean deps deps-test format unit golden
.DEFAULT_GOAL := all

all: deps exdb core/libexdb.a

deps:
	@scripts/deps.sh

deps-test:
	@scripts/deps.sh test

# V=1 shows the full compiler lines.
Q := $(if $(V),,@)

build/rel/%.o: %.c $(HDRS)
	@mkdir -p $(dir $@)
	@$(if $(Q),echo "  CC      $<")
	$(Q)$(CC) $(CFLAGS_ALL) -c $< -o $@

build/san/%.o: %.c $(HDRS)
	@mkdir -p $(dir $@)
	@$(if $(Q),echo "  CC-SAN  $<")
	$(Q)$(CC) $(CFLAGS_ALL) $(SAN) -O1 -c $< -o $@

core/libexdb.a: $(call rel,$(CORE_SRC))
	$(Q)rm -f $@ && ar rcs $@ $^

build/san/libexdb.a: $(call san,$(CORE_SRC))
	$(Q)rm -f $@ && ar rcs $@ $^

exdb: $(call rel,$(REPL_SRC) $(VIZ_SRC)) core/libexdb.a
	@$(if $(Q),echo "  LINK    $@")
	$(Q)$(CC) $(OPT) -o $@ $^ $(LDLIBS_ALL)

build/san/exdb: $(call san,$(REPL_SRC) $(VIZ_SRC)) build/san/libexdb.a
	@$(if $(Q),echo "  LINK    $@")
	$(Q)$(CC) $(SAN) -o $@ $^ $(LDLIBS_ALL)

build/san/unit: $(call san,$(UNIT_SRC) $(VIZ_SRC)) build/san/libexdb.a
	@$(if $(Q),echo "  LINK    $@")
	$(Q)$(CC) $(SAN) -o $@ $^ $(LDLIBS_ALL) $(shell pkg-config --libs criterion 2>/dev/null)

build/rel/bench_load: scripts/bench/bench_load.c core/libexdb.a
	@mkdir -p $(dir $@)
	$(Q)$(CC) $(CFLAGS_ALL) -o $@ $^ $(LDLIBS_ALL)

run: all
	./exdb tests/fixtures/example.json

# Everything under ASan+UBSan; tests/run.sh prints the "N passed, N failed" line.
test: deps-test
	@$(MAKE) --no-print-directory build/san/exdb build/san/unit
	@tests/run.sh build/san

check: test

bench: deps exdb
	@scripts/bench.sh

# The bench with torch.fx beside exdb (installs Debian's python3-torch).
bench-peer: deps exdb
	@BENCH_PEER=1 scripts/bench.sh

install: all
	install -d $(DESTDIR)$(PREFIX)/bin $(DESTDIR)$(PREFIX)/lib $(DESTDIR)$(PREFIX)/include/exdb
	install -m 755 exdb $(DESTDIR)$(PREFIX)/bin/exdb
	install -m 644 core/libexdb.a $(DESTDIR)$(PREFIX)/lib/libexdb.a
	install -m 644 core/*.h $(DESTDIR)$(PREFIX)/include/exdb/

format:
	clang-format -i $(CORE_SRC) $(VIZ_SRC) $(REPL_SRC) $(UNIT_SRC) $(wildcard core/*.h viz/*.h repl/*.h)

clean:
	rm -rf build exdb core/libexdb.a
