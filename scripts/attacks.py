"""The hardening issue's attacks, from outside, against a running server (RELIABILITY.md,
"Limits and abuse"): a flood of slow request bodies, made-up HTTP methods, an oversized reason.

    python3 scripts/attacks.py http://127.0.0.1:8080 [SERVER_PID]

Prints one line per attack with what the server answered, its file descriptors (with the pid)
and how long /healthz took meanwhile. Loopback only; about a minute.
"""

import json
import os
import socket
import sys
import time
import urllib.request

BASE = sys.argv[1].rstrip("/")
PID = sys.argv[2] if len(sys.argv) > 2 else None
HOST, PORT = BASE.split("//")[1].split(":")
PORT = int(PORT)


def fds():
    return len(os.listdir(f"/proc/{PID}/fd")) if PID else -1


def rss_mb():
    if not PID:
        return -1
    for line in open(f"/proc/{PID}/status"):
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return -1


def healthz_ms():
    started = time.monotonic()
    try:
        urllib.request.urlopen(BASE + "/healthz", timeout=10).read()
        return (time.monotonic() - started) * 1000
    except Exception:
        return float("inf")


def request(method, path, body=None, token=None):
    req = urllib.request.Request(BASE + path, data=body, method=method)
    req.add_header("content-type", "application/json")
    if token:
        req.add_header("authorization", f"Bearer {token}")
    try:
        with urllib.request.urlopen(req, timeout=30) as r:
            return r.status, r.read()
    except urllib.error.HTTPError as e:
        return e.code, e.read()


def slow_bodies(n=3000, seconds=15):
    """n connections stating a body of 200,000 bytes, then sending a byte every 5 s."""
    socks, statuses = [], {}
    for _ in range(n):
        s = socket.create_connection((HOST, PORT))
        s.sendall(b"POST /v1/clubs HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
                  b"Content-Length: 200000\r\n\r\n{")
        s.setblocking(False)
        socks.append(s)
    worst_health, most_fds = 0.0, fds()
    started = time.monotonic()
    while time.monotonic() - started < seconds:
        worst_health = max(worst_health, healthz_ms())
        most_fds = max(most_fds, fds())
        for s in socks:
            if s.fileno() < 0:
                continue
            try:
                data = s.recv(4096)
                if data:
                    code = data.split(b" ")[1].decode()
                    statuses[code] = statuses.get(code, 0) + 1
                s.close()
            except BlockingIOError:
                try:
                    s.send(b" ")
                except OSError:
                    s.close()
            except OSError:
                s.close()
        time.sleep(5 if time.monotonic() - started > 1 else 1)
    open_left = sum(1 for s in socks if s.fileno() >= 0)
    for s in socks:
        s.close()
    print(f"slow bodies: {n} connections over {seconds} s -> answers {statuses}, "
          f"{open_left} still open by the server; server fds at most {most_fds}; "
          f"/healthz worst {worst_health:.0f} ms")


def made_up_methods(n=2000):
    for i in range(n):
        s = socket.create_connection((HOST, PORT))
        s.sendall(f"MADEUP{i}{'X' * 2000} /nowhere HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n".encode())
        s.recv(4096)
        s.close()
    metrics = urllib.request.urlopen(BASE + "/metrics").read()
    print(f"made-up methods: {n} requests of 2,000-character methods -> /metrics {len(metrics)} bytes, "
          f"{metrics.count(b'MADEUP')} made-up labels; RSS {rss_mb():.0f} MB")


def long_reason():
    status, body = request("POST", "/v1/clubs", json.dumps({"name": "Attack"}).encode())
    token = json.loads(body)["token"]
    status, body = request("POST", "/v1/games", json.dumps(
        {"game": "mint-julep", "players": [{"name": "Ann"}, {"name": "Bo"}]}).encode(), token)
    game = json.loads(body)["id"]
    events = {"events": [{"type": "abandon", "data": {"reason": "y" * 250_000}}]}
    status, body = request("POST", f"/v1/games/{game}/events", json.dumps(events).encode(), token)
    print(f"a 250,000-character reason -> {status} {json.loads(body).get('detail', '')[:90]}")


if __name__ == "__main__":
    long_reason()
    made_up_methods()
    slow_bodies()
