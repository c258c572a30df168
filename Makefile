# supportd — the commands a newcomer needs. Everything installs itself on a fresh Debian 12.
#   make serve   set up, build, and start supportd on its embedded default
#   make test    set up, build (normal + ASan/UBSan + fuzz targets), start test services, run
#                every test, then each fuzz target for FUZZ_TEST_SECONDS
#   make test-tsan  the multi-threaded tests under ThreadSanitizer (docs/testing.md, "Races")
#   make fuzz    build the libFuzzer targets (clang) and run each for FUZZ_SECONDS

BUILD       ?= build
ASAN_BUILD  ?= build-asan
TSAN_BUILD  ?= build-tsan
FUZZ_BUILD  ?= build-fuzz
FUZZ_SECONDS      ?= 300
FUZZ_TEST_SECONDS ?= 5
export FUZZ_TEST_SECONDS
CACHE       ?= $(HOME)/.cache/supportd
JOBS        ?= $(shell nproc)
ARGS        ?=

export CCACHE_DIR      ?= $(CACHE)/ccache
export CCACHE_BASEDIR  := $(abspath .)
export CCACHE_MAXSIZE  ?= 5G
export CCACHE_NOHASHDIR := 1

.PHONY: setup build build-asan build-tsan build-fuzz fuzz serve test test-fast test-asan test-tsan \
        format format-check bench clean

setup:
	@scripts/setup.sh

$(BUILD)/build.ninja:
	cmake -S . -B $(BUILD) -G Ninja -DCMAKE_BUILD_TYPE=Release

build: setup $(BUILD)/build.ninja
	cmake --build $(BUILD) -j $(JOBS)

$(ASAN_BUILD)/build.ninja:
	cmake -S . -B $(ASAN_BUILD) -G Ninja -DCMAKE_BUILD_TYPE=Release -DSUPPORTD_SANITIZE=ON

build-asan: setup $(ASAN_BUILD)/build.ninja
	cmake --build $(ASAN_BUILD) -j $(JOBS)

# ThreadSanitizer: only the test executables that run several threads (tests/CMakeLists.txt).
$(TSAN_BUILD)/build.ninja:
	cmake -S . -B $(TSAN_BUILD) -G Ninja -DCMAKE_BUILD_TYPE=Release -DSUPPORTD_SANITIZE_THREAD=ON

build-tsan: setup $(TSAN_BUILD)/build.ninja
	cmake --build $(TSAN_BUILD) -j $(JOBS) --target tsan_tests

# The libFuzzer targets (fuzz/README.md): clang 14, only the parsers' sources, no llama.cpp.
$(FUZZ_BUILD)/build.ninja:
	cmake -S . -B $(FUZZ_BUILD) -G Ninja -DCMAKE_BUILD_TYPE=Fuzz -DSUPPORTD_FUZZ=ON \
	  -DCMAKE_C_COMPILER=clang-14 -DCMAKE_CXX_COMPILER=clang++-14

build-fuzz: setup $(FUZZ_BUILD)/build.ninja
	cmake --build $(FUZZ_BUILD) -j $(JOBS)

# Every fuzz target for FUZZ_SECONDS each (FUZZ_TARGETS="http_request rule_file" for some).
fuzz: build-fuzz
	fuzz/run $(FUZZ_BUILD) $(FUZZ_SECONDS) $(FUZZ_TARGETS)

serve: build
	$(BUILD)/bin/supportd serve $(ARGS)

# Every test: the normal build (unit, integration, e2e), then unit + integration under ASan/UBSan,
# then each fuzz target for a short budget (a crash fails the run).
test: build build-asan build-fuzz
	scripts/test.sh $(BUILD) $(ASAN_BUILD) $(FUZZ_BUILD)

# Only the normal build's tests (quicker while developing).
test-fast: build
	scripts/test.sh $(BUILD)

# The multi-threaded tests under ThreadSanitizer (docs/testing.md, "Races"; not in CI yet).
test-tsan: build-tsan
	scripts/test-tsan.sh $(TSAN_BUILD)

format:
	git ls-files '*.cpp' '*.h' | xargs clang-format -i

format-check:
	git ls-files '*.cpp' '*.h' | xargs clang-format --dry-run -Werror

clean:
	rm -rf $(BUILD) $(ASAN_BUILD) $(TSAN_BUILD) $(FUZZ_BUILD)
