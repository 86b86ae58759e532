"""The HTTP status listener ([daemon] status_listen) under slow and many
clients, through raw sockets (see daemon_http.test.sh):

- slow clients, each trickling one byte of an unfinished request line every
  1.5 s: meanwhile every /metrics and /status scrape is answered within 2 s,
  and the daemon closes each slow client (408) at its request deadline
  (5 s from its connect, however often it sends), not before;
- many connections at once, idle or with half a request line, more or fewer
  than the 64 the listener serves at once: scrapes made while they are open
  are answered within 2 s, the daemon closes every one of them, and those
  over 64 at once early (the oldest make room for the newest);
- with slow clients connected, SIGTERM stops the daemon (exit 0) at once.

Binds a unix socket and 127.0.0.1 only. How many slow and idle clients
there are, what they send and how the scrapes are spaced are drawn from the
printed seed (CUZK_SEED replays them)."""
import http.client
import json
import os
import select
import signal
import socket
import subprocess
import sys
import threading
import time

CUZK, PROTO_DIR = sys.argv[1], sys.argv[2]
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from grpc_harness import Harness, TestDaemon, free_port  # noqa: E402

H = Harness("daemon_http", PROTO_DIR)
rng, tmp, check = H.rng, H.tmp, H.check

TRICKLE_S = 1.5  # a slow client's byte interval
SCRAPE_S = 2.0  # what a scrape may take
READ_S = 5.0  # the listener's deadline for a request line (http_status.c, HTTP_READ_MS)
MAX_CONNS = 64  # connections it serves at once (http_status.c, HTTP_MAX_CONNS)
SLACK_S = 5.0  # a loaded machine's lateness past a deadline
GIVE_UP_S = 25.0  # a client the daemon never closes stops waiting here (a failure)
daemons = []
H.kill_daemons_on_error(daemons)


class Daemon(TestDaemon):
    """A daemon with the test kinds on a unix socket, status on a free port."""

    def __init__(self, name):
        self.port = free_port()
        super().__init__(CUZK, tmp, daemons, name, f"unix://{tmp}/{name}.sock",
                         keys=f'status_listen = "127.0.0.1:{self.port}"\n', workers=1)

    def start(self):
        if not self.launch():
            raise RuntimeError(f"{self.name} exited: " + self.logtext())
        return self


def scrape(port, path):
    """GET path: (HTTP status or None, seconds taken, body or the error)."""
    t0 = time.monotonic()
    try:
        c = http.client.HTTPConnection("127.0.0.1", port, timeout=SCRAPE_S)
        c.request("GET", path)
        r = c.getresponse()
        body = r.read().decode()
        c.close()
        return r.status, time.monotonic() - t0, body
    except OSError as e:
        return None, time.monotonic() - t0, repr(e)


def scrape_ok(port, path, what):
    """A scrape answered 200, within SCRAPE_S, with the page's content."""
    status, took, body = scrape(port, path)
    if status == 200 and path == "/metrics":
        good = "cuzk_uptime_seconds " in body
    elif status == 200:
        try:
            good = "engine" in json.loads(body)
        except ValueError:
            good = False
    else:
        good = False
    check(good and took <= SCRAPE_S, f"{what}: GET {path} answered 200 in {took:.2f} s (at most {SCRAPE_S}): "
                                     f"{status} {body[:80]!r}", verbose=True)


class Client(threading.Thread):
    """A connection that sends `first`, then (trickle) one byte of the path
    every TRICKLE_S, never a line end, reading whatever comes back, until the
    daemon closes it: closed_after is then the seconds from its connect."""

    def __init__(self, port, first, trickle):
        super().__init__(daemon=True)
        self.first, self.trickle = first, trickle
        self.answer, self.closed_after, self.sent = b"", None, 0
        self.sock = socket.create_connection(("127.0.0.1", port), timeout=SCRAPE_S)
        self.sock.settimeout(10)
        self.t0 = time.monotonic()
        if first:
            self.sock.sendall(first)

    def run(self):
        next_byte = self.t0 + TRICKLE_S
        while time.monotonic() - self.t0 < GIVE_UP_S:
            wait = max(0.0, next_byte - time.monotonic()) if self.trickle else 0.5
            if select.select([self.sock], [], [], wait)[0]:
                try:
                    d = self.sock.recv(4096)
                except OSError:  # reset: closed all the same
                    d = b""
                if not d:
                    self.closed_after = time.monotonic() - self.t0
                    break
                self.answer += d
                continue
            if self.trickle and time.monotonic() >= next_byte:
                try:
                    self.sock.send(b"a")
                    self.sent += 1
                except OSError:
                    self.closed_after = time.monotonic() - self.t0
                    break
                next_byte += TRICKLE_S
        self.sock.close()

    def is_open(self):
        return self.closed_after is None and self.is_alive()


def answered(c, codes):
    """What the daemon sent c before closing: nothing, or one of the codes."""
    return c.answer == b"" or any(c.answer.startswith(f"HTTP/1.0 {k} ".encode()) for k in codes)


# ---- slow clients ------------------------------------------------------------
D = Daemon("http").start()
k = rng.randint(1, 4)
slow = [Client(D.port, b"GET /" + b"m" * rng.randrange(4), trickle=True) for _ in range(k)]
for c in slow:
    c.start()
time.sleep(rng.uniform(0.1, 0.5))
first_while_open = True
for i in range(rng.randint(4, 7)):
    scrape_ok(D.port, rng.choice(["/metrics", "/status"]), f"scrape {i} beside {k} slow clients")
    if i == 0:
        first_while_open = all(c.is_open() for c in slow)
    time.sleep(rng.uniform(0.05, 0.3))
check(first_while_open, f"the first scrape was made while the {k} slow clients were connected")
for c in slow:
    c.join(GIVE_UP_S + 5)
for j, c in enumerate(slow):
    check(c.closed_after is not None and READ_S - 1 <= c.closed_after <= READ_S + SLACK_S and c.sent >= 2,
          f"slow client {j} ({c.sent} bytes trickled) closed by the daemon at its request deadline "
          f"({READ_S} s): after {c.closed_after} s", verbose=True)
    check(c.answer.startswith(b"HTTP/1.0 408 "), f"slow client {j}: told 408: {c.answer[:40]!r}")

# ---- many connections at once ---------------------------------------------
n = rng.randint(50, 150)
first = [b"", b"GET /metr", b"G"]
many, refused = [], None
for _ in range(n):
    try:
        many.append(Client(D.port, rng.choice(first), trickle=False))
    except OSError as e:  # the kernel's queue of connections not yet accepted is full: the rest would wait too
        refused = repr(e)
        break
check(refused is None, f"{n} connections made at once: {len(many)} made, then {refused}", verbose=True)
for c in many:
    c.start()
scrape_ok(D.port, "/metrics", f"{n} connections open")
scrape_ok(D.port, "/status", f"{n} connections open")
for c in many:
    c.join(GIVE_UP_S + 5)
late = [c.closed_after for c in many if c.closed_after is None or c.closed_after > READ_S + SLACK_S]
check(not late, f"each of the {n} connections closed by the daemon within {READ_S + SLACK_S} s: "
                f"{len(late)} not ({late[:5]})", verbose=True)
early = sum(c.closed_after is not None and c.closed_after < READ_S - 1 for c in many)
over = max(0, len(many) - MAX_CONNS)
check(early >= over, f"... {over} of them over the {MAX_CONNS} served at once: as many closed early, to make room: "
                     f"{early}", verbose=True)
odd = [c.answer[:40] for c in many if not answered(c, (408, 503))]
check(not odd, f"... told nothing, 408 or 503 (made room for a newer one): {odd[:3]}")
scrape_ok(D.port, "/metrics", f"after the {n} connections")

# ---- stopping with slow clients connected -------------------------------------
slow = [Client(D.port, b"GET /", trickle=True) for _ in range(rng.randint(1, 3))]
for c in slow:
    c.start()
time.sleep(0.3)
D.p.send_signal(signal.SIGTERM)
t0 = time.monotonic()
try:
    rc = D.p.wait(GIVE_UP_S)
except subprocess.TimeoutExpired:
    rc = None
took = time.monotonic() - t0
check(rc == 0 and took <= SLACK_S, f"SIGTERM with {len(slow)} slow clients connected: exit {rc} "
                                   f"after {took:.2f} s (at most {SLACK_S})", verbose=True)
if D.p.poll() is None:
    D.p.kill()
    D.p.wait()

H.finish(daemons)
