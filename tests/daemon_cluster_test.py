"""Three cuzk daemons sharing one PostgreSQL queue (see daemon_cluster.test.sh),
driven by Python's grpcio; the database is inspected with psql.

- jobs submitted to one daemon are proved by partitions on all three (the
  test prints which host proved which partition) and any daemon answers
  AwaitProof; the same request id through another daemon is the same job;
- bad input through the cluster gets the errors one daemon gives;
- a cancel on one daemon stops the job's partitions on all;
- kill -9 of a daemon holding claims: its jobs still complete from the other
  two, every partition exactly once; restarted, it rejoins and proves again;
- every host makes the same test-kind parameters (a seed from the
  database): an assembled proof verifies against one host's key (`cuzk
  verify`, the public inputs recomputed here);
- GetStatus on any daemon reports the cluster's queue and hosts;
- SIGTERM of a daemon holding claims: it drains (writes back what it holds),
  every job completes exactly once;
- the 2KiB Filecoin kinds whose parameters the fixture made, through the
  cluster, their payloads through a shared payload_dir (files named by
  SHA-256, gone once the jobs are);
- the database frozen (SIGSTOP): AwaitProof(timeout_ms=2000) answers
  UNAVAILABLE by its own deadline, GetStatus says the cluster's queue is
  unknown; thawed, everything goes on;
- kill -9 of a daemon and its restart at once (within a lease): it waits
  for its old incarnation to be seen dead and takes the name.
Seeds are fresh per run (printed; CUZK_SEED replays them)."""
import hashlib
import os
import signal
import subprocess
import sys
import threading
import time

import grpc

CUZK, PROTO_DIR, PARAMS = sys.argv[1], sys.argv[2], sys.argv[3]
PG = os.environ["CUZK_PG"]
PSQL = os.path.join(os.environ["CUZK_PG_BIN"], "psql")
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from grpc_harness import Harness, fil_request  # noqa: E402

H = Harness("daemon_cluster", PROTO_DIR)
rng, tmp, failures = H.rng, H.tmp, H.failures
seed8, rid = H.seed8, H.rid


def check(cond, what):
    H.check(cond, what, verbose=True)


from cuzk.v1 import proving_pb2 as pb  # noqa: E402
from cuzk.v1 import proving_pb2_grpc as pbg  # noqa: E402

S = pb.AwaitProofResponse
OPTS = [("grpc.max_send_message_length", -1), ("grpc.max_receive_message_length", -1),
        ("grpc.use_local_subchannel_pool", 1)]
LEASE_S = 3
daemons = []
H.kill_daemons_on_error(daemons)
SECRET = f"pw-{rng.getrandbits(64):016x}"
PWFILE = os.path.join(tmp, "db-password")
PAYLOADS = os.path.join(tmp, "payloads")  # the "shared storage" every daemon mounts
os.makedirs(PAYLOADS)
with open(PWFILE, "w") as f:
    f.write(SECRET + "\n")


def sql(q):
    r = subprocess.run([PSQL, "-X", "-q", "-At", "-F", "|", "-d", PG, "-c", q], capture_output=True, text=True)
    if r.returncode != 0:
        raise RuntimeError(f"psql: {q}: {r.stderr}")
    return [line.split("|") for line in r.stdout.splitlines() if line]


def run(*args):
    r = subprocess.run([CUZK, *args], cwd=tmp, capture_output=True, text=True)
    if r.returncode != 0:
        raise RuntimeError(f"cuzk {' '.join(args)}: exit {r.returncode}\n{r.stdout}{r.stderr}")
    return r.stdout + r.stderr


class Daemon:
    def __init__(self, name):
        self.name = name
        self.sock = os.path.join(tmp, f"{name}.sock")
        self.log = os.path.join(tmp, f"{name}.log")
        self.conf = os.path.join(tmp, f"{name}.toml")
        # parameters of its own (test kinds are made at start), Filecoin's linked
        self.params = os.path.join(tmp, f"params-{name}")
        os.makedirs(self.params)
        for f in os.listdir(PARAMS):
            if f.startswith("v28-"):
                os.symlink(os.path.join(PARAMS, f), os.path.join(self.params, f))
        with open(self.conf, "w") as f:
            f.write(f'[daemon]\nlisten = "unix://{self.sock}"\nmax_message_size = "64MiB"\nshutdown_grace = "20s"\n'
                    f'[srs]\nparam_cache = "{self.params}"\n'
                    f'preload = ["test-porep", "test-winning"]\n'
                    f'[synthesis]\npartition_workers = 1\n'
                    f'[gpus]\ngpu_workers_per_device = 1\n'
                    f'[cluster]\nconninfo = "{PG}"\nhost = "{name}"\nlease = "{LEASE_S}s"\nslots = 2\n'
                    # the database trusts the socket; the password must still never show
                    f'password_file = "{PWFILE}"\n'
                    # the 2KiB Filecoin requests (kilobytes) through files, the
                    # test kinds' 8-byte seeds in the database
                    f'payload_dir = "{PAYLOADS}"\npayload_threshold = "1KiB"\n')
        self.p = None

    def start(self):
        if self not in daemons:
            daemons.append(self)
        at = os.path.getsize(self.log) if os.path.exists(self.log) else 0
        self.p = subprocess.Popen([CUZK, "daemon", "--config", self.conf, "--test-kinds",
                                   "--test-constraints", "8192", "--test-post-constraints", "256"],
                                  stdout=subprocess.DEVNULL, stderr=open(self.log, "ab"))
        deadline = time.time() + 120
        while time.time() < deadline:
            if self.p.poll() is not None:
                raise RuntimeError(f"{self.name} exited: " + open(self.log).read()[-3000:])
            if "serving on" in open(self.log).read()[at:]:
                self.ch = grpc.insecure_channel(f"unix://{self.sock}", options=OPTS)
                self.st = pbg.ProvingEngineStub(self.ch)
                return self
            time.sleep(0.05)
        raise RuntimeError(f"{self.name} did not start")

    def logtext(self):
        return open(self.log).read() if os.path.exists(self.log) else ""


def porep_req(tag="porep"):
    return pb.SubmitProofRequest(proof_kind=pb.TEST_POREP, request_id=rid(tag), vanilla_proof=seed8())


def await_ok(d, job_id, parts, what, timeout_ms=600000):
    r = d.st.AwaitProof(pb.AwaitProofRequest(job_id=job_id, timeout_ms=timeout_ms), timeout=timeout_ms / 1000 + 30)
    check(r.status == S.COMPLETED and len(r.proof) == 192 * parts,
          f"{what}: {S.Status.Name(r.status)} on {d.name}, {len(r.proof)} bytes {r.error_message}")
    return r


def parts_of(job_id):
    """partition -> (state, proved_by, attempt, expirations, verified) from the database."""
    rows = sql(f"SELECT p.part, p.state, coalesce(p.proved_by, ''), p.attempt, p.expirations, p.verified "
               f"FROM cuzk_partitions p JOIN cuzk_jobs j ON j.seq = p.job_seq WHERE j.id = '{job_id}' ORDER BY p.part")
    return {int(r[0]): (r[1], r[2], int(r[3]), int(r[4]), r[5] == "t") for r in rows}


def show(job_id):
    ps = parts_of(job_id)
    print(f"  {job_id}: " + " ".join(f"p{k}:{v[1] or v[0]}" + (f"(attempt {v[2]})" if v[2] > 1 else "")
                                     for k, v in sorted(ps.items())), flush=True)
    return ps


def wait_for(cond, what, timeout=120):
    until = time.time() + timeout
    while time.time() < until:
        v = cond()
        if v:
            return v
        time.sleep(0.1)
    raise RuntimeError(f"timed out waiting for {what}")


# ---- three daemons, one database -------------------------------------------
A, B, C = Daemon("host-a").start(), Daemon("host-b").start(), Daemon("host-c").start()
live = wait_for(lambda: len(sql(f"SELECT name FROM cuzk_hosts WHERE stopped_at IS NULL AND "
                                f"heartbeat_at > now() - interval '{LEASE_S} seconds'")) == 3, "three hosts")
check(sql("SELECT v FROM cuzk_meta WHERE k = 'schema'") == [["5"]], "the daemons created schema version 5")

# jobs submitted to one daemon each, awaited on another: proved on all three
jobs = []
for i in range(6):
    q = porep_req(f"spread{i}")
    j = [A, B, C][i % 3].st.SubmitProof(q)
    check(j.job_id == q.request_id, f"SubmitProof through {[A, B, C][i % 3].name} stores {j.job_id}")
    jobs.append(q)


# GetStatus on any daemon: the cluster's queue (as its database has it) and hosts
def db_queue():
    rows = sql("SELECT j.kind, count(DISTINCT j.seq), count(*) FILTER (WHERE p.state = 'pending'), "
               "count(*) FILTER (WHERE p.state = 'claimed') FROM cuzk_jobs j "
               "JOIN cuzk_partitions p ON p.job_seq = j.seq WHERE j.state = 'active' GROUP BY j.kind")
    return {r[0]: (int(r[1]), int(r[2]), int(r[3])) for r in rows}


def rpc_queue(st):
    out = {}
    for q in st.cluster_queues:
        a = out.get(q.proof_kind, (0, 0, 0))
        out[q.proof_kind] = (a[0] + q.jobs_pending + q.jobs_in_progress, a[1] + q.partitions_pending,
                             a[2] + q.partitions_claimed)
    return out


for _ in range(200):  # a moment when no claim or completion lands during the call
    before = db_queue()
    st = B.st.GetStatus(pb.GetStatusRequest())
    if db_queue() == before:
        break
else:
    raise RuntimeError("the queue never held still for one GetStatus")
print(f"GetStatus: {rpc_queue(st)}; database: {before}", flush=True)
check(before.get("test-porep", (0,))[0] >= 1 and rpc_queue(st) == before,
      "GetStatus's cluster_queues are the database's active jobs and partitions per kind")
check(all(q.priority == pb.NORMAL for q in st.cluster_queues if q.proof_kind == "test-porep"),
      "test-porep jobs are queued at NORMAL")
qs = {q.proof_kind: q.pending + q.in_progress for q in st.queues}
check(qs.get("test-porep") == before["test-porep"][0],
      f"`queues` (what curio's back-pressure sums) counts the cluster's jobs: {qs.get('test-porep')}")
hosts = {h.name: h for h in st.cluster_hosts}
check(set(hosts) == {"host-a", "host-b", "host-c"} and all(h.alive and h.slots == 2 for h in hosts.values()),
      f"GetStatus lists the three live hosts: {sorted(hosts)}")
win = pb.SubmitProofRequest(proof_kind=pb.TEST_WINNING_POST, request_id=rid("win"), vanilla_proof=seed8())
r = C.st.Prove(pb.ProveRequest(submit=win), timeout=600).result
check(r.status == S.COMPLETED and len(r.proof) == 192, f"Prove test-winning through host-c: {S.Status.Name(r.status)}")
proofs = {}
provers = set()
print("which host proved which partition:", flush=True)
for i, q in enumerate(jobs):
    r = await_ok([B, C, A][i % 3], q.request_id, 10, f"job {q.request_id} awaited on another daemon")
    proofs[q.request_id] = r.proof
    ps = show(q.request_id)
    check(len(ps) == 10 and all(v[0] == "done" and v[4] for v in ps.values()),
          f"{q.request_id}: 10 partitions done and verified")
    provers |= {v[1] for v in ps.values()}
check(provers == {"host-a", "host-b", "host-c"}, f"partitions were proved on all three hosts: {sorted(provers)}")
# the proof is the partition results in order, as stored
q = jobs[0]
stored = b"".join(bytes.fromhex(row[0]) for row in sql(
    f"SELECT encode(p.result, 'hex') FROM cuzk_partitions p JOIN cuzk_jobs j ON j.seq = p.job_seq "
    f"WHERE j.id = '{q.request_id}' ORDER BY p.part"))
check(stored == proofs[q.request_id], "AwaitProof's proof is the stored partition results in partition order")

# one parameter set for the test kinds on every host: the same files, and the
# assembled proof (partitions from all three hosts) verifies against host-a's key
pfiles = [os.path.join(d.params, "cuzk-test-porep-8192.params") for d in (A, B, C)]
digests = {hashlib.sha256(open(f, "rb").read()).hexdigest() for f in pfiles}
check(len(digests) == 1, f"the three hosts' test-porep parameters are one set ({len(digests)} distinct)")


def vk_of(params_file):
    """The verifying key: the prefix of a bellperson .params file (alpha, beta
    G1, beta G2, gamma G2, delta G1, delta G2 uncompressed, then a u32 BE count
    of IC points, 96 bytes each)."""
    b = open(params_file, "rb").read()
    n_ic = int.from_bytes(b[864:868], "big")
    return b[:868 + 96 * n_ic]


def mix64(z):
    z = ((z ^ (z >> 30)) * 0xbf58476d1ce4e5b9) & (2**64 - 1)
    z = ((z ^ (z >> 27)) * 0x94d049bb133111eb) & (2**64 - 1)
    return z ^ (z >> 31)


def failing_partitions(proof, seed8, vk_file):
    """The partitions that do not verify against the key, each checked by
    `cuzk verify` with its public inputs recomputed from the partition's
    witness seed (the test kinds' rule: a mix of the request's seed and the
    partition number)."""
    seed = int.from_bytes(seed8, "little")
    bad = []
    for k in range(len(proof) // 192):
        pf = os.path.join(tmp, f"part{k}.proof")
        with open(pf, "wb") as f:
            f.write(proof[192 * k:192 * (k + 1)])
        ws = mix64((seed + 0x9e3779b97f4a7c15 * (k + 1)) & (2**64 - 1))
        r = subprocess.run([CUZK, "verify", "--constraints", "8192", "--inputs", "4", "--vk", vk_file,
                            "--proof", pf, "--seed", str(ws)], cwd=tmp, capture_output=True, text=True)
        if r.returncode != 0:
            bad.append(k)
    return bad


VK = os.path.join(tmp, "host-a-test-porep.vk")
with open(VK, "wb") as f:
    f.write(vk_of(pfiles[0]))
q = jobs[0]
bad = failing_partitions(proofs[q.request_id], q.vanilla_proof, VK)
check(not bad, f"{q.request_id}: the assembled proof verifies against host-a's key, partition by partition "
               f"(failing: {bad})")
# the check can fail: another job's partition in its place does not verify
k = rng.randrange(10)
wrong = bytearray(proofs[q.request_id])
wrong[192 * k:192 * (k + 1)] = proofs[jobs[1].request_id][192 * k:192 * (k + 1)]
check(failing_partitions(bytes(wrong), q.vanilla_proof, VK) == [k], f"a foreign partition {k} is caught")

# the same request id through another daemon: the same job, the same proof
j = C.st.SubmitProof(jobs[0])
r = C.st.AwaitProof(pb.AwaitProofRequest(job_id=j.job_id, timeout_ms=10000))
check(j.job_id == jobs[0].request_id and r.proof == proofs[jobs[0].request_id],
      "the same request through another daemon is the same job (same proof)")
check(sql(f"SELECT count(*) FROM cuzk_jobs WHERE id = '{jobs[0].request_id}'") == [["1"]], "stored once")

# ---- bad input through the cluster: the errors of one daemon ---------------
other = pb.SubmitProofRequest()
other.CopyFrom(jobs[1])
other.vanilla_proof = bytes(b ^ 1 for b in other.vanilla_proof)
try:
    B.st.SubmitProof(other)
    check(False, "the same id with other inputs is refused")
except grpc.RpcError as e:
    check(e.code() == grpc.StatusCode.INVALID_ARGUMENT and "other inputs" in e.details(),
          f"the same id with other inputs: {e.code()} {e.details()}")
for what, req, code, text in [
        ("5-byte seed", pb.SubmitProofRequest(proof_kind=pb.TEST_POREP, request_id=rid("bad"), vanilla_proof=b"12345"),
         grpc.StatusCode.INVALID_ARGUMENT, "8-byte"),
        ("garbage WindowPoSt vanilla proofs",
         pb.SubmitProofRequest(proof_kind=pb.WINDOW_POST_PARTITION, sector_size=2048, registered_proof=5,
                               request_id=rid("bad"), randomness=b"\1" * 32, vanilla_proofs=[b"\0" * 17]),
         grpc.StatusCode.INVALID_ARGUMENT, "vanilla")]:
    try:
        A.st.SubmitProof(req)
        check(False, f"{what} is refused")
    except grpc.RpcError as e:
        check(e.code() == code and text in e.details(), f"{what}: {e.code()} {e.details()}")
        check(sql(f"SELECT count(*) FROM cuzk_jobs WHERE id = '{req.request_id}'") == [["0"]], f"{what}: not stored")
try:
    B.st.AwaitProof(pb.AwaitProofRequest(job_id="no-such-job", timeout_ms=10))
    check(False, "an unknown job is NOT_FOUND")
except grpc.RpcError as e:
    check(e.code() == grpc.StatusCode.NOT_FOUND, f"an unknown job: {e.code()} {e.details()}")

# a wait that runs out before the job is done: TIMEOUT, the job going on (not an error)
q = porep_req("short-wait")
A.st.SubmitProof(q)
r = B.st.AwaitProof(pb.AwaitProofRequest(job_id=q.request_id, timeout_ms=50), timeout=30)
check(r.status == S.TIMEOUT and "goes on" in r.error_message,
      f"AwaitProof(timeout_ms=50) on a job not done yet: {S.Status.Name(r.status)} {r.error_message}")
await_ok(C, q.request_id, 10, f"{q.request_id} after a short wait ran out")

# ---- cancel on one daemon stops the job everywhere --------------------------
q = porep_req("cancel")
A.st.SubmitProof(q)
wait_for(lambda: sql(f"SELECT count(*) FROM cuzk_partitions p JOIN cuzk_jobs j ON j.seq = p.job_seq "
                     f"WHERE j.id = '{q.request_id}' AND p.state = 'claimed'") != [["0"]], "claims of the job")
c = B.st.CancelProof(pb.CancelProofRequest(job_id=q.request_id))
check(c.was_running, "CancelProof on another daemon: was running")
r = C.st.AwaitProof(pb.AwaitProofRequest(job_id=q.request_id, timeout_ms=10000))
check(r.status == S.CANCELLED, f"AwaitProof on a third daemon: {S.Status.Name(r.status)}")
ps = parts_of(q.request_id)
check(all(v[0] in ("cancelled", "done") for v in ps.values()), "no partition of the cancelled job is pending or held")
# each partition held at the cancel: its holder stopped it at its next
# heartbeat ("claim lost"), or its result came first and was discarded
held_then = [k for k, v in ps.items() if v[0] == "cancelled" and v[2] >= 1]


def holders_let_go():
    text = "".join(d.logtext() for d in (A, B, C)).splitlines()
    return all(any(f"job {q.request_id} partition {k}" in line and ("claim lost" in line or "discarded" in line)
                   for line in text) for k in held_then)


check(held_then, f"partitions {held_then} of the cancelled job were held when it was cancelled")
wait_for(holders_let_go, "the holders of the cancelled partitions letting go")
check(True, "every holder of a cancelled partition stopped it or had its result discarded")
try:
    A.st.CancelProof(pb.CancelProofRequest(job_id=q.request_id))
    check(False, "cancelling a cancelled job is refused")
except grpc.RpcError as e:
    check(e.code() == grpc.StatusCode.FAILED_PRECONDITION, f"cancel again: {e.code()} {e.details()}")

# ---- kill -9 of a daemon holding claims --------------------------------------
kjobs = [porep_req(f"kill{i}") for i in range(3)]
for q in kjobs:
    A.st.SubmitProof(q)
held = wait_for(lambda: sql("SELECT count(*) FROM cuzk_partitions WHERE claimed_by = 'host-b' "
                            "AND state = 'claimed'") != [["0"]], "host-b holding claims")
B.p.send_signal(signal.SIGKILL)
B.p.wait()
print(f"killed host-b (-9) while it held {sql('SELECT count(*) FROM cuzk_partitions WHERE claimed_by = ' + chr(39) + 'host-b' + chr(39) + ' AND state = ' + chr(39) + 'claimed' + chr(39))[0][0]} claims", flush=True)
expired = 0
for q in kjobs:
    await_ok(C, q.request_id, 10, f"{q.request_id} completes without host-b")
    ps = show(q.request_id)
    check(len(ps) == 10 and all(v[0] == "done" and v[4] and v[1] in ("host-a", "host-b", "host-c")
                                for v in ps.values()), f"{q.request_id}: every partition done once, verified")
    expired += sum(v[3] for v in ps.values())
    row = sql(f"SELECT parts_done, num_partitions, state FROM cuzk_jobs WHERE id = '{q.request_id}'")
    check(row == [["10", "10", "done"]], f"{q.request_id}: completed once, 10 of 10 partitions counted: {row}")
check(expired >= 1, f"host-b's leases ran out and its partitions were proved by the others ({expired} expirations)")
check(any("lease(s) ran out" in d.logtext() for d in (A, C)), "a surviving daemon logged the expired leases")

# restarted, it takes its name back and proves again
B.start()
before = sql("SELECT claims FROM cuzk_hosts WHERE name = 'host-b'")
rj = [porep_req(f"rejoin{i}") for i in range(3)]
for q in rj:
    B.st.SubmitProof(q)
for q in rj:
    await_ok(A, q.request_id, 10, f"{q.request_id} (submitted to the restarted host-b)")
    show(q.request_id)
n_b = sum(1 for q in rj for v in parts_of(q.request_id).values() if v[1] == "host-b")
check(n_b > 0, f"the restarted host-b proved {n_b} partitions")
row = sql("SELECT stopped_at IS NULL, heartbeat_at > now() - interval '3 seconds' FROM cuzk_hosts WHERE name = 'host-b'")
check(row == [["t", "t"]], f"host-b is a live member again: {row} (claims before {before})")

# ---- the database restarted under load -----------------------------------------
# the daemons reconnect; awaits in flight ride it out; no job lost, none completed twice
rs = [porep_req(f"dbrestart{i}") for i in range(3)]
for i, q in enumerate(rs):
    [A, B, C][i].st.SubmitProof(q)
wait_for(lambda: int(sql("SELECT count(*) FROM cuzk_partitions p JOIN cuzk_jobs j ON j.seq = p.job_seq "
                         "WHERE j.id LIKE 'r-dbrestart%' AND p.state = 'done'")[0][0]) >= 2, "some partitions done")
futures = [[C, A, B][i].st.AwaitProof.future(pb.AwaitProofRequest(job_id=q.request_id, timeout_ms=600000),
                                             timeout=630) for i, q in enumerate(rs)]
r = subprocess.run(["bash", os.path.join(os.path.dirname(os.path.abspath(__file__)), "pg.sh"), "restart",
                    os.environ["CUZK_PG_HOST"]], capture_output=True, text=True)
check(r.returncode == 0, f"the database restarted {r.stderr}")
for q, f in zip(rs, futures):
    a = f.result()
    check(a.status == S.COMPLETED and len(a.proof) == 1920,
          f"{q.request_id}: awaited across the restart: {S.Status.Name(a.status)} {a.error_message}")
    ps = show(q.request_id)
    row = sql(f"SELECT parts_done, num_partitions, state FROM cuzk_jobs WHERE id = '{q.request_id}'")
    check(row == [["10", "10", "done"]] and all(v[0] == "done" and v[4] for v in ps.values()),
          f"{q.request_id}: completed once, every partition done and verified: {row}")
check(sum("database" in line and ("server closed" in line or "terminat" in line or "connect" in line)
          for d in (A, B, C) for line in d.logtext().splitlines()) > 0, "the daemons saw the database go away")

# ---- the database frozen: calls keep their deadlines --------------------------------
def pg_children(pm):
    """The live children of the test server's postmaster pm."""
    kids = []
    for d in os.listdir("/proc"):
        if d.isdigit():
            try:
                with open(f"/proc/{d}/stat") as f:
                    if int(f.read().rsplit(")", 1)[1].split()[1]) == pm:
                        kids.append(int(d))
            except (OSError, ValueError, IndexError):
                pass
    return kids


def signal_gone_ok(pid, sig):
    """Signals pid; False when it has exited (a backend whose client left)."""
    try:
        os.kill(pid, sig)
        return True
    except ProcessLookupError:
        return False


def freeze_pg():
    """Stops the test server: the postmaster first (it forks no backend
    after), then its children, listed again until none is left running. A
    backend that exits between its listing and its signal (a connection just
    closed, an autovacuum worker done) needs no stopping. The stopped pids."""
    with open(os.path.join(os.environ["CUZK_PG_HOST"], "data", "postmaster.pid")) as f:
        pm = int(f.readline())
    os.kill(pm, signal.SIGSTOP)
    stopped, seen = [pm], {pm}
    while True:
        new = [k for k in pg_children(pm) if k not in seen]
        if not new:
            return stopped
        seen.update(new)
        stopped += [k for k in new if signal_gone_ok(k, signal.SIGSTOP)]


frozen = freeze_pg()
try:
    t0 = time.time()
    try:
        r = A.st.AwaitProof(pb.AwaitProofRequest(job_id=rs[0].request_id, timeout_ms=2000), timeout=40)
        code, what = grpc.StatusCode.OK, S.Status.Name(r.status)
    except grpc.RpcError as e:
        code, what = e.code(), e.details()
    took = time.time() - t0
    print(f"frozen database: AwaitProof(timeout_ms=2000) answered {code} after {took:.1f} s: {what}", flush=True)
    check(code == grpc.StatusCode.UNAVAILABLE and "unknown" in what,
          "AwaitProof with the database frozen: UNAVAILABLE (its state unknown), not the client's deadline")
    try:
        st = B.st.GetStatus(pb.GetStatusRequest(), timeout=30)
        print(f"frozen database: GetStatus cluster_error: {st.cluster_error!r}", flush=True)
        check(st.cluster_error != "" and not st.cluster_queues,
              "GetStatus with the database frozen says the cluster's queue is unknown")
    except grpc.RpcError as e:
        check(False, f"GetStatus with the database frozen: {e.code()} {e.details()}")
finally:
    for p in frozen:
        signal_gone_ok(p, signal.SIGCONT)
st = wait_for(lambda: (lambda s: s if not s.cluster_error else None)(B.st.GetStatus(pb.GetStatusRequest())),
              "GetStatus with the cluster's queue again", timeout=60)
check(st.cluster_error == "" and {h.name for h in st.cluster_hosts} >= {"host-a", "host-b", "host-c"},
      "thawed: GetStatus has the cluster again")

# ---- SIGTERM of a daemon holding claims: it drains ----------------------------------
dj = [porep_req(f"drain{i}") for i in range(3)]
for q in dj:
    A.st.SubmitProof(q)
wait_for(lambda: sql("SELECT count(*) FROM cuzk_partitions WHERE claimed_by = 'host-c' AND state = 'claimed'")
         != [["0"]], "host-c holding claims")
held_c = sql("SELECT j.id, p.part FROM cuzk_partitions p JOIN cuzk_jobs j ON j.seq = p.job_seq "
             "WHERE p.claimed_by = 'host-c' AND p.state = 'claimed'")
C.p.send_signal(signal.SIGTERM)
check(C.p.wait(120) == 0, f"host-c drained and stopped cleanly, holding {len(held_c)} partitions at SIGTERM")
for q in dj:
    await_ok(A, q.request_id, 10, f"{q.request_id} (host-c drained during it)")
    ps = show(q.request_id)
    row = sql(f"SELECT parts_done, num_partitions, state FROM cuzk_jobs WHERE id = '{q.request_id}'")
    check(row == [["10", "10", "done"]] and all(v[0] == "done" and v[4] for v in ps.values()),
          f"{q.request_id}: completed once, every partition done and verified: {row}")
back = [(j, k) for j, k in held_c if parts_of(j)[int(k)][1] == "host-c"]
print(f"  of host-c's {len(held_c)} partitions at SIGTERM, {len(back)} written back by it while draining, the "
      f"others proved by the rest", flush=True)
check(back, "host-c finished and wrote back partitions it held when told to stop")
check(sql("SELECT stopped_at IS NOT NULL FROM cuzk_hosts WHERE name = 'host-c'") == [["t"]] and
      sql("SELECT count(*) FROM cuzk_partitions WHERE claimed_by = 'host-c' AND state = 'claimed'") == [["0"]],
      "host-c left the cluster marked stopped, holding nothing")
C.start()

# ---- the 2KiB Filecoin kinds the fixture made ---------------------------------
stamp = {"window-post": "W", "winning-post": "WIN", "snap": "U", "porep": "S1"}
have = [k for k in stamp if os.path.exists(os.path.join(PARAMS, f".done-{k}-2KiB"))]
print(f"Filecoin kinds with parameters: {have}", flush=True)
if have:
    miner = 1000 + rng.randrange(1 << 20)
    for i in range(2):
        run("gen-vanilla", "porep", "--sector-size", "2KiB", "--out", f"S{i}", "--seed", str(rng.getrandbits(32)),
            "--miner-id", str(miner), "--sector-id", str(rng.randrange(1, 1 << 30)), "--threads", "1")
    ps_seed = str(rng.getrandbits(32))
    if "window-post" in have:
        run("gen-vanilla", "window-post", "--sector", "S0", "--sector", "S1", "--seed", ps_seed, "--out", "W")
    if "winning-post" in have:
        run("gen-vanilla", "winning-post", "--sector", "S0", "--sector", "S1", "--seed", ps_seed, "--out", "WIN")
    if "snap" in have:
        run("gen-vanilla", "snap", "--sector", "S1", "--seed", str(rng.getrandbits(32)), "--out", "U")
    fil = []
    for k in have:
        q = fil_request(pb, os.path.join(tmp, stamp[k]), rid(k))
        [A, B, C][len(fil) % 3].st.SubmitProof(q)
        fil.append((k, q))
    for i, (k, q) in enumerate(fil):
        n = sql(f"SELECT num_partitions FROM cuzk_jobs WHERE id = '{q.request_id}'")
        parts = int(n[0][0]) if n else 0
        await_ok([B, C, A][i % 3], q.request_id, parts, f"Filecoin {k} 2KiB through the cluster")
        show(q.request_id)
        row = sql(f"SELECT payload_file, length(payload), payload_len FROM cuzk_jobs WHERE id = '{q.request_id}'")
        check(row and len(row[0][0]) == 64 and row[0][1] == "0" and int(row[0][2]) > 1024,
              f"Filecoin {k}: its {row[0][2] if row else '?'}-byte payload went through payload_dir, not the row")
    # files of finished jobs are removed by the host that completed them
    wait_for(lambda: not os.listdir(PAYLOADS), "the payload files of finished jobs removed", timeout=30)
    check(sql("SELECT count(*) FROM cuzk_payloads") == [["0"]], "no payload file left, none recorded")

# ---- metrics ----------------------------------------------------------------------
m = A.st.GetMetrics(pb.GetMetricsRequest()).prometheus_text
claims = [float(line.split()[1]) for line in m.splitlines() if line.startswith("cuzk_cluster_claims_total ")]
check(claims and claims[0] >= 1, f"metrics: cuzk_cluster_claims_total of host-a {claims}")

# ---- kill -9 and a restart at once: the name is waited for, not refused ----------
# the killed incarnation's last heartbeat stays recent until the restarted one
# has asked for the name (as a daemon killed just after heart-beating would
# be, however long the restart takes to get there)
old_inc = sql("SELECT incarnation FROM cuzk_hosts WHERE name = 'host-a'")[0][0]
A.p.send_signal(signal.SIGKILL)
A.p.wait()
log_at = os.path.getsize(A.log)


def fresh_heartbeat():
    until = time.time() + 120
    while time.time() < until and "waiting up to one lease" not in open(A.log).read()[log_at:]:
        sql(f"UPDATE cuzk_hosts SET heartbeat_at = now() WHERE name = 'host-a' AND incarnation = {old_inc}")
        time.sleep(0.2)


faker = threading.Thread(target=fresh_heartbeat)
faker.start()
try:
    A.start()  # raises if the daemon exits instead of serving
finally:
    faker.join()
check("waiting up to one lease" in A.logtext(),
      "host-a restarted right after kill -9 found its old incarnation's name held, waited and took it")
wait_for(lambda: sql("SELECT stopped_at IS NULL AND heartbeat_at > now() - interval '3 seconds' FROM cuzk_hosts "
                     "WHERE name = 'host-a'") == [["t"]], "host-a live again")

# ---- status, metrics, clean stop -------------------------------------------------
for d in (A, B, C):
    d.p.send_signal(signal.SIGTERM)
for d in (A, B, C):
    check(d.p.wait(60) == 0, f"{d.name} stopped cleanly")
check(sql("SELECT count(*) FROM cuzk_hosts WHERE stopped_at IS NULL") == [["0"]], "every host marked stopped")
check(sql("SELECT count(*) FROM cuzk_partitions WHERE state = 'claimed'") == [["0"]], "no claim left behind")
leaked = [line for d in (A, B, C) for line in d.logtext().splitlines() if SECRET in line]
check(not leaked, "no password in any log")

print(f"daemon_cluster: {H.checks - len(failures)}/{H.checks} checks passed", flush=True)
sys.exit(1 if failures else 0)
