# supportd — the commands a newcomer needs. Everything installs itself on a fresh Debian 12.
#   make serve   set up, build, and start supportd on its embedded default
#   make test    set up, build (normal + ASan/UBSan), start test services, run every test
#   make test-tsan  the multi-threaded tests under ThreadSanitizer (docs/testing.md, "Races")

BUILD       ?= build
ASAN_BUILD  ?= build-asan
TSAN_BUILD  ?= build-tsan
CACHE       ?= $(HOME)/.cache/supportd
JOBS        ?= $(shell nproc)
ARGS        ?=

export CCACHE_DIR      ?= $(CACHE)/ccache
export CCACHE_BASEDIR  := $(abspath .)
export CCACHE_MAXSIZE  ?= 5G
export CCACHE_NOHASHDIR := 1

.PHONY: setup build build-asan build-tsan serve test test-fast test-asan test-tsan format format-check \
        bench clean

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

serve: build
	$(BUILD)/bin/supportd serve $(ARGS)

# Every test: the normal build (unit, integration, e2e), then unit + integration under ASan/UBSan.
test: build build-asan
	scripts/test.sh $(BUILD) $(ASAN_BUILD)

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
	rm -rf $(BUILD) $(ASAN_BUILD) $(TSAN_BUILD)
