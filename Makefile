# damas - build, test, run. `make` builds ./damas; `make test` and `make run` first install
# any missing Debian package (scripts/install-deps.sh), so they work on a fresh machine.

CC      ?= cc
NATIVE  ?= 1
MPI     ?= 0
WARN    := -Wall -Wextra -Wshadow -Werror -Wmissing-declarations
PKGS    := hdf5 liblz4 libmicrohttpd
LIB_PKGS := hdf5 liblz4
CFLAGS  := -std=c11 -O3 $(WARN) -D_POSIX_C_SOURCE=200809L -fopenmp $(if $(filter 1,$(NATIVE)),-march=native) \
           $(shell pkg-config --cflags $(PKGS) 2>/dev/null)
LDLIBS  := $(shell pkg-config --libs $(PKGS) 2>/dev/null) -lpthread -lm
LIB_LIBS := $(shell pkg-config --libs $(LIB_PKGS) 2>/dev/null) -lpthread -lm
# Release builds optimise across files (link-time: -flto); the sanitizer build does not.
LTO     := -flto=auto
# Release builds are also profile-guided: an instrumented build (build/prof) runs
# scripts/train-profile.sh first and GCC lays out ./damas for what it measured. PGO=0: without.
PGO     ?= 1
DEVFLAGS := -g -O1 -fno-omit-frame-pointer -fsanitize=address,undefined -fno-sanitize-recover=undefined

CORE_SRC := $(filter-out gen/mpi.c,$(wildcard core/*.c db/*.c gen/*.c eval/*.c engine/*.c train/*.c))
# The explorer's pages are built into the binary (scripts/embed-assets.sh).
ASSETS   := $(sort $(wildcard web/page/*))
ASSETS_C := build/assets/web-assets.c
CLI_SRC  := $(wildcard cli/*.c web/*.c) $(ASSETS_C)
TEST_SRC := $(wildcard tests/*.c)
# Each object's header dependencies are written beside it (X.d) and read back below, so that a
# header change rebuilds only the objects that include it.
DEPS = -MMD -MP -MT $@ -MF $(CURDIR)/$(@:.o=.d)

REL := build/rel
DEV := build/dev
MPIB := build/mpi
PROF := build/prof
PROFILE := -fprofile-generate -fprofile-update=atomic
ifeq ($(PGO),1)
PGO_USE := -fprofile-use -fprofile-partial-training -Wno-missing-profile
PGO_DEP := $(PROF)/trained
endif

# ./damas is the plain build, or with MPI=1 the MPI one; build/mode remembers which it is so
# that switching rebuilds it.
$(shell mkdir -p build; echo "$(MPI)" | cmp -s - build/mode || echo "$(MPI)" > build/mode)
# Likewise build/pgo for the release objects, so that `make PGO=0` and back rebuilds them.
$(shell echo "$(PGO)" | cmp -s - build/pgo || echo "$(PGO)" > build/pgo)

.PHONY: all dev test check run deps clean install lib fuzz fuzz-replay bench-perft bench-gen bench-mpi bench-split bench-probe bench-search bench-serve
all: damas

deps:
	@bash scripts/install-deps.sh

$(ASSETS_C): $(ASSETS) scripts/embed-assets.sh
	@mkdir -p $(dir $@)
	sh scripts/embed-assets.sh $@ $(ASSETS)

define objects
$(patsubst %.c,$(1)/%.o,$(2))
endef

# A release object reads the profile its instrumented twin left (build/prof/X.gcda). Both are
# compiled from inside their build directory with the same source and object names, because
# GCC tells a file's static functions apart in the profile by those names.
$(REL)/%.o: %.c $(PGO_DEP) build/pgo
	@mkdir -p $(dir $@)
	@rm -f $(REL)/$*.gcda
	$(if $(PGO_USE),@if [ -f $(PROF)/$*.gcda ]; then cp $(PROF)/$*.gcda $(REL)/$*.gcda; fi)
	cd $(REL) && $(CC) $(CFLAGS) $(LTO) $(PGO_USE) $(DEPS) -c $(CURDIR)/$< -o $*.o

$(PROF)/%.o: %.c
	@mkdir -p $(dir $@)
	cd $(PROF) && $(CC) $(CFLAGS) $(LTO) $(PROFILE) $(DEPS) -c $(CURDIR)/$< -o $*.o

$(PROF)/damas: $(call objects,$(PROF),$(CORE_SRC) $(CLI_SRC))
	$(CC) $(CFLAGS) $(LTO) $(PROFILE) $^ -o $@ $(LDLIBS)

$(PROF)/trained: $(PROF)/damas scripts/train-profile.sh
	find $(PROF) -name '*.gcda' -delete
	bash scripts/train-profile.sh $(PROF)/damas
	touch $@

$(DEV)/%.o: %.c
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) $(DEVFLAGS) $(DEPS) -c $< -o $@

ifeq ($(MPI),1)
damas: $(MPIB)/damas build/mode
	cp $< $@
else
damas: $(call objects,$(REL),$(CORE_SRC) $(CLI_SRC)) build/mode
	$(CC) $(CFLAGS) $(LTO) $(PGO_USE) $(filter %.o,$^) -o $@ $(LDLIBS)
endif

# The MPI build: mpicc, DAMAS_MPI, and the distributed generator (gen/mpi.c).
$(MPIB)/%.o: %.c
	@mkdir -p $(dir $@)
	mpicc $(CFLAGS) $(LTO) -DDAMAS_MPI $(DEPS) -c $< -o $@

$(MPIB)/damas: $(call objects,$(MPIB),$(CORE_SRC) gen/mpi.c $(CLI_SRC))
	mpicc $(CFLAGS) $(LTO) $^ -o $@ $(LDLIBS)

$(REL)/damas-tests: $(call objects,$(REL),$(CORE_SRC) $(TEST_SRC))
	$(CC) $(CFLAGS) $(LTO) $(PGO_USE) $^ -o $@ $(LDLIBS) $$(pkg-config --libs criterion)

$(DEV)/damas: $(call objects,$(DEV),$(CORE_SRC) $(CLI_SRC))
	$(CC) $(CFLAGS) $(DEVFLAGS) $^ -o $@ $(LDLIBS)

$(DEV)/damas-tests: $(call objects,$(DEV),$(CORE_SRC) $(TEST_SRC))
	$(CC) $(CFLAGS) $(DEVFLAGS) $^ -o $@ $(LDLIBS) $$(pkg-config --libs criterion)

# libdamas: the probe interface (api/damas.h) and what it needs, position-independent, with
# only the damas_* functions exported from the shared library.
LIB := build/lib
LIB_SRC := $(wildcard core/*.c db/*.c api/*.c)
VERSION := $(shell sed -n 's/^\#define DAMAS_VERSION_TEXT "\(.*\)"/\1/p' cli/cli.h)

$(LIB)/%.o: %.c
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) -fPIC -fvisibility=hidden $(DEPS) -c $< -o $@

$(LIB)/libdamas.so: $(call objects,$(LIB),$(LIB_SRC))
	$(CC) $(CFLAGS) -shared -Wl,-soname,libdamas.so.0 $^ -o $@ $(LIB_LIBS)

$(LIB)/libdamas.a: $(call objects,$(LIB),$(LIB_SRC))
	rm -f $@
	ar rcs $@ $^

lib: $(LIB)/libdamas.a $(LIB)/libdamas.so

# make install [PREFIX=/usr/local] [DESTDIR=...]: the binary, its shipped weights, the library,
# its header and pkg-config file, and the Python module.
PREFIX ?= /usr/local
install: damas lib
	install -d $(DESTDIR)$(PREFIX)/bin $(DESTDIR)$(PREFIX)/lib/pkgconfig $(DESTDIR)$(PREFIX)/include/damas \
	  $(DESTDIR)$(PREFIX)/share/damas/weights $(DESTDIR)$(PREFIX)/share/damas/python
	install -m 755 damas $(DESTDIR)$(PREFIX)/bin/damas
	install -m 644 eval/weights/*.h5 $(DESTDIR)$(PREFIX)/share/damas/weights/
	install -m 644 $(LIB)/libdamas.a $(DESTDIR)$(PREFIX)/lib/libdamas.a
	install -m 755 $(LIB)/libdamas.so $(DESTDIR)$(PREFIX)/lib/libdamas.so.0
	ln -sf libdamas.so.0 $(DESTDIR)$(PREFIX)/lib/libdamas.so
	install -m 644 api/damas.h $(DESTDIR)$(PREFIX)/include/damas/damas.h
	sed -e 's|@PREFIX@|$(PREFIX)|' -e 's|@VERSION@|$(VERSION)|' -e 's|@PRIVATE@|$(LIB_LIBS) -fopenmp|' \
	  api/damas.pc.in > $(DESTDIR)$(PREFIX)/lib/pkgconfig/damas.pc
	install -m 644 python/damas_probe.py $(DESTDIR)$(PREFIX)/share/damas/python/damas_probe.py

# Fuzzing (tests/fuzz/): `make fuzz [FUZZ_SECONDS=60]` builds each target with clang's
# libFuzzer, address and undefined sanitizers and runs it that long from its seed corpus,
# keeping any crash in tests/fuzz/crashes/<target>/; `make fuzz-replay` (part of make test)
# builds the same targets with gcc and the sanitizers and replays the corpora and crashes.
FUZZ_TARGETS := fen move hub pdn weights unit
FUZZ_SECONDS ?= 60
FUZZ := build/fuzz
FUZZ_CFLAGS := -std=c11 -g -O1 -Wall -Wextra -D_POSIX_C_SOURCE=200809L -fopenmp \
               $(shell pkg-config --cflags $(LIB_PKGS) 2>/dev/null) -fsanitize=address,undefined

$(FUZZ)/%.o: %.c
	@mkdir -p $(dir $@)
	clang $(FUZZ_CFLAGS) -fsanitize=fuzzer-no-link $(DEPS) -c $< -o $@

$(FUZZ)/fuzz-%: $(call objects,$(FUZZ),$(CORE_SRC)) tests/fuzz/fuzz_%.c tests/fuzz/fuzz.h
	clang $(FUZZ_CFLAGS) -fsanitize=fuzzer $(filter %.o %.c,$^) -o $@ $(LIB_LIBS)

$(DEV)/fuzz-%: $(call objects,$(DEV),$(CORE_SRC)) tests/fuzz/fuzz_%.c tests/fuzz/replay.c tests/fuzz/fuzz.h
	$(CC) $(CFLAGS) $(DEVFLAGS) $(filter %.o %.c,$^) -o $@ $(LIB_LIBS)

fuzz:
	@bash scripts/install-deps.sh fuzz
	$(MAKE) $(addprefix $(FUZZ)/fuzz-,$(FUZZ_TARGETS))
	bash tests/fuzz/run.sh $(FUZZ) $(FUZZ_SECONDS) $(FUZZ_TARGETS)

fuzz-replay: $(addprefix $(DEV)/fuzz-,$(FUZZ_TARGETS))
	bash tests/fuzz/replay.sh $(DEV) $(FUZZ_TARGETS)

# Criterion forks one process per test; --jobs keeps it to the machine's cores. The databases
# the tests only read are built once a run, in a directory removed after it (tests/helpers.h).
with_test_dbs = db=$$(mktemp -d /tmp/damas-test-db.XXXXXX) && DAMAS_TEST_DB_CACHE=$$db $(1); rc=$$?; rm -rf $$db; exit $$rc

JOBS := $(shell nproc 2>/dev/null || echo 2)

test: deps
	$(MAKE) damas $(REL)/damas-tests
	$(call with_test_dbs,$(REL)/damas-tests --jobs $(JOBS))
	bash tests/cli.sh ./damas
	bash tests/db.sh ./damas 4
	rm -rf build/test-install && $(MAKE) install PREFIX=$(CURDIR)/build/test-install
	bash tests/embed.sh $(CURDIR)/build/test-install
	$(MAKE) fuzz-replay
	$(MAKE) $(MPIB)/damas
	bash tests/mpi.sh $(MPIB)/damas ./damas

# The edit-test loop: the Criterion suites on a plain optimised build (no profile, no link-time
# optimisation, so an edit rebuilds in seconds), the exhaustive database tests skipped
# (tests/helpers.h: test_exhaustive; make test runs them).
CHK := build/check
$(CHK)/%.o: %.c
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) $(DEPS) -c $< -o $@

$(CHK)/damas-tests: $(call objects,$(CHK),$(CORE_SRC) $(TEST_SRC))
	$(CC) $(CFLAGS) $^ -o $@ $(LDLIBS) $$(pkg-config --libs criterion)

check:
	$(MAKE) $(CHK)/damas-tests
	$(call with_test_dbs,DAMAS_TEST_QUICK=1 $(CHK)/damas-tests --jobs $(JOBS))

# Sanitizer build (address, undefined) of the binary and the tests, and the tests run on it.
dev: deps
	$(MAKE) $(DEV)/damas $(DEV)/damas-tests
	ASAN_OPTIONS=detect_leaks=1 LSAN_OPTIONS=suppressions=tests/lsan.supp $(DEV)/damas-tests --jobs $(JOBS)
	bash tests/cli.sh $(DEV)/damas
	bash tests/db.sh $(DEV)/damas 3

# The main job: a ≤5-piece database, a short training with it, the plot (scripts/run.sh).
run: deps
	$(MAKE) damas
	bash scripts/run.sh

bench-perft: damas
	bash scripts/bench-perft.sh

bench-gen: damas
	bash scripts/bench-gen.sh

bench-mpi: $(MPIB)/damas
	bash scripts/bench-mpi.sh

bench-split: $(MPIB)/damas
	bash scripts/bench-split.sh

bench-probe: damas
	bash scripts/bench-probe.sh

bench-search: damas
	./damas bench

bench-serve: damas $(REL)/http-load
	bash scripts/bench-serve.sh

# Simulation of one unit split over ranks (docs/DISTRIBUTED.md).
$(REL)/split-sim: $(call objects,$(REL),$(CORE_SRC) tools/split-sim.c)
	$(CC) $(CFLAGS) $(LTO) $(PGO_USE) $^ -o $@ $(LDLIBS)

# Compression of one slice in other index orders (docs/PERFORMANCE.md, "Probing and compression").
$(REL)/order-sim: $(call objects,$(REL),$(CORE_SRC) tools/order-sim.c)
	$(CC) $(CFLAGS) $(LTO) $(PGO_USE) $^ -o $@ $(LDLIBS)

# Probe speed and compression figures (scripts/bench-probe.sh).
$(REL)/probe-bench: $(call objects,$(REL),$(CORE_SRC) tools/probe-bench.c)
	$(CC) $(CFLAGS) $(LTO) $(PGO_USE) $^ -o $@ $(LDLIBS)

# The HTTP load and abuse client of scripts/bench-serve.sh.
$(REL)/http-load: tools/http-load.c
	$(CC) $(CFLAGS) $< -o $@ -lpthread

# Random memory access latency, printed by the benchmark scripts beside their figures.
$(REL)/mem-latency: $(call objects,$(REL),core/memory.c tools/mem-latency.c)
	$(CC) $(CFLAGS) $(LTO) $(PGO_USE) $^ -o $@ $(LDLIBS)

clean:
	rm -rf build damas

# Objects built on the way to a pattern target (the fuzz targets) are kept, not deleted.
.SECONDARY:

-include $(shell find build -name '*.d' 2>/dev/null)
