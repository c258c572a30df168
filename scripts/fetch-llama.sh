#!/usr/bin/env bash
# Fetches llama.cpp's source as shipped in npm package node-llama-cpp@3.21.1 (a git bundle),
# verifies the tarball's checksum and clones the bundle into $1/llama.cpp-<commit>.
# Prints nothing and does nothing when the checkout already exists.
set -euo pipefail
cache=$1
version=3.21.1
commit_prefix=80fb11ac73e6
sha256=7a231d6bafa14142a1cbed9893d4ec5bc6041b2a5f5939a623accaab4203c11f
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
