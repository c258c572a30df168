# The load and the roll-out steps of bench/rollout/run (see there): closed-loop streaming
# clients on threads, each request's TTFT, the version that served it and whether the stream
# ended whole, grouped by the step that was in force when it started.
import http.client, json, math, statistics, sys, threading, time

port, key, workers, max_tokens, step_s, candidate, rounds = (
    int(sys.argv[1]), sys.argv[2], int(sys.argv[3]), int(sys.argv[4]), float(sys.argv[5]),
    sys.argv[6], int(sys.argv[7]))
admin_headers = {"Authorization": "Bearer " + key, "Content-Type": "application/json"}
lock = threading.Lock()
records = []  # (step, ttft_ms or None, model, ok)
step_name = "baseline"
stop = threading.Event()


def admin(method, path, body=None):
    c = http.client.HTTPConnection("127.0.0.1", port, timeout=60)
    c.request(method, path, json.dumps(body) if body is not None else None, admin_headers)
    r = c.getresponse()
    data = r.read()
    c.close()
    if r.status >= 300:
        raise SystemExit(f"{method} {path}: {r.status} {data.decode()}")
    return json.loads(data)


def one_request(user):
    body = {"prompt": "Where is my parcel? It was due yesterday.", "max_tokens": max_tokens,
            "stream": True, "ignore_eos": True, "user": user}
    with lock:
        step = step_name
    start = time.monotonic()
    ttft, model, ok = None, None, False
    try:
        c = http.client.HTTPConnection("127.0.0.1", port, timeout=120)
        c.request("POST", "/v1/completions", json.dumps(body), {"Content-Type": "application/json"})
        r = c.getresponse()
        if r.status == 200:
            for line in r:
                line = line.strip()
                if not line.startswith(b"data: "):
                    continue
                data = line[6:]
                if data == b"[DONE]":
                    ok = True
                    break
                chunk = json.loads(data)
                if "error" in chunk:
                    break
                model = chunk.get("model", model)
                if ttft is None and chunk["choices"] and chunk["choices"][0].get("text"):
                    ttft = (time.monotonic() - start) * 1000
        c.close()
    except (OSError, http.client.HTTPException):
        ok = False
    with lock:
        records.append((step, ttft, model, ok))


def worker(index):
    n = 0
    while not stop.is_set() and n < 100000:
        one_request(f"customer-{index}-{n % 50}")
        n += 1


def set_step(name, weights=None, shadow=None):
    global step_name
    if weights is not None:
        split = {"weights": weights, "by": "bench"}
        if shadow is not None:
            split["shadow"] = shadow
        admin("PUT", "/admin/routes/default", split)
    with lock:
        step_name = name
    print(f"step {name}", file=sys.stderr)
    time.sleep(step_s)


threads = [threading.Thread(target=worker, args=(i,)) for i in range(workers)]
for t in threads:
    t.start()
set_step("baseline")


def drain_shadows(limit_s):
    """Waits (up to limit_s) until no shadow copy waits or runs; returns the seconds waited."""
    start = time.monotonic()
    while time.monotonic() - start < limit_s:
        queue = admin("GET", "/admin/routes")["shadow_queue"]
        if queue["waiting"] == 0 and queue["running"] == 0:
            break
        time.sleep(0.1)
    return time.monotonic() - start


# The slower shadow, side by side with none: rounds of off and on, so that a drift of the
# machine's load falls on both alike. After each "on" step the shadow is turned off and its
# copies still queued or running finish in a step of their own, counted in neither: a "shadow
# off" step must not carry the slow version's last copies (which it did, 2026-12-05: its p99
# rose with them and the comparison compared two shadowed steps). The candidate's shadow step
# later starts with an empty queue too. Copies compute only in the gaps of the callers' work
# (engine/llama/compute_gate.h): under a load that leaves none, the copies running when the
# shadow is turned off stay parked (computing nothing) until the end of the load, so the drain
# waits one step's time at most.
drained_s = 0.0
for _ in range(rounds):
    set_step("shadow off", {"stable": 100})
    set_step("slow shadow 100%", {"stable": 100}, {"version": "slow", "percent": 100})
    admin("PUT", "/admin/routes/default", {"weights": {"stable": 100}, "by": "bench"})
    with lock:
        step_name = "draining slow copies"
    drained_s = max(drained_s, drain_shadows(max(10.0, step_s)))
slow_shadow = next(v for v in admin("GET", "/admin/models")["versions"]
                   if v["name"] == "slow")["shadow"]
# Its copies still parked would hold the shadow queue's places through the roll-out (the
# candidate's shadow step then dropped every copy, 2026-12-05): unloading it ends them.
admin("DELETE", "/admin/models/slow?timeout_s=5")
print(f"the slow shadow's queued copies took at most {drained_s:.1f} s more to finish", file=sys.stderr)
# Load and warm the candidate at run time, under the load: a step of its own, timed.
with lock:
    step_name = "load + warm"
print("step load + warm", file=sys.stderr)
t_load = time.monotonic()
admin("POST", "/admin/models", {"name": "candidate", "path": candidate, "by": "bench"})
state = "loading"
for _ in range(36000):
    versions = admin("GET", "/admin/models")["versions"]
    state = next(v for v in versions if v["name"] == "candidate")["state"]
    if state in ("ready", "failed"):
        break
    time.sleep(0.05)
if state != "ready":
    raise SystemExit(f"the candidate did not load: {state}")
load_line = f"load + warm at run time: {time.monotonic() - t_load:.1f} s until ready"
print(load_line, file=sys.stderr)
set_step("shadow 100%", {"stable": 100}, {"version": "candidate", "percent": 100})
shadow = next(v for v in admin("GET", "/admin/models")["versions"]
              if v["name"] == "candidate")["shadow"]


def describe_shadow(name, figures):
    return (f"shadow onto {name}: {figures['copies']} copies, {figures['dropped']} dropped "
            f"(queue full), {figures.get('expired', 0)} expired (no gap in time), "
            f"{figures['errors']} errors, {figures['completed']} completed, "
            f"{figures['compared']} compared, exact "
            f"{figures['exact_match_rate']:.2f}, word overlap {figures['token_overlap']:.2f}, "
            f"shadow TTFT p99 {figures['ttft_p99_ms']:.0f} ms")


shadow_line = describe_shadow("candidate", shadow)
slow_shadow_line = describe_shadow("slow", slow_shadow)
print(shadow_line, file=sys.stderr)
# Rollback: everything onto the candidate, then back by one call; the next request must be
# served by stable.
admin("PUT", "/admin/routes/default", {"weights": {"stable": 0, "candidate": 100}, "by": "bench"})
t0 = time.monotonic()
admin("POST", "/admin/routes/default/rollback", {"by": "bench"})
t1 = time.monotonic()
c = http.client.HTTPConnection("127.0.0.1", port, timeout=120)
c.request("POST", "/v1/completions", json.dumps({"prompt": "Hi", "max_tokens": 1}),
          {"Content-Type": "application/json"})
next_model = json.loads(c.getresponse().read()).get("model")
t2 = time.monotonic()
c.close()
rollback_line = (f"rollback: the call took {1000 * (t1 - t0):.1f} ms; the next request was "
                 f"served by {next_model} (answered {1000 * (t2 - t1):.0f} ms after the call)")
print(rollback_line, file=sys.stderr)
set_step("canary 10%", {"stable": 90, "candidate": 10})
set_step("50/50", {"stable": 50, "candidate": 50})
set_step("100%", {"stable": 0, "candidate": 100})
admin("DELETE", "/admin/models/stable?timeout_s=60")
set_step("stable unloaded")
stop.set()
for t in threads:
    t.join()

print(f"{'step':<20} {'requests':>8} {'failed':>6} {'ttft p50 ms':>11} {'ttft p99 ms':>11}  served by")
baseline_p99 = None
worst_ratio = 0
shadow_ratio = None
p99_of = {}
rollout_steps = ["load + warm", "shadow 100%", "canary 10%", "50/50", "100%", "stable unloaded"]
for name in ["baseline", "shadow off", "slow shadow 100%", "draining slow copies"] + rollout_steps:
    rows = [r for r in records if r[0] == name]
    ttfts = sorted(r[1] for r in rows if r[1] is not None)
    failed = sum(1 for r in rows if not r[3])
    p50 = statistics.median(ttfts) if ttfts else float("nan")
    p99 = ttfts[min(len(ttfts) - 1, int(0.99 * len(ttfts)))] if ttfts else float("nan")
    p99_of[name] = p99
    if name == "baseline":
        baseline_p99 = p99
    elif ttfts and baseline_p99 and name in rollout_steps:
        worst_ratio = max(worst_ratio, p99 / baseline_p99)
        if name == "shadow 100%":
            shadow_ratio = p99 / baseline_p99
    served = {}
    for r in rows:
        served[r[2]] = served.get(r[2], 0) + 1
    shares = ", ".join(f"{m} {100 * n / len(rows):.0f}%" for m, n in sorted(served.items(), key=str))
    print(f"{name:<20} {len(rows):>8} {failed:>6} {p50:>11.0f} {p99:>11.0f}  {shares}")
print(load_line)
print(f"{slow_shadow_line} (its copies ended at most {drained_s:.1f} s after a step)")
print(shadow_line)
print(rollback_line)
off, on = p99_of.get("shadow off", math.nan), p99_of.get("slow shadow 100%", math.nan)
if off > 0 and not math.isnan(on):
    print(f"callers' p99 TTFT with 100% shadowed onto the slower version: {on:.0f} ms against "
          f"{off:.0f} ms off, {on / off:.2f}x (target <= 1.05; {rounds} rounds of {step_s:g} s "
          f"each)")
if shadow_ratio is not None:
    print(f"callers' p99 TTFT with the shadow at 100%: {shadow_ratio:.2f}x the baseline "
          f"(target <= 1.05)")
failed_total = sum(1 for r in records if not r[3])
print(f"failed or cut streams: {failed_total} of {len(records)} (target 0); worst step p99 TTFT "
      f"{worst_ratio:.2f}x the baseline (target <= 1.2)")
