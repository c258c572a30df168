#!/usr/bin/env python3
"""Streams checked token by token while the cluster is disturbed (bench/cluster/kill).

Taps a gateway's token subjects on NATS (core protocol over a plain socket: no client
library) and runs STREAMS streaming customers against a gateway until DURATION seconds have
passed (each stream asks for TOKENS tokens, greedy, ignore_eos). At the end each customer's text
is matched with a request on the wire whose numbered tokens 1..last, each taken from the newest
attempt that sent it (what the gateway must deliver), join to exactly that text: a token missing
or repeated in a stream leaves it unmatched. The wire is checked too: no number missing below the
last, and a resumed request (more than one attempt) counted with its pause (the longest wait
between two tokens of the stream) against the stream's usual gap. Prints one JSON object.
  usage: stream_check.py --nats HOST:PORT --url URL --gateway ID --streams N --tokens N
                         --duration S
"""
import argparse
import http.client
import json
import socket
import statistics
import threading
import time
import urllib.parse


class Tap(threading.Thread):
    """Every message on supportd.tokens.GATEWAY.> (core NATS: INFO, CONNECT, SUB, MSG, PING)."""

    def __init__(self, address, gateway):
        super().__init__(daemon=True)
        host, port = address.rsplit(":", 1)
        self.sock = socket.create_connection((host, int(port)), timeout=10)
        self.sock.settimeout(1)
        self.buffer = b""
        self.events = []
        self.lock = threading.Lock()
        self.stopping = False
        self.ready = threading.Event()
        self.subject = f"supportd.tokens.{gateway}.>"

    def line(self):
        while b"\r\n" not in self.buffer:
            self.fill()
        line, self.buffer = self.buffer.split(b"\r\n", 1)
        return line.decode()

    def fill(self):
        while True:
            if self.stopping:
                raise EOFError
            try:
                data = self.sock.recv(1 << 16)
            except socket.timeout:
                continue
            if not data:
                raise EOFError
            self.buffer += data
            return

    def run(self):
        try:
            self.line()  # INFO
            self.sock.sendall(b'CONNECT {"verbose":false,"name":"stream-check"}\r\n' +
                              f"SUB {self.subject} 1\r\nPING\r\n".encode())
            while True:
                line = self.line()
                if line == "PING":
                    self.sock.sendall(b"PONG\r\n")
                elif line == "PONG":
                    self.ready.set()
                elif line.startswith("MSG "):
                    size = int(line.split()[-1])
                    while len(self.buffer) < size + 2:
                        self.fill()
                    payload, self.buffer = self.buffer[:size], self.buffer[size + 2:]
                    with self.lock:
                        self.events.append(json.loads(payload))
        except EOFError:
            pass


def customer(url, tokens, deadline, index, results):
    parsed = urllib.parse.urlparse(url)
    n = 0
    while time.monotonic() < deadline:
        n += 1
        body = json.dumps({"prompt": f"stream check {index}-{n}: where is my parcel?",
                           "max_tokens": tokens, "temperature": 0, "ignore_eos": True,
                           "stream": True})
        pieces, times, error = [], [], None
        start = time.monotonic()
        try:
            connection = http.client.HTTPConnection(parsed.hostname, parsed.port, timeout=120)
            connection.request("POST", "/v1/completions", body,
                               {"content-type": "application/json"})
            response = connection.getresponse()
            if response.status != 200:
                error = f"HTTP {response.status}"
            else:
                for raw in response:
                    line = raw.decode().strip()
                    if not line.startswith("data: ") or line == "data: [DONE]":
                        continue
                    event = json.loads(line[6:])
                    if "error" in event:
                        error = event["error"].get("message", "error event")
                        continue
                    for choice in event.get("choices", []):
                        if choice.get("text"):
                            pieces.append(choice["text"])
                            times.append(time.monotonic() - start)
            connection.close()
        except Exception as e:  # a failed stream is counted, never fatal
            error = str(e)
        results.append({"pieces": pieces, "times": times, "error": error})


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--nats", required=True)
    parser.add_argument("--url", required=True)
    parser.add_argument("--gateway", required=True, help="the node id of the gateway at --url")
    parser.add_argument("--streams", type=int, default=4)
    parser.add_argument("--tokens", type=int, default=200)
    parser.add_argument("--duration", type=float, default=60)
    args = parser.parse_args()

    tap = Tap(args.nats, args.gateway)
    tap.start()
    if not tap.ready.wait(10):
        raise SystemExit("stream_check: NATS did not answer")
    results = []
    deadline = time.monotonic() + args.duration
    threads = [threading.Thread(target=customer,
                                args=(args.url, args.tokens, deadline, i, results))
               for i in range(args.streams)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=args.duration + 300)
    time.sleep(1)
    tap.stopping = True
    tap.join(timeout=5)

    # What the gateway must deliver for each request on the wire.
    by_request = {}
    for e in tap.events:
        by_request.setdefault(e.get("id"), []).append(e)
    expected, wire_gaps, resumed_ids = {}, 0, set()
    for request, events in by_request.items():
        attempts = {}
        for e in events:
            if e.get("kind") == "text":
                attempts.setdefault(e["attempt"], {})[e["seq"]] = e["text"]
        if len({e["attempt"] for e in events if e.get("kind") in ("started", "text")}) > 1:
            resumed_ids.add(request)
        last = max((s for a in attempts.values() for s in a), default=0)
        text = []
        for seq in range(1, last + 1):
            newest = [a for _, a in sorted(attempts.items(), reverse=True) if seq in a]
            if not newest:
                wire_gaps += 1
                continue
            text.append(newest[0][seq])
        expected.setdefault("".join(text), []).append(request)

    ok = [r for r in results if r["error"] is None]
    matched, unmatched, short, pauses, resumed_streams = 0, 0, 0, [], 0
    for r in ok:
        text = "".join(r["pieces"])
        if len(r["pieces"]) != args.tokens:
            short += 1
        candidates = expected.get(text)
        if candidates:
            request = candidates.pop()
            matched += 1
            if request in resumed_ids and len(r["times"]) > 2:
                resumed_streams += 1
                gaps = [b - a for a, b in zip(r["times"], r["times"][1:])]
                pauses.append(max(gaps) - statistics.median(gaps))
        else:
            unmatched += 1
    print(json.dumps({
        "streams": len(results),
        "ok": len(ok),
        "errors": len(results) - len(ok),
        "error_examples": sorted({r["error"] for r in results if r["error"]})[:5],
        "matched_token_by_token": matched,
        "unmatched": unmatched,
        "pieces_not_equal_to_tokens": short,
        "wire_gaps": wire_gaps,
        "resumed_requests_on_wire": len(resumed_ids),
        "resumed_streams_checked": resumed_streams,
        "extra_delay_ms": {
            "max": round(max(pauses) * 1000, 1) if pauses else None,
            "median": round(statistics.median(pauses) * 1000, 1) if pauses else None,
        },
    }))


if __name__ == "__main__":
    main()
