#!/usr/bin/env bash
# Fetches llama.cpp's source as shipped in npm package node-llama-cpp (a git bundle; the version
# in scripts/llama-version.env),
# verifies the tarball's checksum and clones the bundle into $1/llama.cpp-<commit>.
# Prints nothing and does nothing when the checkout already exists.
set -euo pipefail
cache=$1
source "$(dirname "$0")/llama-version.env"
version=$LLAMA_NPM_PACKAGE_VERSION
commit_prefix=$LLAMA_COMMIT_PREFIX
sha256=$LLAMA_NPM_PACKAGE_SHA256
dest="$cache/llama.cpp-$commit_prefix"
[ -f "$dest/.supportd-ready" ] && exit 0

log() { printf '\033[1m[setup]\033[0m %s\n' "$*" >&2; }
work=$(mktemp -d); trap 'rm -rf "$work"' EXIT
log "fetching node-llama-cpp@$version (llama.cpp source bundle)"
(cd "$work" && npm pack "node-llama-cpp@$version" --silent >/dev/null)
tarball="$work/node-llama-cpp-$version.tgz"
actual=$(sha256sum "$tarball" | cut -d' ' -f1)
if [ "$actual" != "$sha256" ]; then
  echo "error: node-llama-cpp-$version.tgz has sha256 $actual, expected $sha256" >&2
  exit 1
fi
tar -xzf "$tarball" -C "$work" package/llama/gitRelease.bundle
rm -rf "$dest"
git -c advice.detachedHead=false clone --quiet "$work/package/llama/gitRelease.bundle" "$dest"
head=$(git -C "$dest" rev-parse HEAD)
case "$head" in
  "$commit_prefix"*) ;;
  *) echo "error: bundle is at $head, expected $commit_prefix" >&2; exit 1 ;;
esac
touch "$dest/.supportd-ready"
log "llama.cpp $head ready in $dest"
