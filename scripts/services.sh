# Starts and stops the real servers tests use, on 127.0.0.1 and free ports, each in its own
# directory. Sourced by scripts/test.sh; exports SUPPORTD_TEST_REDIS, SUPPORTD_TEST_POSTGRES,
# SUPPORTD_TEST_NATS for the tests.

_service_pids=()
_pg_stop=()

# A port nothing listens on, below the kernel's range for outgoing connections: a port from
# that range can be the local end of some client's connection (wrk's, a test's), which nothing
# listens on but which a server then fails to bind ("Address already in use", seen once).
free_port() {
  local port low=32768
  [ -r /proc/sys/net/ipv4/ip_local_port_range ] && read -r low _ </proc/sys/net/ipv4/ip_local_port_range
  ((low > 12000)) || low=60000  # an unusual range: the old span, as before
  for _ in $(seq 1 100); do
    port=$((10000 + RANDOM % (low - 10000)))
    if ! (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null; then
      echo "$port"
      return 0
    fi
  done
  echo "no free port found" >&2
  return 1
}

wait_for_port() {  # port seconds name
  for _ in $(seq 1 $(($2 * 10))); do
    (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null && return 0
    sleep 0.1
  done
  echo "error: $3 did not start on port $1" >&2
  return 1
}

services_start() {
  local dir=$1
  # Redis
  local redis_port; redis_port=$(free_port)
  redis-server --bind 127.0.0.1 --port "$redis_port" --save '' --appendonly no \
    --dir "$dir" --daemonize no >"$dir/redis.log" 2>&1 &
  _service_pids+=($!)
  wait_for_port "$redis_port" 10 redis
  export SUPPORTD_TEST_REDIS="127.0.0.1:$redis_port"

  # PostgreSQL (refuses to run as root: run it as the postgres user)
  local pg_bin; pg_bin=$(ls -d /usr/lib/postgresql/*/bin | sort -V | tail -1)
  local pg_port; pg_port=$(free_port)
  local pg_dir="$dir/postgres"
  mkdir -p "$pg_dir"
  local run_as=()
  if [ "$(id -u)" -eq 0 ]; then
    chown postgres "$pg_dir" "$dir"
    chmod 755 "$dir"
    run_as=(runuser -u postgres --)
  fi
  "${run_as[@]}" "$pg_bin/initdb" -D "$pg_dir/data" -U supportd --auth=trust >"$dir/initdb.log" 2>&1
  "${run_as[@]}" "$pg_bin/postgres" -D "$pg_dir/data" -h 127.0.0.1 -p "$pg_port" -k "$pg_dir" \
    -c fsync=off -c synchronous_commit=off >"$dir/postgres.log" 2>&1 &
  _service_pids+=($!)
  _pg_stop=("${run_as[@]}" "$pg_bin/pg_ctl" -D "$pg_dir/data" stop -m immediate)
  wait_for_port "$pg_port" 30 postgres
  export SUPPORTD_TEST_POSTGRES="postgresql://supportd@127.0.0.1:$pg_port/postgres"

  # NATS with JetStream
  local nats_port; nats_port=$(free_port)
  nats-server -a 127.0.0.1 -p "$nats_port" -js -sd "$dir/nats" >"$dir/nats.log" 2>&1 &
  _service_pids+=($!)
  wait_for_port "$nats_port" 10 nats
  export SUPPORTD_TEST_NATS="nats://127.0.0.1:$nats_port"
  echo "services: redis $SUPPORTD_TEST_REDIS, postgres $SUPPORTD_TEST_POSTGRES, nats $SUPPORTD_TEST_NATS"
}

services_stop() {
  local pid
  if ((${#_pg_stop[@]})); then "${_pg_stop[@]}" >/dev/null 2>&1 || true; _pg_stop=(); fi
  for pid in "${_service_pids[@]}"; do kill "$pid" 2>/dev/null || true; done
  for pid in "${_service_pids[@]}"; do wait "$pid" 2>/dev/null || true; done
  _service_pids=()
}
