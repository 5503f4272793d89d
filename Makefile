# damas - build, test, run. `make` builds ./damas; `make test` and `make run` first install
# any missing Debian package (scripts/install-deps.sh), so they work on a fresh machine.

CC      ?= cc
NATIVE  ?= 1
WARN    := -Wall -Wextra -Wshadow -Werror -Wmissing-declarations
PKGS    := hdf5 liblz4
CFLAGS  := -std=c11 -O3 $(WARN) -D_POSIX_C_SOURCE=200809L -fopenmp $(if $(filter 1,$(NATIVE)),-march=native) \
           $(shell pkg-config --cflags $(PKGS) 2>/dev/null)
LDLIBS  := $(shell pkg-config --libs $(PKGS) 2>/dev/null) -lpthread -lm
DEVFLAGS := -g -O1 -fno-omit-frame-pointer -fsanitize=address,undefined -fno-sanitize-recover=undefined

CORE_SRC := $(wildcard core/*.c db/*.c gen/*.c)
CLI_SRC  := $(wildcard cli/*.c)
TEST_SRC := $(wildcard tests/*.c)
HEADERS  := $(wildcard core/*.h db/*.h gen/*.h cli/*.h tests/*.h)

REL := build/rel
DEV := build/dev

.PHONY: all dev test run deps clean bench-perft bench-gen
all: damas

deps:
	@bash scripts/install-deps.sh

define objects
$(patsubst %.c,$(1)/%.o,$(2))
endef

$(REL)/%.o: %.c $(HEADERS)
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) -c $< -o $@

$(DEV)/%.o: %.c $(HEADERS)
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) $(DEVFLAGS) -c $< -o $@

damas: $(call objects,$(REL),$(CORE_SRC) $(CLI_SRC))
	$(CC) $(CFLAGS) $^ -o $@ $(LDLIBS)

$(REL)/damas-tests: $(call objects,$(REL),$(CORE_SRC) $(TEST_SRC))
	$(CC) $(CFLAGS) $^ -o $@ $(LDLIBS) $$(pkg-config --libs criterion)

$(DEV)/damas: $(call objects,$(DEV),$(CORE_SRC) $(CLI_SRC))
	$(CC) $(CFLAGS) $(DEVFLAGS) $^ -o $@ $(LDLIBS)

$(DEV)/damas-tests: $(call objects,$(DEV),$(CORE_SRC) $(TEST_SRC))
	$(CC) $(CFLAGS) $(DEVFLAGS) $^ -o $@ $(LDLIBS) $$(pkg-config --libs criterion)

# Criterion forks one process per test; --jobs keeps it to the machine's cores.
JOBS := $(shell nproc 2>/dev/null || echo 2)

test: deps
	$(MAKE) damas $(REL)/damas-tests
	$(REL)/damas-tests --jobs $(JOBS)
	bash tests/cli.sh ./damas
	bash tests/db.sh ./damas 4

# Sanitizer build (address, undefined) of the binary and the tests, and the tests run on it.
dev: deps
	$(MAKE) $(DEV)/damas $(DEV)/damas-tests
	ASAN_OPTIONS=detect_leaks=1 LSAN_OPTIONS=suppressions=tests/lsan.supp $(DEV)/damas-tests --jobs $(JOBS)
	bash tests/cli.sh $(DEV)/damas
	bash tests/db.sh $(DEV)/damas 3

run: deps
	$(MAKE) damas
	./damas perft --variant all 9

bench-perft: damas
	bash scripts/bench-perft.sh

bench-gen: damas
	bash scripts/bench-gen.sh

clean:
	rm -rf build damas
