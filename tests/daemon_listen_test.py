"""One daemon per address, driven by Python's grpcio (see daemon_listen.test.sh).

A second daemon started on an address a first one serves must stop at once,
saying who holds it, and leave the first one serving every client:

- the same unix socket path: the second exits non-zero naming the path and
  the first's pid, the first's socket file is not replaced, the first
  answers; a socket left by a killed daemon is replaced by the next one;
- the same TCP port: the second exits non-zero saying the address is in use
  (before, SO_REUSEPORT let it bind too and the kernel split new
  connections between the two: a job of the first was NOT_FOUND on some);
- the same status_listen port: the second says the port is in use, and
  every fresh HTTP connection still reaches the first.

Binds unix sockets and 127.0.0.1 only. Ids and witness seeds, and how many
fresh connections each check makes, are drawn from the printed seed
(CUZK_SEED replays them)."""
import os
import signal
import stat
import sys
import urllib.request

import grpc

CUZK, PROTO_DIR = sys.argv[1], sys.argv[2]
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from grpc_harness import Harness, TestDaemon, code_of, free_port  # noqa: E402

H = Harness("daemon_listen", PROTO_DIR)
rng, tmp, check = H.rng, H.tmp, H.check
from cuzk.v1 import proving_pb2 as pb  # noqa: E402
from cuzk.v1 import proving_pb2_grpc as pbg  # noqa: E402

SC = grpc.StatusCode
S = pb.AwaitProofResponse
# a fresh connection per channel: each one is accepted by whichever socket the kernel picks
OPTS = [("grpc.use_local_subchannel_pool", 1)]
daemons = []
H.kill_daemons_on_error(daemons)


class Daemon(TestDaemon):
    """A daemon with the test kinds and a param cache of its own; `keys` is
    extra [daemon] TOML."""

    def __init__(self, name, listen, keys=""):
        super().__init__(CUZK, tmp, daemons, name, listen, keys=keys)

    def start(self):
        """Starts it; returns once it serves (True), or once it exited (False)."""
        return self.launch()

    def stub(self):
        """A stub on a channel of its own (a new connection)."""
        ch = grpc.insecure_channel(self.listen, options=OPTS)
        return ch, pbg.ProvingEngineStub(ch)

    def stop(self):
        """SIGTERM; its exit code."""
        if self.p.poll() is None:
            self.p.send_signal(signal.SIGTERM)
        return self.p.wait(120)


def second_refused(b, what, *needles):
    """b, started on a's address, exits non-zero before serving, its log
    naming each of needles. When it serves instead (it shared the address),
    it is left running for the checks that follow, and stopped by the caller."""
    served = b.start()
    rc = None if served else b.p.returncode
    log = b.logtext()
    check(not served and rc not in (0, None), f"{what}: the second daemon exits non-zero before serving "
                                              f"(served: {served}, exit {rc})", verbose=True)
    line = next((ln for ln in log.splitlines() if all(n in ln for n in needles)), None)
    check(line is not None, f"{what}: its log names {needles}: {log[-600:]!r}", verbose=True)
    return served


def awaited_from_fresh_connections(a, job_id, n):
    """AwaitProof of a's job over n new connections: the codes seen (OK, or
    NOT_FOUND from a daemon that never had the job)."""
    codes = []
    for _ in range(n):
        ch, st = a.stub()
        codes.append(code_of(st.AwaitProof, pb.AwaitProofRequest(job_id=job_id, timeout_ms=60000), timeout=90)[0])
        ch.close()
    return codes


def proved_job(a):
    """A test-winning job proved on a: its id."""
    ch, st = a.stub()
    q = H.submit_req(pb.TEST_WINNING_POST)
    r = st.Prove(pb.ProveRequest(submit=q), timeout=120).result
    ch.close()
    check(r.status == S.COMPLETED, f"{a.name}: a job proves: {r.status} {r.error_message}")
    return q.request_id


def lock_pid(path):
    """What the lock file beside a socket says (its holder's pid), "" when absent."""
    return open(path).read().strip() if os.path.exists(path) else ""


# ---- the same unix socket path ----------------------------------------------
sock = os.path.join(tmp, "cuzk.sock")
A = Daemon("unix-a", f"unix://{sock}")
check(A.start(), "unix: the first daemon serves")
ino = os.stat(sock).st_ino
job = proved_job(A)
B = Daemon("unix-b", f"unix://{sock}")
served = second_refused(B, "unix", sock, f"pid {A.p.pid}")
if served:
    check(B.stop() == 0, "unix: (the second daemon, which served, stopped)")
check(os.path.exists(sock) and stat.S_ISSOCK(os.stat(sock).st_mode) and os.stat(sock).st_ino == ino,
      "unix: the first daemon's socket file is still there, not replaced", verbose=True)
n = 2 + rng.randrange(8)
codes = awaited_from_fresh_connections(A, job, n)
check(codes == [SC.OK] * n, f"unix: the first daemon answers {n} new connections: {codes}", verbose=True)
lock = sock + ".lock"
check(lock_pid(lock) == str(A.p.pid),
      f"unix: {lock} holds the first daemon's pid {A.p.pid}", verbose=True)
check(A.stop() == 0, "unix: the first daemon exits 0")
check(not os.path.exists(sock), "unix: the first daemon removed its socket when it stopped")

# A daemon killed leaves its socket file; the lock went with the process:
# the next daemon replaces the socket and serves.
C = Daemon("unix-c", f"unix://{sock}")
check(C.start(), "unix: a daemon starts on the path once the first stopped")
C.p.kill()
C.p.wait(60)
check(os.path.exists(sock), "unix: a killed daemon leaves its socket file")
D = Daemon("unix-d", f"unix://{sock}")
check(D.start(), "unix: the next daemon replaces a killed one's socket and serves", verbose=True)
ch, st = D.stub()
check(code_of(st.GetStatus, pb.GetStatusRequest(), timeout=60)[0] == SC.OK, "unix: ... and answers")
ch.close()
check(lock_pid(lock) == str(D.p.pid), "unix: the lock file holds the new daemon's pid")
check(D.stop() == 0, "unix: it exits 0")

# A path that is not a socket is never deleted.
plain = os.path.join(tmp, "plain.sock")
with open(plain, "w") as f:
    f.write("not a socket\n")
E = Daemon("unix-file", f"unix://{plain}")
check(not E.start() and E.p.returncode != 0 and "is not a socket" in E.logtext()
      and open(plain).read() == "not a socket\n", "unix: a regular file at the path stops the start, kept",
      verbose=True)

# ---- the same TCP port -----------------------------------------------------
port = free_port()
A = Daemon("tcp-a", f"127.0.0.1:{port}")
check(A.start(), "tcp: the first daemon serves")
job = proved_job(A)
B = Daemon("tcp-b", f"127.0.0.1:{port}")
served = second_refused(B, "tcp", f"listen tcp 127.0.0.1:{port}: address in use (another daemon?)")
n = 20 + rng.randrange(10)
codes = awaited_from_fresh_connections(A, job, n)
check(codes == [SC.OK] * n, f"tcp: AwaitProof of the first daemon's job over {n} new connections: all OK "
      f"({codes.count(SC.OK)} OK, {codes.count(SC.NOT_FOUND)} NOT_FOUND)", verbose=True)
if served:
    check(B.stop() == 0, "tcp: (the second daemon, which served, stopped)")
check(A.stop() == 0, "tcp: the first daemon exits 0")

# ---- the same status_listen port -------------------------------------------
# Its own gRPC socket, the first one's HTTP port: the second daemon says the
# port is in use (it serves gRPC without the status listener); every fresh
# HTTP connection still reaches the first (the one job submitted is its).
http = free_port()
A = Daemon("http-a", f"unix://{tmp}/http-a.sock", keys=f'status_listen = "127.0.0.1:{http}"\n')
check(A.start(), "http: the first daemon serves")
proved_job(A)
B = Daemon("http-b", f"unix://{tmp}/http-b.sock", keys=f'status_listen = "127.0.0.1:{http}"\n')
B.start()
check(f"status_listen 127.0.0.1:{http}: address in use (another daemon?)" in B.logtext(),
      f"http: the second daemon says the status port is in use: {B.logtext()[-600:]!r}", verbose=True)


def jobs_submitted():
    text = urllib.request.urlopen(f"http://127.0.0.1:{http}/metrics", timeout=30).read().decode()
    return next((int(ln.split()[1]) for ln in text.splitlines() if ln.startswith("cuzk_jobs_submitted_total ")),
                None)


n = 20 + rng.randrange(10)
seen = [jobs_submitted() for _ in range(n)]
check(seen == [1] * n, f"http: {n} new HTTP connections all reach the first daemon (1 job): {seen}", verbose=True)
check(B.stop() == 0 and A.stop() == 0, "http: both exit 0")

H.finish(daemons)
