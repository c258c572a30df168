# Helpers of the cluster benchmarks (sourced by bench/cluster/*): start nats-server with
# JetStream and `supportd serve` processes of every role on free loopback ports, each in a
# scratch directory, remember their pids and stop exactly those (by pid) when the script ends.
# Every wait is bounded.
here=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
source "$here/bench/lib.sh"
cluster_work=$(mktemp -d /tmp/supportd-cluster-bench.XXXXXX)
cluster_pids=()

cluster_stop() {
  local pid
  for pid in "${cluster_pids[@]}"; do kill "$pid" 2>/dev/null || true; done
  for pid in "${cluster_pids[@]}"; do
    # SIGTERM first; a process still there after 10 s gets SIGKILL.
    for _ in $(seq 100); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
    kill -9 "$pid" 2>/dev/null || true
    wait "$pid" 2>/dev/null || true
  done
  cluster_pids=()
}
trap 'cluster_stop; rm -rf "$cluster_work"' EXIT
trap 'exit 130' INT TERM

# A free TCP port on 127.0.0.1.
cluster_free_port() {
  python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'
}

# Starts nats-server with JetStream (file store in the scratch directory); sets nats_url and
# nats_pid.
cluster_start_nats() {
  local port; port=$(cluster_free_port)
  nats-server -a 127.0.0.1 -p "$port" -js -sd "$cluster_work/nats" >"$cluster_work/nats.log" 2>&1 &
  nats_pid=$!
  cluster_pids+=("$nats_pid")
  for _ in $(seq 100); do
    (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null && break
    sleep 0.1
  done
  nats_url="nats://127.0.0.1:$port"
}

# cluster_start NAME ARGS...: `supportd serve ARGS` in $cluster_work/NAME, on a free port;
# sets started_pid and started_url (once /ready answers 200, at most 120 s). Exits on failure.
cluster_start() {
  local name=$1; shift
  local dir="$cluster_work/$name"
  mkdir -p "$dir"
  "$supportd_bin" serve --port 0 --port-file "$dir/port" --data-dir "$dir/data" \
    --encoder off --log-level warn "$@" >"$dir/log" 2>&1 &
  started_pid=$!
  cluster_pids+=("$started_pid")
  for _ in $(seq 1200); do
    if [ -s "$dir/port" ] && curl -sf "http://127.0.0.1:$(cat "$dir/port")/ready" >/dev/null; then
      started_url="http://127.0.0.1:$(cat "$dir/port")"
      return 0
    fi
    kill -0 "$started_pid" 2>/dev/null || break
    sleep 0.1
  done
  echo "error: $name did not become ready; its log:" >&2
  tail -20 "$dir/log" >&2
  exit 1
}

# An engine node of one thread: cluster_engine NAME SLOTS.
cluster_engine() {
  cluster_start "$1" --role engine --nats "$nats_url" --node-id "$1" --model "$cluster_model" \
    --threads 1 --parallel "$2"
}

# A gateway: cluster_gateway NAME [ARGS...].
cluster_gateway() {
  local name=$1; shift
  cluster_start "$name" --role gateway --nats "$nats_url" --node-id "$name" "$@"
}

# The single process everything is compared with: cluster_single NAME SLOTS [ARGS...].
cluster_single() {
  local name=$1 slots=$2; shift 2
  cluster_start "$name" --model "$cluster_model" --threads 1 --parallel "$slots" "$@"
}

# cluster_bench URL OUT.json ARGS...: `supportd bench` against URL, its report in OUT.json.
cluster_bench() {
  local url=$1 out=$2; shift 2
  "$supportd_bin" bench --url "$url" --endpoint completions --no-progress --json "$out" "$@" \
    >"$out.txt" 2>&1 || { echo "error: supportd bench failed:" >&2; tail -20 "$out.txt" >&2; exit 1; }
}

# A metric's value from a /metrics page: cluster_metric URL NAME.
cluster_metric() {
  curl -sf "$1/metrics" | awk -v n="$2" '$1 == n { print $2; found = 1 } END { if (!found) print 0 }'
}

cluster_model=${SUPPORTD_BENCH_MODEL:-$(bench_model tiny f16)}
command -v nats-server >/dev/null || { echo "nats-server is missing: run make setup" >&2; exit 1; }
command -v jq >/dev/null || { echo "jq is missing: run make setup" >&2; exit 1; }
