"""The hardening issue's attacks, from outside, against a running server (RELIABILITY.md,
"Limits and abuse"): a flood of slow request bodies, made-up HTTP methods, an oversized reason,
one club replaying long logs or flooding corrections while another club plays, and imports in a
row.

    TABLETALLY_CACHE_GAMES=0 TABLETALLY_CLUBS_PER_MINUTE=1000 tabletally   # then:
    python3 scripts/attacks.py http://127.0.0.1:8080 [SERVER_PID [ATTACK...]]

With no state cache every append replays its game's log, as an append to a game that dropped out
of the cache does. Prints one line per attack with what the server answered, its file
descriptors (with the pid) and how long /healthz took meanwhile. Loopback only; a few minutes.
"""

import json
import os
import socket
import sys
import threading
import time
import urllib.request

BASE = sys.argv[1].rstrip("/")
PID = sys.argv[2] if len(sys.argv) > 2 else None
CHOSEN = sys.argv[3:]
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


MINT_CONDITION = {"game": "mint-condition",
                  "players": [{"name": "Ann"}, {"name": "Bo"}, {"name": "Cy"}]}
ROUND_1 = {"round": 1, "collections": {
    "Ann": ["animal-kingdom", "animal-kingdom", "animal-kingdom", "autographed", "autographed",
            "be-careful", "be-careful", "fine-wine", "memories"],
    "Bo": ["be-careful", "be-careful", "be-careful", "heavy-rotation", "heavy-rotation",
           "heavy-rotation", "legacy-edition", "lost-pieces", "snack-fingers"],
    "Cy": ["memories", "memories", "memories", "fine-wine", "fine-wine", "autographed",
           "autographed", "autographed", "animal-kingdom"]}}
CORRECT = {"type": "correct", "data": {"seq": 2, "data": ROUND_1}}


def new_club(name):
    status, body = request("POST", "/v1/clubs", json.dumps({"name": name}).encode())
    assert status == 201, (status, body)
    return json.loads(body)["token"]


def new_game(token, corrections=0):
    """A Mint Condition game after round 1 and `corrections` corrections of it."""
    status, body = request("POST", "/v1/games", json.dumps(MINT_CONDITION).encode(), token)
    game = json.loads(body)["id"]
    append(token, game, [{"type": "round_collected", "data": ROUND_1}])
    while corrections > 0:
        n = min(corrections, 190)
        append(token, game, [CORRECT] * n)
        corrections -= n
    return game


def append(token, game, events):
    status, body = request("POST", f"/v1/games/{game}/events",
                           json.dumps({"events": events}).encode(), token)
    assert status in (200, 201), (status, body[:300])
    return status


def p(values, q):
    values = sorted(values)
    return values[min(len(values) - 1, int(len(values) * q))] if values else float("nan")


def club_plays_beside(attack, seconds=15):
    """Another club appends one correction at a time to its own small game, and clubs are
    created once a second, while `attack(stop)` runs: their latencies, in ms."""
    token = new_club("Bystanders")
    game = new_game(token)
    stop = threading.Event()
    attacker = threading.Thread(target=attack, args=(stop,))
    attacker.start()
    time.sleep(1)
    appends, clubs, refused = [], [], 0
    started = last_club = time.monotonic()
    while time.monotonic() - started < seconds:
        t = time.monotonic()
        append(token, game, [CORRECT])
        appends.append((time.monotonic() - t) * 1000)
        if time.monotonic() - last_club >= 1:
            last_club = t = time.monotonic()
            status, _ = request("POST", "/v1/clubs", json.dumps({"name": "Newcomers"}).encode())
            clubs.append((time.monotonic() - t) * 1000)
            refused += status != 201
    stop.set()
    attacker.join()
    return (f"the other club: {len(appends) / seconds:.0f} appends/s, p50 {p(appends, 0.5):.0f} ms, "
            f"p99 {p(appends, 0.99):.0f} ms; {len(clubs)} clubs created, worst {max(clubs):.0f} ms, "
            f"{refused} refused")


def long_uncached_logs():
    """One club appends to two games of 1,902 events each, in turn (with no cache, each append
    replays its game's log)."""
    token = new_club("Replayers")
    games = [new_game(token, 1900), new_game(token, 1900)]
    done = [0]

    def attack(stop):
        i = 0
        while not stop.is_set():
            game = games[i % 2]
            status, body = request("POST", f"/v1/games/{game}/events",
                                   json.dumps({"events": [{"type": "retract", "data": {"seq": 3}}]}).encode(),
                                   token)
            i += 1
            done[0] += status == 201
            # A retraction of a retraction-free event, once per game: then the log is full of
            # them, and each further one is refused after its replay (the log is read anyway).

    beside = club_plays_beside(attack)
    print(f"one club appending to games of 1,902 events, uncached: {beside}")


def one_club_floods(connections=32):
    """32 connections of one club send corrections as fast as they are answered."""
    token = new_club("Flooders")
    games = [new_game(token) for _ in range(connections)]
    sent = [0]

    def attack(stop):
        def flood(game):
            while not stop.is_set():
                append(token, game, [CORRECT])
                sent[0] += 1
        threads = [threading.Thread(target=flood, args=(g,)) for g in games]
        for t in threads:
            t.start()
        for t in threads:
            t.join()

    started = time.monotonic()
    beside = club_plays_beside(attack)
    print(f"one club's {connections} connections of corrections "
          f"({sent[0] / (time.monotonic() - started):.0f}/s): {beside}")


def imports_in_a_row(n=50):
    """A 23-game export imported into n fresh clubs, one after the other."""
    token = new_club("Exporters")
    for _ in range(23):
        new_game(token, 3)
    req = urllib.request.Request(BASE + "/v1/export", headers={"authorization": f"Bearer {token}"})
    export = urllib.request.urlopen(req, timeout=30).read()
    answered, worst = 0, 0.0
    for i in range(n):
        club = new_club(f"Importers {i}")
        t = time.monotonic()
        status, body = request("POST", "/v1/import?new_ids=true", export, club)
        worst = max(worst, time.monotonic() - t)
        answered += status == 200 and json.loads(body)["imported"] == 23
    print(f"{n} imports of a 23-game export in a row: {answered} answered with 23 games imported, "
          f"the slowest in {worst * 1000:.0f} ms")


def big_log_streams():
    """big_log_reads's streams alone, on a server that has read nothing else."""
    big_log_reads(readers=0)


def big_log_reads(readers=6, streams=8):
    """A game of 2,000 events, each a correction with a 500-character reason (the largest a
    log may hold of them), read whole by six clients at once, and by eight streams resumed from
    its start whose clients read a kilobyte a second."""
    token = new_club("Readers")
    game = new_game(token)
    correction = {"type": "correct", "data": {"seq": 2, "data": ROUND_1, "reason": "r" * 500}}
    left = 1998
    while left > 0:
        append(token, game, [correction] * min(left, 190))
        left -= min(left, 190)
    before, peak, done = rss_mb(), [0.0], threading.Event()

    def watch():
        while not done.is_set():
            peak[0] = max(peak[0], rss_mb())
            time.sleep(0.05)

    watcher = threading.Thread(target=watch)
    watcher.start()
    pages = []

    def read_log():
        after, n, biggest = 0, 0, 0
        while after is not None:
            req = urllib.request.Request(f"{BASE}/v1/games/{game}/events?limit=1000&after={after}",
                                         headers={"authorization": f"Bearer {token}"})
            body = urllib.request.urlopen(req, timeout=60).read()
            page = json.loads(body)
            n, biggest = n + len(page["events"]), max(biggest, len(body))
            after = page["next_after"]
        pages.append((n, biggest))

    threads = [threading.Thread(target=read_log) for _ in range(readers)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    reads_peak, peak[0] = peak[0], 0.0
    slow = []
    for _ in range(streams):
        sock = socket.create_connection((HOST, PORT))
        sock.sendall(f"GET /v1/games/{game}/stream HTTP/1.1\r\nHost: x\r\n"
                     f"Authorization: Bearer {token}\r\nLast-Event-ID: 1\r\n\r\n".encode())
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
        slow.append(sock)
    for _ in range(10):
        for sock in slow:
            sock.recv(1024)
        time.sleep(1)
    for sock in slow:
        sock.close()
    done.set()
    watcher.join()
    events, biggest = pages[0] if pages else (0, 0)
    print(f"a log of 2,000 corrections with 500-character reasons: {readers} clients each read "
          f"all {events} events at once, in pages of at most {biggest:,} bytes; then {streams} "
          f"streams resumed from its start read a kilobyte a second for 10 s; "
          f"RSS {before:.0f} MB before, at most {reads_peak:.0f} MB during the reads and "
          f"{peak[0]:.0f} MB during the streams")


ATTACKS = [big_log_reads, big_log_streams, long_uncached_logs, one_club_floods, imports_in_a_row, long_reason, made_up_methods,
           slow_bodies]

if __name__ == "__main__":
    for attack in ATTACKS:
        if not CHOSEN or attack.__name__ in CHOSEN:
            attack()
