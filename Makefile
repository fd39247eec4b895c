# Two commands are all the set-up on a fresh Debian 12 machine: `make run` and `make test`.
# Both install the Debian packages they need (apt-get, as root or through sudo).

BUILD      ?= build
ASAN_BUILD ?= build-asan
FUZZ_BUILD ?= build-fuzz
JOBS       ?= $(shell nproc)
FUZZ_SECONDS ?= 60

BUILD_DEPS := cmake ninja-build g++ pkg-config libyaml-cpp-dev nlohmann-json3-dev libcli11-dev \
              libgtest-dev libgmock-dev clang libclang-rt-14-dev
TEST_DEPS  := pci.ids pciutils python3-yaml python3-pytest time hyperfine librocm-smi-dev libze-dev \
              python3-torch podman runc busybox-static slurm-wlm prometheus \
              prometheus-node-exporter tmux curl shellcheck

SUDO := $(shell [ "$$(id -u)" = 0 ] || echo sudo)

.PHONY: all deps build asan test run fuzz bench format tidy clean

all: build

deps:
	@missing=""; for p in $(BUILD_DEPS) $(TEST_DEPS); do \
	  dpkg-query -W -f='$${Status}' $$p 2>/dev/null | grep -q "install ok installed" || missing="$$missing $$p"; \
	done; \
	if [ -n "$$missing" ]; then \
	  echo "installing:$$missing"; \
	  $(SUDO) apt-get update -qq && DEBIAN_FRONTEND=noninteractive $(SUDO) apt-get install -y -qq $$missing; \
	fi

$(BUILD)/build.ninja:
	cmake -S . -B $(BUILD) -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo

build: deps $(BUILD)/build.ninja
	cmake --build $(BUILD) -j $(JOBS)

$(ASAN_BUILD)/build.ninja:
	cmake -S . -B $(ASAN_BUILD) -G Ninja -DCMAKE_BUILD_TYPE=Debug -DANYGPU_SANITIZE=ON

asan: deps $(ASAN_BUILD)/build.ninja
	cmake --build $(ASAN_BUILD) -j $(JOBS)

# Tests copy fixture hosts thousands of files at a time: scratch space on tmpfs keeps that
# from dominating the run on slow disks.
TEST_TMP ?= $(shell [ -d /dev/shm ] && [ -w /dev/shm ] && echo /dev/shm || echo $${TMPDIR:-/tmp})

test: build asan
	@tmp=$$(mktemp -d $(TEST_TMP)/anygpu-test.XXXXXX) && trap 'rm -rf "$$tmp"' EXIT && \
	TMPDIR=$$tmp ctest --test-dir $(BUILD) --output-on-failure -j $(JOBS) && \
	TMPDIR=$$tmp ASAN_OPTIONS=detect_leaks=1 UBSAN_OPTIONS=print_stacktrace=1 \
	  ctest --test-dir $(ASAN_BUILD) --output-on-failure -j $(JOBS) -LE system

run: build
	./scripts/demo.sh $(BUILD)/anygpu

$(FUZZ_BUILD)/build.ninja:
	CC=clang CXX=clang++ cmake -S . -B $(FUZZ_BUILD) -G Ninja -DCMAKE_BUILD_TYPE=Debug \
	  -DANYGPU_FUZZ=ON -DANYGPU_TESTS=OFF

fuzz: deps $(FUZZ_BUILD)/build.ninja
	cmake --build $(FUZZ_BUILD) -j $(JOBS)
	./tests/fuzz/run_all.sh $(FUZZ_BUILD)/tests/fuzz $(FUZZ_SECONDS)

BENCHES := launch exporter doctor python metrics cluster wheel

bench: build
	./bench/run.sh $(BUILD)
	@for b in $(BENCHES); do echo; echo "## $$b"; ./bench/$$b.sh $(BUILD) || exit 1; done

format:
	find src include tools tests bench -name '*.cc' -o -name '*.h' | xargs clang-format -i

tidy: build
	find src -name '*.cc' | xargs clang-tidy -p $(BUILD) --quiet

clean:
	rm -rf $(BUILD) $(ASAN_BUILD) $(FUZZ_BUILD)
