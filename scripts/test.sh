#!/usr/bin/env bash
# Runs supportd's tests: starts the real services the tests talk to (Redis, PostgreSQL, NATS)
# on loopback ephemeral ports, runs ctest in the normal build, then the unit and integration
# tests in the sanitizer build, then each fuzz target of the fuzz build for FUZZ_TEST_SECONDS
# (default 5; a crash fails the run), and stops the services whatever happens.
#   usage: scripts/test.sh BUILD_DIR [ASAN_BUILD_DIR [FUZZ_BUILD_DIR]]
set -euo pipefail
build=${1:?usage: scripts/test.sh BUILD_DIR [ASAN_BUILD_DIR [FUZZ_BUILD_DIR]]}
asan=${2:-}
fuzz=${3:-}
here=$(cd "$(dirname "$0")/.." && pwd)
# shellcheck source=scripts/services.sh
source "$here/scripts/services.sh"

work=$(mktemp -d /tmp/supportd-test.XXXXXX)
trap 'services_stop; rm -rf "$work"' EXIT
services_start "$work"

jobs=$(nproc)
echo "== tests (build: $build)"
ctest --test-dir "$build" --output-on-failure -j "$jobs" --timeout 600
if [ -n "$asan" ]; then
  echo "== unit and integration tests under ASan + UBSan (build: $asan)"
  export ASAN_OPTIONS=detect_leaks=1:abort_on_error=1:detect_stack_use_after_return=0
  export LSAN_OPTIONS=suppressions=$here/tests/lsan.supp:print_suppressions=0
  export UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1
  ctest --test-dir "$asan" --output-on-failure -j "$jobs" -L 'unit|integration' --timeout 900
fi
if [ -n "$fuzz" ]; then
  echo "== fuzz targets, ${FUZZ_TEST_SECONDS:-5} s each (build: $fuzz)"
  (unset ASAN_OPTIONS LSAN_OPTIONS UBSAN_OPTIONS; "$here/fuzz/run" "$fuzz" "${FUZZ_TEST_SECONDS:-5}")
fi
echo "== all tests passed"
