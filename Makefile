# rpclab: the two commands are `make run-dependability` and `make test`.
# Each installs what it needs (tools/deps.sh) and builds first.
#
#   make                     build everything into build/
#   make test                the GoogleTest suite (unit, end to end, faults)
#   make run-dependability   Levy's dependability table (PRESET=quick|remedies|failures|levy-surface|paths|nfs|nfs-quick, CALLS=N)
#   make run-speed           Levy's timing table (QUICK=1 for the short one; PRESET=rate-sweep or any speed preset;
#                            PRESET=nfs: the NFS speed view)
#                            (both with the adapters `make` built, adapters/*: docs/adapters.md; those
#                            that did not build are listed as skipped with the reason)
#   make docs-tables RUN=results/...   refresh the tables docs quote from that run
#   make docs-presets        refresh docs/presets.md's tables from the presets themselves
#   make SANITIZE=address,undefined test    the same suite under ASan+UBSan
#   make test TEST_FLAGS=--gtest_filter=...  pass flags to every test program
#   make fuzz                short libFuzzer runs of every decoder (FUZZ_SECONDS=60), built in build-sanitize/
#   make clean-net           remove the network namespaces of rpclab runs that are gone (ALL=1: of live runs too)
#   make doctor              what this machine can do, and what will be skipped
#   make install             install under PREFIX (/usr/local); DESTDIR=/tmp/stage stages it

SANITIZE ?=
BUILD ?= $(if $(SANITIZE),build-sanitize,build)
PRESET ?= levy1989
CALLS ?=
QUICK ?=
RUN ?=
FUZZ_SECONDS ?= 60
FUZZ_TARGETS ?=
TEST_FLAGS ?=
PREFIX ?= /usr/local
DESTDIR ?=
JOBS ?= $(shell nproc)

# A sanitizer build is clang's, and with ASan+UBSan it is also the fuzzers'
# build (libFuzzer's coverage compiled in): `make fuzz` after
# `make SANITIZE=address,undefined test` only links the fuzz programs, so CI
# compiles the sources twice (plain and instrumented), not three times.
FUZZ_SANITIZE := address,undefined
SANITIZE_FLAGS = -DRPCLAB_SANITIZE=$(SANITIZE) -DCMAKE_C_COMPILER=clang -DCMAKE_CXX_COMPILER=clang++ \
  -DRPCLAB_FUZZ=$(if $(filter $(FUZZ_SANITIZE),$(SANITIZE)),ON,OFF)
CMAKE_FLAGS := -G Ninja $(if $(SANITIZE),$(SANITIZE_FLAGS))
DEPS_SET := $(if $(SANITIZE),fuzz,build)

.PHONY: all deps build test run-dependability run-speed docs-tables docs-presets clean-net doctor fuzz fuzz-programs clean
.DEFAULT_GOAL := all

all: build

deps:
	@tools/deps.sh $(DEPS_SET)

$(BUILD)/build.ninja: CMakeLists.txt
	cmake -S . -B $(BUILD) $(CMAKE_FLAGS)

build: deps $(BUILD)/build.ninja
	cmake --build $(BUILD) -j $(JOBS)

test: build
	@tools/deps.sh test
	tests/run-tests.sh $(BUILD) $(TEST_FLAGS)

install: build
	DESTDIR=$(DESTDIR) cmake --install $(BUILD) --prefix $(PREFIX)

# PRESET=nfs (or nfs-quick) is the NFS experiment's table (docs/nfs.md):
# the same question asked of NFS servers, by its own experiment row. Its
# servers and tcpdump are not build packages: `tools/deps.sh nfs` installs
# them for the NFS presets only (issue 42: on a machine where only `make`
# had run, every ganesha cell was skipped for a missing ganesha.nfsd).
NFS_PRESETS := nfs nfs-quick
run-dependability: build
	$(if $(filter $(NFS_PRESETS),$(PRESET)),@tools/deps.sh nfs)
	$(BUILD)/rpclab $(if $(filter $(NFS_PRESETS),$(PRESET)),nfs,dependability) --preset $(PRESET) $(if $(CALLS),--calls $(CALLS))

# PRESET=nfs is the NFS speed view (docs/nfs.md, "Speed"): the nfs
# experiment's nfs-speed preset, GETATTR and MKDIR per server and transport.
# Any other PRESET is one of `rpclab speed`'s (rate-sweep, ...), which names
# its presets when given one it does not have.
NFS_SPEED_PRESETS := nfs
run-speed: build
	$(if $(filter $(NFS_SPEED_PRESETS),$(PRESET)),@tools/deps.sh nfs)
	$(BUILD)/rpclab $(if $(filter $(NFS_SPEED_PRESETS),$(PRESET)),nfs --preset nfs-speed,speed --preset $(if $(QUICK),quick,$(PRESET)))

# The tables a results page (docs/results/EXPERIMENT.md) quotes, generated
# from one run folder (the blocks of that run's preset; see tools/docs-tables.sh).
docs-tables: build
	@test -n "$(RUN)" || { echo "make docs-tables RUN=results/<run folder>: which run the tables come from" >&2; exit 2; }
	tools/docs-tables.sh $(BUILD)/rpclab $(RUN)

# docs/presets.md's tables, from what each preset plans (tools/docs-presets.sh).
docs-presets: build
	tools/docs-presets.sh $(BUILD)/rpclab docs/presets.md

clean-net: build
	$(BUILD)/rpclab clean-net $(if $(ALL),--all)

doctor: build
	$(BUILD)/rpclab doctor

fuzz:
	@$(MAKE) --no-print-directory SANITIZE=$(FUZZ_SANITIZE) fuzz-programs
	tests/fuzz/run-fuzzers.sh build-sanitize $(FUZZ_SECONDS) $(FUZZ_TARGETS)

# Configured with the instrumented flags every time (a no-op when they are
# already its flags): a build-sanitize made by gcc before the two builds
# were one becomes clang's here. Only `make fuzz` does this; `make install
# BUILD=build-sanitize` (the install test under the sanitizers) leaves the
# folder's flags alone.
fuzz-programs: deps
	cmake -S . -B $(BUILD) $(CMAKE_FLAGS)
	cmake --build $(BUILD) -j $(JOBS) --target fuzzers

clean:
	rm -rf build build-sanitize build-fuzz  # build-fuzz: the fuzzers' own folder before they shared build-sanitize
