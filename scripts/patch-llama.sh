#!/usr/bin/env bash
# Makes supportd's llama.cpp tree: the checkout fetch-llama.sh made in $1/llama.cpp-<commit>,
# cloned into $1/llama.cpp-<commit>-supportd with patches/llama.cpp/*.patch applied in order.
# The checkout itself stays pristine: llama-server and the other tools that supportd is compared
# with are built from it (scripts/build-llama-tools.sh). Does nothing when the tree already
# holds these patches; redoes it when they change.
set -euo pipefail
cache=$1
here=$(cd "$(dirname "$0")/.." && pwd)
source "$here/scripts/llama-version.env"
commit_prefix=$LLAMA_COMMIT_PREFIX
src="$cache/llama.cpp-$commit_prefix"
dest="$cache/llama.cpp-$commit_prefix-supportd"
patches=("$here"/patches/llama.cpp/*.patch)
digest=$(cat "${patches[@]}" | sha256sum | cut -d' ' -f1)
marker="$dest/.supportd-patches"
[ -f "$marker" ] && [ "$(cat "$marker")" = "$digest" ] && exit 0

log() { printf '\033[1m[setup]\033[0m %s\n' "$*" >&2; }
[ -f "$src/.supportd-ready" ] || { echo "error: $src is not ready: run scripts/fetch-llama.sh" >&2; exit 1; }
if [ ! -d "$dest/.git" ]; then
  rm -rf "$dest"
  git clone --quiet --no-checkout "$src" "$dest"
fi
rm -f "$marker"
git -C "$dest" -c advice.detachedHead=false checkout --quiet --force "$(git -C "$src" rev-parse HEAD)"
git -C "$dest" clean --quiet -fdx
for patch in "${patches[@]}"; do
  if ! git -C "$dest" apply --whitespace=nowarn "$patch"; then
    echo "error: $patch does not apply to llama.cpp $commit_prefix in $dest" >&2
    exit 1
  fi
  log "applied $(basename "$patch") to llama.cpp"
done
echo "$digest" > "$marker"
