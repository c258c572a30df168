#!/usr/bin/env bash
# Builds llama.cpp's own tools (llama-server, llama-bench, llama-batched-bench) from the pristine
# checkout of the commit supportd links (supportd's copy also carries patches/llama.cpp), into
# the cache, for side-by-side benchmarks. Prints the bin directory.
#   usage: scripts/build-llama-tools.sh [--openmp on|off]
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
cache=${SUPPORTD_CACHE:-$HOME/.cache/supportd}
openmp=$(grep -oP 'set\(SUPPORTD_GGML_OPENMP_DEFAULT \K(ON|OFF)' "$here/cmake/threading.cmake" 2>/dev/null || echo ON)
while (($#)); do
  case $1 in
    --openmp) openmp=${2^^}; shift 2 ;;
    *) echo "usage: $0 [--openmp on|off]" >&2; exit 2 ;;
  esac
done
"$here/scripts/fetch-llama.sh" "$cache"
source "$here/scripts/llama-version.env"
src="$cache/llama.cpp-$LLAMA_COMMIT_PREFIX"
out="$cache/llama-tools-$LLAMA_COMMIT_PREFIX-openmp-${openmp,,}"
if [ ! -x "$out/bin/llama-server" ] || [ ! -x "$out/bin/llama-batched-bench" ] || [ ! -x "$out/bin/llama-bench" ]; then
  echo "[llama-tools] building llama-server, llama-bench, llama-batched-bench (openmp $openmp) in $out" >&2
  cmake -S "$src" -B "$out" -G Ninja -DCMAKE_BUILD_TYPE=Release -DBUILD_SHARED_LIBS=OFF \
    -DGGML_NATIVE=ON -DGGML_BLAS=OFF -DGGML_OPENMP="$openmp" -DLLAMA_OPENSSL=OFF \
    -DLLAMA_USE_PREBUILT_UI=OFF -DLLAMA_BUILD_UI=OFF -DLLAMA_BUILD_TESTS=OFF >/dev/null
  cmake --build "$out" --target llama-server llama-bench llama-batched-bench >&2
fi
echo "$out/bin"
