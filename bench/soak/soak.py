#!/usr/bin/env python3
"""The leak soak's client (bench/soak/run): a bounded number of mixed requests against a
running supportd, and every --checkpoint requests a reading of its /metrics (anonymous memory,
KV cells leaked, the watchdog's fitted slope). Prints the checkpoints as they come and, at the
end, the growth per 1,000 requests after the warm-up (least squares) and the worst KV leak
seen. Mix (weights): chat completions streamed (4), desk turns in a session (2), cancellations
mid-stream (1), long low-class requests with high-class ones arriving meanwhile, which preempt
them (1 + 1), requests whose deadline cannot be met (1). Standard library only."""
import argparse
import http.client
import json
import random
import re
import socket
import sys
import threading
import time

MIX = [("chat", 4), ("desk", 2), ("cancel", 1), ("low_long", 1), ("high", 1), ("deadline", 1)]


def request(host, port, method, path, body=None, timeout=120, headers=None):
    conn = http.client.HTTPConnection(host, port, timeout=timeout)
    try:
        data = json.dumps(body) if body is not None else None
        h = {"Content-Type": "application/json"} if data else {}
        h.update(headers or {})
        conn.request(method, path, body=data, headers=h)
        response = conn.getresponse()
        return response.status, response.read()
    finally:
        conn.close()


def cancel_midstream(host, port, rng):
    """A streamed completion dropped after its first bytes: the server must cancel it."""
    body = json.dumps({"prompt": f"Tell me about order {rng.randrange(10**6)}", "max_tokens": 200,
                       "ignore_eos": True, "stream": True}).encode()
    with socket.create_connection((host, port), timeout=60) as s:
        s.sendall(b"POST /v1/completions HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
                  + f"Content-Length: {len(body)}\r\n\r\n".encode() + body)
        s.recv(4096)
    return 499


def one(kind, host, port, rng, session):
    n = rng.randrange(10**6)
    if kind == "chat":
        return request(host, port, "POST", "/v1/chat/completions", {
            "messages": [{"role": "user", "content": f"Where is my parcel {n}?"}],
            "max_tokens": 24, "stream": True})[0]
    if kind == "desk":
        return request(host, port, "POST", f"/v1/sessions/{session}/messages",
                       {"text": f"How do I change the address of order {n}?"})[0]
    if kind == "cancel":
        return cancel_midstream(host, port, rng)
    if kind == "low_long":
        return request(host, port, "POST", "/v1/completions", {
            "prompt": f"Summarise case {n}", "max_tokens": 96, "ignore_eos": True,
            "priority": "low"})[0]
    if kind == "high":
        return request(host, port, "POST", "/v1/completions", {
            "prompt": f"Urgent: card {n} stolen", "max_tokens": 12, "priority": "high"})[0]
    # A deadline no queue can meet: refused at once (503) or ended at the deadline.
    return request(host, port, "POST", "/v1/completions", {
        "prompt": f"Quick question {n}", "max_tokens": 64, "ignore_eos": True,
        "timeout": 0.001})[0]


def metrics(host, port):
    status, text = request(host, port, "GET", "/metrics", timeout=30)
    values = {}
    for name in ("supportd_anonymous_memory_bytes", "supportd_kv_cells_leaked",
                 "supportd_memory_growth_bytes_per_1000_requests"):
        m = re.search(rf"^{name} ([0-9.e+-]+)$", text.decode(), re.M)
        values[name] = float(m.group(1)) if m else None
    return values


def slope_per_1000(points):
    n = len(points)
    if n < 2:
        return None
    mx = sum(x for x, _ in points) / n
    my = sum(y for _, y in points) / n
    var = sum((x - mx) ** 2 for x, _ in points)
    return 1000 * sum((x - mx) * (y - my) for x, y in points) / var if var else None


def main():
    p = argparse.ArgumentParser(description=__doc__)
    p.add_argument("--url", required=True, help="http://127.0.0.1:PORT")
    p.add_argument("--requests", type=int, default=20000)
    p.add_argument("--concurrency", type=int, default=8)
    p.add_argument("--checkpoint", type=int, default=1000, help="requests between readings")
    p.add_argument("--warm-up", type=int, default=5000, help="requests before the slope is fitted")
    p.add_argument("--max-seconds", type=float, default=6 * 3600)
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--json", help="write the checkpoints and the result here")
    a = p.parse_args()
    m = re.match(r"^http://([^/:]+):(\d+)/?$", a.url)
    if not m or a.requests < 1 or a.concurrency < 1 or a.checkpoint < 1:
        p.error("--url http://HOST:PORT; --requests, --concurrency, --checkpoint at least 1")
    host, port = m.group(1), int(m.group(2))
    status, body = request(host, port, "POST", "/v1/sessions", {"user": "soak"})
    session = json.loads(body)["session"] if status == 201 else None
    kinds = [k for k, w in MIX for _ in range(w) if k != "desk" or session]
    lock = threading.Lock()
    state = {"next": 0, "done": 0, "statuses": {}, "checkpoints": []}
    deadline = time.monotonic() + a.max_seconds
    started = time.monotonic()

    def checkpoint(done):
        values = metrics(host, port)
        values["requests"] = done
        values["seconds"] = round(time.monotonic() - started, 1)
        state["checkpoints"].append(values)
        print(f"{done:>7} requests  {values['seconds']:>8.1f} s  anon "
              f"{(values['supportd_anonymous_memory_bytes'] or 0) / 1e6:>8.1f} MB  kv leaked "
              f"{values['supportd_kv_cells_leaked']}", flush=True)

    def worker(index):
        rng = random.Random(a.seed * 1000 + index)
        while time.monotonic() < deadline:
            with lock:
                if state["next"] >= a.requests:
                    return
                state["next"] += 1
            kind = rng.choice(kinds)
            try:
                code = one(kind, host, port, rng, session)
            except (OSError, http.client.HTTPException):
                code = 0
            with lock:
                state["statuses"][f"{kind} {code}"] = state["statuses"].get(f"{kind} {code}", 0) + 1
                state["done"] += 1
                done = state["done"]
            if done % a.checkpoint == 0:
                checkpoint(done)

    checkpoint(0)
    threads = [threading.Thread(target=worker, args=(i,)) for i in range(a.concurrency)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    points = [(c["requests"], c["supportd_anonymous_memory_bytes"]) for c in state["checkpoints"]
              if c["requests"] >= a.warm_up and c["supportd_anonymous_memory_bytes"] is not None]
    slope = slope_per_1000(points)
    worst_kv = max((c["supportd_kv_cells_leaked"] or 0) for c in state["checkpoints"])
    result = {"requests": state["done"], "seconds": round(time.monotonic() - started, 1),
              "growth_bytes_per_1000_after_warm_up": slope, "kv_cells_leaked_worst": worst_kv,
              "statuses": state["statuses"], "checkpoints": state["checkpoints"]}
    print(f"requests {state['done']} in {result['seconds']} s; statuses {state['statuses']}")
    print("growth after the warm-up: " + ("too few checkpoints" if slope is None else
          f"{slope / 1e6:.3f} MB per 1,000 requests") + f"; KV cells leaked at worst: {worst_kv:g}")
    if a.json:
        with open(a.json, "w") as f:
            json.dump(result, f, indent=1)
    return 0 if worst_kv == 0 else 1


if __name__ == "__main__":
    sys.exit(main())
