"""What the daemon takes in (see daemon_intake.test.sh). Binds unix sockets
and a loopback HTTP port. Limits, ids, digests and sizes are fresh per run:
the seed is printed, CUZK_SEED replays it. No check depends on timing."""
import os
import subprocess
import sys
import threading
import urllib.request

import grpc

CUZK, PROTO_DIR = sys.argv[1], sys.argv[2]
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from grpc_harness import Harness, TestDaemon, code_of, free_port, wait_for_log  # noqa: E402

H = Harness("daemon_intake", PROTO_DIR)
rng, tmp, check = H.rng, H.tmp, H.check
from cuzk.v1 import proving_pb2 as pb  # noqa: E402
from cuzk.v1 import proving_pb2_grpc as pbg  # noqa: E402

S = pb.AwaitProofResponse
OK, BAD, FULL = grpc.StatusCode.OK, grpc.StatusCode.INVALID_ARGUMENT, grpc.StatusCode.RESOURCE_EXHAUSTED
daemons = []
H.kill_daemons_on_error(daemons)


class Daemon(TestDaemon):
    """Test kinds on a unix socket, /metrics on a free port, `keys` more [daemon] TOML."""

    def __init__(self, name, keys=""):
        self.port = free_port()
        super().__init__(CUZK, tmp, daemons, name, f"unix://{tmp}/{name}.sock",
                         keys=f'status_listen = "127.0.0.1:{self.port}"\n{keys}', workers=1)

    def start(self):
        if not self.launch():
            raise RuntimeError(f"{self.name} exited: " + self.logtext())
        self.ch = grpc.insecure_channel(self.listen, options=[("grpc.max_send_message_length", 64 << 20)])
        self.stub = pbg.ProvingEngineStub(self.ch)
        return self

    def metric(self, name):
        text = urllib.request.urlopen(f"http://127.0.0.1:{self.port}/metrics", timeout=30).read().decode()
        return next((float(ln.split()[-1]) for ln in text.splitlines() if ln.startswith(name + " ")), None)

    def stop(self):
        self.p.terminate()
        self.p.wait(120)
        self.ch.close()


def uvarint(v):
    out = b""
    while True:
        b, v = v & 0x7f, v >> 7
        out += bytes([b | (0x80 if v else 0)])
        if not v:
            return out


def cid(codec, mh, digest):
    return b"\x01" + uvarint(codec) + uvarint(mh) + uvarint(32) + digest


SEALED, UNSEALED = (0xf102, 0xb401), (0xf101, 0x1012)


def queue_limit():
    """max_queued_jobs = L: L jobs whose parameter load blocks (the file a
    FIFO) stay queued; one more is refused naming the limit, a repeat of a
    queued one is not (the same job); once they finished, jobs are taken again."""
    limit = rng.randint(2, 5)
    d = Daemon("queue", keys=f"max_queued_jobs = {limit}\n").start()
    path = os.path.join(tmp, "queue-params", "cuzk-test-porep-512.params")
    good = open(path, "rb").read()
    os.remove(path)
    os.mkfifo(path)
    held = [H.submit_req(pb.TEST_POREP, request_id=H.rid("held")) for _ in range(limit)]
    for q in held:
        code, msg = code_of(d.stub.SubmitProof, q)
        check(code == OK, f"job {q.request_id} within the limit of {limit}: {code} {msg}")
    for kind in (pb.TEST_POREP, pb.TEST_WINNING_POST):
        code, msg = code_of(d.stub.SubmitProof, H.submit_req(kind))
        check(code == FULL and f"daemon.max_queued_jobs = {limit}" in msg and f"{limit} jobs queued or running" in msg,
              f"job {limit + 1} (kind {kind}): RESOURCE_EXHAUSTED naming the limit, got {code} {msg!r}", True)
    code, msg = code_of(d.stub.SubmitProof, held[rng.randrange(limit)])
    check(code == OK, f"a queued job submitted again is the same job, not refused: {code} {msg}")
    check(d.metric("cuzk_max_queued_jobs") == limit and d.metric("cuzk_jobs_queue_full_total") == 2,
          "cuzk_max_queued_jobs and cuzk_jobs_queue_full_total say the limit and the 2 refusals")
    fd = os.open(path, os.O_RDWR)  # a writer: the blocked load reads an empty file and fails
    with open(path + ".new", "wb") as f:
        f.write(good)
    os.replace(path + ".new", path)
    os.close(fd)
    for q in held:
        r = d.stub.AwaitProof(pb.AwaitProofRequest(job_id=q.request_id), timeout=120)
        # the load that was blocked fails; jobs that waited on it may load the good file after
        check(r.status in (S.FAILED, S.COMPLETED), f"held job {q.request_id} finished: {r.status} {r.error_message}")
    again = H.submit_req(pb.TEST_WINNING_POST)
    code, msg = code_of(d.stub.SubmitProof, again)
    r = d.stub.AwaitProof(pb.AwaitProofRequest(job_id=again.request_id), timeout=120) if code == OK else None
    check(r is not None and r.status == S.COMPLETED, f"the queue drained: a new job taken and proved ({code} {msg})")
    d.stop()


def request_ids(d):
    """Two ids equal up to a NUL must not name one job: refused, for every
    string field (AwaitProof's job_id too)."""
    tail = f"{rng.getrandbits(32):08x}"
    for rid in (f"nul\0one-{tail}", f"nul\0two-{tail}", f"\0{tail}"):
        code, msg = code_of(d.stub.SubmitProof, H.submit_req(request_id=rid))
        check(code == BAD and "request_id holds a NUL byte" in msg, f"SubmitProof id {rid!r}: {code} {msg!r}", True)
    code, msg = code_of(d.stub.Prove, pb.ProveRequest(submit=H.submit_req(request_id=f"p\0{tail}")))
    check(code == BAD and "request_id holds a NUL byte" in msg, f"Prove's submit.request_id with a NUL: {code} {msg!r}")
    code, msg = code_of(d.stub.AwaitProof, pb.AwaitProofRequest(job_id=f"nul\0{tail}"))
    check(code == BAD and "job_id holds a NUL byte" in msg, f"AwaitProof job_id with a NUL: {code} {msg!r}")
    code, _ = code_of(d.stub.SubmitProof, H.submit_req(request_id=f"nul-{tail}"))
    check(code == OK, "the same id without the NUL is taken")


def commitments(d):
    """SnapDeals commitments as CIDs: comm_r_old and comm_r_new must be sealed
    commitments' CIDs, comm_d_new an unsealed one's; the other kind is refused
    naming the field and what the CID is. Right kinds pass these checks (the
    test daemon then has no snap-2k kind: UNIMPLEMENTED)."""
    def digest():
        b = bytearray(rng.getrandbits(256).to_bytes(32, "little"))
        b[31] &= 0x1f  # below the BLS12-381 scalar modulus
        return bytes(b)
    fields = {"comm_r_old": SEALED, "comm_r_new": SEALED, "comm_d_new": UNSEALED}

    def snap(**comms):
        return pb.SubmitProofRequest(proof_kind=pb.SNAP_DEALS_UPDATE, sector_size=2048, registered_proof=5,
                                     request_id=H.rid("snap"), vanilla_proofs=[b"x"], **comms)
    right = {f: cid(*k, digest()) for f, k in fields.items()}
    code, msg = code_of(d.stub.SubmitProof, snap(**right))
    check(code == grpc.StatusCode.UNIMPLEMENTED, f"every CID of its kind: past the checks, {code} {msg!r}")
    for f, k in fields.items():
        other = UNSEALED if k == SEALED else SEALED
        code, msg = code_of(d.stub.SubmitProof, snap(**dict(right, **{f: cid(*other, digest())})))
        said = "unsealed" if other == UNSEALED else "a sealed"
        check(code == BAD and msg.startswith(f"{f}: the CID of") and said in msg,
              f"{f} given the other kind's CID: {code} {msg!r}", True)
        mixed = cid(k[0], other[1], digest())  # its codec with the other's multihash
        code, msg = code_of(d.stub.SubmitProof, snap(**dict(right, **{f: mixed})))
        check(code == BAD and msg.startswith(f"{f}: a CID with codec") and "not a Filecoin commitment's" in msg,
              f"{f} with a codec and multihash that do not pair: {code} {msg!r}")


def oversize():
    """Messages over max_message_size: gRPC answers RESOURCE_EXHAUSTED
    itself; the daemon logs each and counts it. A client that leaves before
    sending its message is no such refusal."""
    d = Daemon("oversize", keys='max_message_size = "1MiB"\n').start()
    n = rng.randint(1, 3)
    for i in range(n):
        size = (1 << 20) + rng.randint(1, 2 << 20)
        code, _ = code_of(d.stub.SubmitProof, H.submit_req(vanilla_proof=os.urandom(size)))
        check(code == FULL, f"a {size}-byte SubmitProof: RESOURCE_EXHAUSTED, got {code}")
    gate = threading.Event()

    def never():
        gate.wait(60)
        yield b""
    call = d.ch.stream_stream("/grpc.reflection.v1alpha.ServerReflection/ServerReflectionInfo")(never())
    call.cancel()
    gate.set()
    line = "RESOURCE_EXHAUSTED: request message larger than daemon.max_message_size = 1048576 bytes"
    wait_for_log(d.p, lambda: d.logtext() if d.logtext().count(line) >= n else "", line, d.name)
    check(d.logtext().count(line) == n, f"{n} oversize messages logged, saw {d.logtext().count(line)}")
    check(d.metric("cuzk_rpc_oversize_rejected_total") == n, f"cuzk_rpc_oversize_rejected_total = {n}")
    key = 'cuzk_rpc_requests_total{method="SubmitProof",code="RESOURCE_EXHAUSTED"}'
    check(d.metric(key) == n, f"{key} counts them: {d.metric(key)}")
    d.stop()


def check_config():
    """A [cluster] conninfo with a password: --check-config refuses it with the
    message the daemon's start gives, and neither shows the password."""
    secret = f"pw{rng.getrandbits(40):x}"
    conf = os.path.join(tmp, "cluster.toml")
    with open(conf, "w") as f:
        f.write(f'[daemon]\nlisten = "unix://{tmp}/cluster.sock"\n[srs]\nparam_cache = "{tmp}/cluster-params"\n'
                f'[cluster]\nconninfo = "host=/nonexistent dbname=cuzk password={secret}"\n')
    want = "cluster.conninfo carries a password"
    chk = subprocess.run([CUZK, "daemon", "--config", conf, "--check-config"], capture_output=True, text=True,
                         timeout=120)
    run = subprocess.run([CUZK, "daemon", "--config", conf, "--test-kinds"], capture_output=True, text=True,
                         timeout=120)
    check(chk.returncode != 0 and want in chk.stderr, f"--check-config refuses it: {chk.returncode} {chk.stdout}"
          f"{chk.stderr}", True)
    check(run.returncode != 0 and want in run.stderr, f"the daemon refuses it: {run.returncode} {run.stderr[-300:]}")
    check(secret not in chk.stdout + chk.stderr + run.stdout + run.stderr, "the password is shown nowhere")


check_config()
queue_limit()
base = Daemon("base").start()
request_ids(base)
commitments(base)
base.stop()
oversize()
H.finish(daemons)
