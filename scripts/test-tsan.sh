#!/usr/bin/env bash
# Runs the tests labelled tsan of a ThreadSanitizer build (`make test-tsan`) with the real
# services they talk to (scripts/services.sh). A data race fails its test (TSan's exit code);
# the `supportd serve` processes the tests start (and kill) are instrumented too, and since a
# killed process exits with no code, every report of every process is also written to
# $work/tsan.PID and any such file fails the run. Suppressions, each justified, are in
# tests/tsan.supp.
#   usage: scripts/test-tsan.sh TSAN_BUILD_DIR [CTEST_ARGS...]
#   e.g.   scripts/test-tsan.sh build-tsan -R 'Tiered|Desk'   (rerun a few after a fix)
set -euo pipefail
build=${1:?usage: scripts/test-tsan.sh TSAN_BUILD_DIR [CTEST_ARGS...]}
shift
here=$(cd "$(dirname "$0")/.." && pwd)
# shellcheck source=scripts/services.sh
source "$here/scripts/services.sh"

work=$(mktemp -d /tmp/supportd-test-tsan.XXXXXX)
trap 'services_stop; rm -rf "$work"' EXIT
services_start "$work"

echo "== multi-threaded tests under ThreadSanitizer (build: $build)"
export TSAN_OPTIONS="suppressions=$here/tests/tsan.supp:halt_on_error=0:exitcode=66:second_deadlock_stack=1:history_size=4:log_path=$work/tsan"
status=0
ctest --test-dir "$build" --output-on-failure --no-tests=error -j "$(nproc)" -L tsan --timeout 1200 "$@" ||
  status=$?
reports=$(find "$work" -maxdepth 1 -name 'tsan.*' | sort)
if [ -n "$reports" ]; then
  for report in $reports; do
    echo "== $report"
    cat "$report"
  done
  echo "error: ThreadSanitizer reported in $(echo "$reports" | wc -l) process(es)" >&2
  exit 1
fi
[ "$status" -eq 0 ] || exit "$status"
echo "== no data race reported"
