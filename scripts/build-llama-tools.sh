#!/usr/bin/env bash
# Builds llama.cpp's own tools (llama-server, llama-bench, llama-batched-bench) from the pristine
# checkout of the commit supportd links (supportd's copy also carries patches/llama.cpp), into
# the cache, for side-by-side benchmarks. Prints the bin directory.
#   --patched: from supportd's patched copy instead (one build per set of patches), to tell
#     what the engine patches give from what supportd's own part gives
#     (bench/vs-llama-server/run --llama-bin "$(scripts/build-llama-tools.sh --patched)").
#   usage: scripts/build-llama-tools.sh [--openmp on|off] [--patched]
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
cache=${SUPPORTD_CACHE:-$HOME/.cache/supportd}
patched=0
openmp=$(grep -oP 'set\(SUPPORTD_GGML_OPENMP_DEFAULT \K(ON|OFF)' "$here/cmake/threading.cmake" 2>/dev/null || echo ON)
while (($#)); do
  case $1 in
    --openmp) openmp=${2^^}; shift 2 ;;
    --patched) patched=1; shift ;;
    *) echo "usage: $0 [--openmp on|off] [--patched]" >&2; exit 2 ;;
  esac
done
"$here/scripts/fetch-llama.sh" "$cache"
source "$here/scripts/llama-version.env"
src="$cache/llama.cpp-$LLAMA_COMMIT_PREFIX"
out="$cache/llama-tools-$LLAMA_COMMIT_PREFIX-openmp-${openmp,,}"
if ((patched)); then
  "$here/scripts/patch-llama.sh" "$cache"
  src="$cache/llama.cpp-$LLAMA_COMMIT_PREFIX-supportd"
  digest=$(cut -c1-12 "$src/.supportd-patches")
  out="$cache/llama-tools-$LLAMA_COMMIT_PREFIX-patches-$digest-openmp-${openmp,,}"
fi
if [ ! -x "$out/bin/llama-server" ] || [ ! -x "$out/bin/llama-batched-bench" ] || [ ! -x "$out/bin/llama-bench" ]; then
  echo "[llama-tools] building llama-server, llama-bench, llama-batched-bench (openmp $openmp) in $out" >&2
  cmake -S "$src" -B "$out" -G Ninja -DCMAKE_BUILD_TYPE=Release -DBUILD_SHARED_LIBS=OFF \
    -DGGML_NATIVE=ON -DGGML_BLAS=OFF -DGGML_OPENMP="$openmp" -DLLAMA_OPENSSL=OFF \
    -DLLAMA_USE_PREBUILT_UI=OFF -DLLAMA_BUILD_UI=OFF -DLLAMA_BUILD_TESTS=OFF >/dev/null
  cmake --build "$out" --target llama-server llama-bench llama-batched-bench >&2
fi
echo "$out/bin"
