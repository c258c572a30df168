# Shared helpers for the benchmark scripts (sourced).
bench_root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
supportd_bin=${SUPPORTD_BIN:-$bench_root/build/bin/supportd}
bench_cache=${SUPPORTD_CACHE:-$HOME/.cache/supportd}

# Prints the path of a synthesized model, creating it once.
bench_model() {
  local preset=$1 type=$2
  local file="$bench_cache/models/$preset-$type-synthetic.gguf"
  if [ ! -f "$file" ]; then
    mkdir -p "$bench_cache/models"
    [ -x "$supportd_bin" ] || make -C "$bench_root" build >&2
    "$supportd_bin" model synth --preset "$preset" --type "$type" --out "$file.partial" >&2
    mv "$file.partial" "$file"
  fi
  echo "$file"
}

# Machine description for reports.
bench_machine() {
  echo "$(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | xargs), $(free -g | awk '/Mem:/{print $2}') GiB, $(. /etc/os-release; echo "$PRETTY_NAME")"
}
