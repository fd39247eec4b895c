# Two commands are all the set-up on a fresh Debian 12 machine: `make run` and `make test`.
# Both install the Debian packages they need (apt-get, as root or through sudo): `make run` only
# what building and running the demo needs, `make test` also everything the tests drive.

BUILD      ?= build
ASAN_BUILD ?= build-asan
FUZZ_BUILD ?= build-fuzz
RELEASE_BUILD ?= build-release
JOBS       ?= $(shell nproc)
FUZZ_SECONDS ?= 60
# `make install PREFIX=/usr/local DESTDIR=/tmp/stage`
PREFIX     ?= /usr/local
DESTDIR    ?=
# Packages, the wheel and the image land here.
DIST       ?= $(BUILD)/dist

# Warnings are errors in the project's own development and test builds (ANYGPU_WERROR is OFF
# by default in CMake); the user-facing goals build without it, so a newer compiler's new
# warning never stops `make run` or a package build.
USER_GOALS := run install deb wheel image
DEV_GOALS  := $(filter-out $(USER_GOALS),$(or $(MAKECMDGOALS),all))
WERROR     ?= $(if $(DEV_GOALS),ON,OFF)
TESTS      ?= $(if $(DEV_GOALS),ON,OFF)

BUILD_DEPS := cmake ninja-build g++ pkg-config libyaml-cpp-dev nlohmann-json3-dev libcli11-dev zlib1g-dev \
              libzstd-dev python3 git
RUN_DEPS   := pci.ids python3-torch
TEST_DEPS  := libgtest-dev libgmock-dev clang libclang-rt-14-dev \
              pciutils python3-yaml python3-pytest time hyperfine librocm-smi-dev libze-dev \
              podman runc busybox-static slurm-wlm prometheus \
              prometheus-node-exporter tmux curl shellcheck \
              debootstrap lintian python3-venv python3-pip python3-setuptools python3-wheel \
              man-db zsh fish bash-completion patchelf dpkg-dev file python3-packaging \
              python3-jsonschema python3-grpcio protobuf-compiler ccache zstd
# What the packaging goals need beyond building.
PACKAGE_DEPS := $(if $(filter deb,$(MAKECMDGOALS)),dpkg-dev file) \
                $(if $(filter wheel,$(MAKECMDGOALS)),patchelf binutils) \
                $(if $(filter image,$(MAKECMDGOALS)),podman runc binutils)
# What each goal installs before it builds: running needs no test stack.
DEPS_FOR_GOALS := $(if $(DEV_GOALS),\
                    $(BUILD_DEPS) $(RUN_DEPS) $(TEST_DEPS),$(BUILD_DEPS) $(RUN_DEPS) $(PACKAGE_DEPS))

SUDO := $(shell [ "$$(id -u)" = 0 ] || echo sudo)

# ccache where present: a rebuild, or a fresh clone built on a machine that built before,
# compiles only what changed. Paths under the checkout hash as relative ones, so a clone in
# another folder reuses the same objects.
CCACHE := $(shell command -v ccache 2>/dev/null)
LAUNCHER := $(if $(CCACHE),-DCMAKE_C_COMPILER_LAUNCHER=ccache -DCMAKE_CXX_COMPILER_LAUNCHER=ccache)
export CCACHE_BASEDIR := $(CURDIR)
export CCACHE_NOHASHDIR := true

.PHONY: all deps build asan release torch-venv test run install deb wheel image fuzz bench format tidy clean registry-python

all: build

deps:
	@missing=""; for p in $(DEPS_FOR_GOALS); do \
	  dpkg-query -W -f='$${Status}' $$p 2>/dev/null | grep -q "install ok installed" || missing="$$missing $$p"; \
	done; \
	if [ -n "$$missing" ]; then \
	  echo "installing:$$missing"; \
	  $(SUDO) apt-get update -qq && DEBIAN_FRONTEND=noninteractive $(SUDO) apt-get install -y -qq $$missing; \
	fi

# The options follow the goal (run: no tests, no -Werror; build and test: both). A user goal
# takes an existing build tree as it is; a development goal reconfigures one whose options
# differ (a tree `make run` made gains its tests).
build: deps
	@if [ ! -f $(BUILD)/build.ninja ] || { [ -n "$(DEV_GOALS)" ] && \
	    ! { grep -qx 'ANYGPU_TESTS:BOOL=$(TESTS)' $(BUILD)/CMakeCache.txt && \
	        grep -qx 'ANYGPU_WERROR:BOOL=$(WERROR)' $(BUILD)/CMakeCache.txt; }; }; then \
	  echo "configuring $(BUILD): ANYGPU_TESTS=$(TESTS) ANYGPU_WERROR=$(WERROR)"; \
	  cmake -S . -B $(BUILD) -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo $(LAUNCHER) \
	    -DANYGPU_TESTS=$(TESTS) -DANYGPU_WERROR=$(WERROR) >/dev/null; \
	fi
	cmake --build $(BUILD) -j $(JOBS)

# The two extra trees compile the product as unity builds (16 files per compiler run): most of
# a file's compile time is the headers it shares with its neighbours, and these trees are built
# whole, not edited. build/ stays one file per run, which also catches a file missing an include.
UNITY := -DANYGPU_UNITY=ON

asan: deps
	cmake -S . -B $(ASAN_BUILD) -G Ninja -DCMAKE_BUILD_TYPE=Debug -DANYGPU_SANITIZE=ON $(LAUNCHER) \
	  -DANYGPU_WERROR=$(WERROR) -DANYGPU_CLI_DOCS=OFF $(UNITY) >/dev/null
	cmake --build $(ASAN_BUILD) -j $(JOBS)

# The build packagers pick (-O3, NDEBUG), warning-clean: the CLI, the C ABI, man pages.
release: deps
	cmake -S . -B $(RELEASE_BUILD) -G Ninja -DCMAKE_BUILD_TYPE=Release -DANYGPU_TESTS=OFF $(LAUNCHER) \
	  -DANYGPU_WERROR=$(WERROR) $(UNITY) >/dev/null
	cmake --build $(RELEASE_BUILD) -j $(JOBS) --target anygpu anygpu_shared anygpu_cli_docs

install: build
	DESTDIR="$(DESTDIR)" cmake --install $(BUILD) --prefix "$(PREFIX)"

# anygpu, libanygpu0 and libanygpu-dev .debs in $(DIST) (CPack; dependencies by dpkg-shlibdeps).
deb: build
	cd $(BUILD) && cpack -G DEB -B "$(abspath $(DIST))/deb" >/dev/null
	mv -f $(DIST)/deb/*.deb $(DIST)/ && ls -1 $(DIST)/*.deb

# anygpu-VERSION-py3-none-manylinux_2_X_ARCH.whl in $(DIST): the package, libanygpu.so, the CLI.
wheel: build
	/usr/bin/python3 tools/build_wheel.py --binary $(BUILD)/anygpu \
	  --library $(BUILD)/libanygpu.so --source python --out $(DIST)

# localhost/anygpu:VERSION, imported into Podman from a root file system of the binary and
# the libraries it needs.
image: build
	/usr/bin/python3 tools/build_image.py $(BUILD)/anygpu $(DIST)

# Tests copy fixture hosts thousands of files at a time: scratch space on tmpfs keeps that
# from dominating the run on slow disks.
TEST_TMP ?= $(shell [ -d /dev/shm ] && [ -w /dev/shm ] && echo /dev/shm || echo $${TMPDIR:-/tmp})

test: build asan release torch-venv
	@tmp=$$(mktemp -d $(TEST_TMP)/anygpu-test.XXXXXX) && trap 'rm -rf "$$tmp"' EXIT && \
	TMPDIR=$$tmp ctest --test-dir $(BUILD) --output-on-failure -j $(JOBS) && \
	TMPDIR=$$tmp ASAN_OPTIONS=detect_leaks=1 UBSAN_OPTIONS=print_stacktrace=1 \
	  ctest --test-dir $(ASAN_BUILD) --output-on-failure -j $(JOBS) -LE 'system|timing'

# The second torch of the Python suites: PyPI's newest, pinned in tests/python/requirements-current.txt,
# in a venv cached outside the tree (downloaded once; see tools/torch_venv.sh).
torch-venv: deps
	@tools/torch_venv.sh --ensure >/dev/null

# Rewrites python/anygpu/_registry.py from data/vendors.yaml (a unit test fails while it is stale).
registry-python: build
	$(BUILD)/registry_compile data/vendors.yaml data/devices.yaml \
	  $(BUILD)/generated/registry_data.cc python/anygpu/_registry.py

run: build
	./scripts/demo.sh $(BUILD)/anygpu

$(FUZZ_BUILD)/build.ninja:
	CC=clang CXX=clang++ cmake -S . -B $(FUZZ_BUILD) -G Ninja -DCMAKE_BUILD_TYPE=Debug \
	  -DANYGPU_FUZZ=ON -DANYGPU_TESTS=OFF -DANYGPU_CLI_DOCS=OFF

fuzz: deps $(FUZZ_BUILD)/build.ninja
	cmake --build $(FUZZ_BUILD) -j $(JOBS)
	./tests/fuzz/run_all.sh $(FUZZ_BUILD)/tests/fuzz $(FUZZ_SECONDS)

BENCHES := launch exporter doctor python metrics cluster wheel isolation driver image preflight

bench: build
	./bench/run.sh $(BUILD)
	@for b in $(BENCHES); do echo; echo "## $$b"; ./bench/$$b.sh $(BUILD) || exit 1; done

format:
	find src include tools tests bench -name '*.cc' -o -name '*.h' | xargs clang-format -i

tidy: build
	find src -name '*.cc' | xargs clang-tidy -p $(BUILD) --quiet

clean:
	rm -rf $(BUILD) $(ASAN_BUILD) $(FUZZ_BUILD) $(RELEASE_BUILD)
