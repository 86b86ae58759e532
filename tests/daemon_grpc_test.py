"""cuzk daemon over gRPC, driven by Python's grpcio (see daemon_grpc.test.sh).

Binds only unix sockets and 127.0.0.1. Witness seeds are fresh per run (the
seed is printed; CUZK_SEED replays it)."""
import re
import os
import signal
import socket
import stat
import subprocess
import sys
import time
import urllib.request

import grpc

CUZK, PROTO_DIR = sys.argv[1], sys.argv[2]
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from grpc_harness import Harness, code_of, free_port  # noqa: E402

H = Harness("daemon_grpc", PROTO_DIR)
seed, rng, tmp, failures = H.seed, H.rng, H.tmp, H.failures
check = H.check
from cuzk.v1 import proving_pb2 as pb  # noqa: E402
from cuzk.v1 import proving_pb2_grpc as pbg  # noqa: E402

S = pb.AwaitProofResponse
PARAMS = os.path.join(tmp, "params")
# A local subchannel pool: a channel made after a restart must not reuse the
# dead connection of an earlier channel to the same socket path.
OPTS = [("grpc.max_send_message_length", -1), ("grpc.max_receive_message_length", -1),
        ("grpc.use_local_subchannel_pool", 1)]
daemons = []

H.kill_daemons_on_error(daemons)


class Daemon:
    def __init__(self, name, listen, extra="", http=None, fmt="text"):
        self.name, self.listen = name, listen
        self.conf = os.path.join(tmp, f"{name}.toml")
        self.log = os.path.join(tmp, f"{name}.log")
        self.http, self.fmt = http, fmt
        self.write_conf(extra)

    def write_conf(self, extra="", level="info"):
        with open(self.conf, "w") as f:
            f.write(f'[daemon]\nlisten = "{self.listen}"\nmax_message_size = "64MiB"\n')
            if self.http:
                f.write(f'status_listen = "127.0.0.1:{self.http}"\n')
            f.write(extra)
            # [srs] preload: parameters resident before READY
            f.write(f'[srs]\nparam_cache = "{PARAMS}"\n'
                    f'preload = ["test-porep", "test-window", "test-winning"]\n'
                    f'[synthesis]\npartition_workers = 2\n'
                    f'[logging]\nlevel = "{level}"\nformat = "{self.fmt}"\n')

    def start(self, env=None):
        if self not in daemons:
            daemons.append(self)
        start_at = os.path.getsize(self.log) if os.path.exists(self.log) else 0
        self.p = subprocess.Popen([CUZK, "daemon", "--config", self.conf, "--test-kinds",
                                   "--test-constraints", "512", "--test-post-constraints", "256"],
                                  stdout=subprocess.DEVNULL, stderr=open(self.log, "ab"),
                                  env=dict(os.environ, **(env or {})))
        deadline = time.time() + 60
        while time.time() < deadline:
            if self.p.poll() is not None:
                raise RuntimeError(f"{self.name} exited: " + open(self.log).read())
            if "serving on" in open(self.log).read()[start_at:]:
                return self
            time.sleep(0.05)
        raise RuntimeError(f"{self.name} did not start")

    def logtext(self):
        return open(self.log).read()

    def stop(self, sig=signal.SIGTERM, timeout=60):
        self.p.send_signal(sig)
        return self.p.wait(timeout)


def channel(target):
    return grpc.insecure_channel(target, options=OPTS)


def wait_known(stub, job_id, timeout=30):
    """Until the daemon knows the job (Await with 1 ms answers instead of NOT_FOUND)."""
    until = time.time() + timeout
    while time.time() < until:
        c, _ = code_of(stub.AwaitProof, pb.AwaitProofRequest(job_id=job_id, timeout_ms=1))
        if c == grpc.StatusCode.OK:
            return
        time.sleep(0.02)


seed8, rid, submit_req = H.seed8, H.rid, H.submit_req


# ---- the unix-socket daemon -------------------------------------------------
sock = os.path.join(tmp, "cuzk.sock")
http_port = free_port()
A = Daemon("unix", f"unix://{sock}", http=http_port).start()
check(stat.S_IMODE(os.stat(sock).st_mode) == 0o660, "unix socket mode is 0660")
ch = channel(f"unix://{sock}")
st = pbg.ProvingEngineStub(ch)

status = st.GetStatus(pb.GetStatusRequest())
check(sorted(q.proof_kind for q in status.queues) == ["test-porep", "test-window", "test-winning"],
      "GetStatus lists the test kinds' queues")
check({s.circuit_id for s in status.loaded_srs} >= {"test-porep", "test-winning"}, "GetStatus lists SRS")
check(status.pinned_memory_bytes <= status.pinned_memory_limit_bytes or status.pinned_memory_limit_bytes == 0,
      "GetStatus: pinned memory within its limit")

# Prove: 1 and 10 partitions
r = st.Prove(pb.ProveRequest(submit=submit_req(pb.TEST_WINNING_POST)), timeout=60).result
check(r.status == S.COMPLETED and len(r.proof) == 192, f"Prove winning: {r.status} {len(r.proof)}")
r = st.Prove(pb.ProveRequest(submit=submit_req(pb.TEST_POREP, priority=pb.HIGH)), timeout=120).result
check(r.status == S.COMPLETED and len(r.proof) == 1920,
      f"Prove test-porep: 10 partitions: {r.status} {r.error_message}")
check(r.total_ms >= r.queue_wait_ms and r.total_ms > 0, "timings are filled in")

# Submit + Await, idempotent request ids
req = submit_req(pb.TEST_WINDOW_POST, request_id=rid("idem"))
s1 = st.SubmitProof(req)
check(s1.job_id == req.request_id, "job id is the request id")
a1 = st.AwaitProof(pb.AwaitProofRequest(job_id=s1.job_id, timeout_ms=60000))
check(a1.status == S.COMPLETED and len(a1.proof) == 192, "Await after Submit")
s2 = st.SubmitProof(req)
a2 = st.AwaitProof(pb.AwaitProofRequest(job_id=s2.job_id))
check(s2.job_id == s1.job_id and a2.proof == a1.proof, "same request id: same job, same proof")
other = pb.SubmitProofRequest()
other.CopyFrom(req)
other.vanilla_proof = bytes(b ^ 1 for b in req.vanilla_proof)
c, d = code_of(st.SubmitProof, other)
check(c == grpc.StatusCode.INVALID_ARGUMENT, f"reused id with other inputs: {c} {d}")
# empty request_id: the daemon names the job
s3 = st.SubmitProof(submit_req(pb.TEST_WINNING_POST, request_id=""))
check(s3.job_id != "" and st.AwaitProof(pb.AwaitProofRequest(job_id=s3.job_id)).status == S.COMPLETED,
      "Submit without request_id")

# Priorities reach the engine: a LOW job submitted first is overtaken by
# HIGH ones (partition granularity), so it is unfinished when they are done.
low = submit_req(pb.TEST_POREP, priority=pb.LOW, request_id=rid("low"))
st.SubmitProof(low)
highs = [submit_req(pb.TEST_POREP, priority=pb.HIGH, request_id=rid(f"high{i}")) for i in range(3)]
for h in highs:
    st.SubmitProof(h)
for h in highs:
    st.AwaitProof(pb.AwaitProofRequest(job_id=h.request_id, timeout_ms=120000))
a = st.AwaitProof(pb.AwaitProofRequest(job_id=low.request_id, timeout_ms=1))
check(a.status == S.TIMEOUT, f"LOW job submitted first finishes after the HIGH ones: {a.status}")
code_of(st.CancelProof, pb.CancelProofRequest(job_id=low.request_id))

# Await timeout: the job keeps running
big = submit_req(pb.TEST_POREP, request_id=rid("slow"))
st.SubmitProof(big)
a = st.AwaitProof(pb.AwaitProofRequest(job_id=big.request_id, timeout_ms=1))
check(a.status == S.TIMEOUT, f"Await with 1 ms: {a.status}")
a = st.AwaitProof(pb.AwaitProofRequest(job_id=big.request_id, timeout_ms=120000))
check(a.status == S.COMPLETED, "the job went on after the Await timeout")
c, _ = code_of(st.AwaitProof, pb.AwaitProofRequest(job_id="no-such-job"))
check(c == grpc.StatusCode.NOT_FOUND, "Await unknown job: NOT_FOUND")

# GetStatus.gpus, curio's shape: one entry per prover worker (the CPU prover's
# two here: no device memory), each with the job it proves. Polled while
# 10-partition jobs run, one at a time until a worker is caught proving one.
def gpus_consistent(s):
    return (len(s.gpus) == 2 and all(g.ordinal == 0 and g.name == "CPU prover (no GPU)" and g.vram_total_bytes == 0
                                     and g.vram_free_bytes == 0 and bool(g.current_job_id) == bool(g.current_proof_kind)
                                     for g in s.gpus))


snaps, mine = [], set()
for i in range(8):
    j = submit_req(pb.TEST_POREP, request_id=rid(f"busy{i}"))
    mine.add(j.request_id)
    fut = st.Prove.future(pb.ProveRequest(submit=j), timeout=120)
    while not fut.done():
        snaps.append(st.GetStatus(pb.GetStatusRequest()))
    if any(g.current_job_id in mine and g.current_proof_kind == "test-porep" for s in snaps for g in s.gpus):
        break
check(all(gpus_consistent(s) for s in snaps), f"GetStatus.gpus: two CPU prover workers in {len(snaps)} snapshots "
      f"(first: {list(snaps[0].gpus) if snaps else None})")
seen = {(g.current_job_id, g.current_proof_kind) for s in snaps for g in s.gpus if g.current_job_id}
check(seen and seen <= {(m, "test-porep") for m in mine}, f"GetStatus.gpus names the jobs being proved: {sorted(seen)[:4]}")
idle = st.GetStatus(pb.GetStatusRequest())
check(gpus_consistent(idle) and not any(g.current_job_id for g in idle.gpus), "GetStatus.gpus: idle workers name no job")

# Cancel: queue several 10-partition jobs, cancel the last (still queued)
jobs = [submit_req(pb.TEST_POREP, request_id=rid(f"q{i}")) for i in range(3)]
for j in jobs:
    st.SubmitProof(j)
cr = st.CancelProof(pb.CancelProofRequest(job_id=jobs[-1].request_id))
a = st.AwaitProof(pb.AwaitProofRequest(job_id=jobs[-1].request_id))
check(a.status == S.CANCELLED, f"cancelled job awaits as CANCELLED: {a.status}")
c, _ = code_of(st.CancelProof, pb.CancelProofRequest(job_id=jobs[-1].request_id))
check(c == grpc.StatusCode.FAILED_PRECONDITION, f"cancel twice: {c}")
c, _ = code_of(st.CancelProof, pb.CancelProofRequest(job_id="nope"))
check(c == grpc.StatusCode.NOT_FOUND, "cancel unknown job: NOT_FOUND")
st.CancelProof(pb.CancelProofRequest(job_id=jobs[1].request_id))

# Deadline on Prove: the client sees DEADLINE_EXCEEDED and the job stops.
# HIGH-priority fillers keep the workers busy so the job cannot finish first.
fillers = [submit_req(pb.TEST_POREP, priority=pb.HIGH, request_id=rid(f"fill{i}")) for i in range(6)]
for f in fillers:
    st.SubmitProof(f)
dl = submit_req(pb.TEST_POREP, request_id=rid("deadline"))
c, _ = code_of(st.Prove, pb.ProveRequest(submit=dl), timeout=0.2)
check(c == grpc.StatusCode.DEADLINE_EXCEEDED, f"Prove past its deadline: {c}")
a = st.AwaitProof(pb.AwaitProofRequest(job_id=dl.request_id, timeout_ms=60000))
check(a.status in (S.CANCELLED, S.TIMEOUT), f"the deadline stopped the job: {a.status}")

# Client cancellation of Prove cancels the job
cc = submit_req(pb.TEST_POREP, request_id=rid("clientcancel"))
fut = st.Prove.future(pb.ProveRequest(submit=cc))
wait_known(st, cc.request_id)
fut.cancel()
a = st.AwaitProof(pb.AwaitProofRequest(job_id=cc.request_id, timeout_ms=60000))
check(a.status == S.CANCELLED, f"client cancel reached the job: {a.status}")
# curio reuses a sector's id when it retries: a cancelled id (client cancel,
# or the deadline, as curio's ProveTimeout) starts a new attempt that proves
for what, q in (("client-cancelled", cc), ("deadline-cancelled", dl)):
    r = st.Prove(pb.ProveRequest(submit=q), timeout=120).result
    check(r.status == S.COMPLETED and len(r.proof) == 1920, f"{what} id resubmitted: {S.Status.Name(r.status)} "
          f"{r.error_message}")
    a = st.AwaitProof(pb.AwaitProofRequest(job_id=q.request_id))
    check(a.status == S.COMPLETED and a.proof == r.proof, f"{what} id now names the new attempt")
# the queued job cancelled above, resubmitted with other inputs: also a new attempt
q = pb.SubmitProofRequest()
q.CopyFrom(jobs[-1])
q.vanilla_proof = seed8()
check(st.SubmitProof(q).job_id == q.request_id and
      st.AwaitProof(pb.AwaitProofRequest(job_id=q.request_id, timeout_ms=120000)).status == S.COMPLETED,
      "cancelled id with other inputs: a new attempt, completed")
# curio's ids, as its Go code builds them (fmt %d of a byte slice: spaces, brackets),
# and one with a newline: proved, and the log keeps one record per line
rnd = bytes(rng.getrandbits(8) for _ in range(8))
curio_ids = [f"wdpost-{rng.randrange(1, 1 << 20)}-{rng.randrange(4)}-[{' '.join(str(b) for b in rnd)}]",
             f"winpost-{rng.randrange(1, 1 << 20)}-{rnd.hex()}", f"line\nbreak-{rng.getrandbits(32):x} ✓"]
for cid in curio_ids:
    r = st.Prove(pb.ProveRequest(submit=submit_req(pb.TEST_WINDOW_POST, request_id=cid)), timeout=60).result
    check(r.status == S.COMPLETED and len(r.proof) == 192, f"curio-style id {cid!r}: {S.Status.Name(r.status)}")
    check(st.AwaitProof(pb.AwaitProofRequest(job_id=cid)).status == S.COMPLETED, f"Await by id {cid!r}")
check("line\\x0abreak-" in A.logtext() and "\nbreak-" not in A.logtext(),
      "a newline in an id is escaped in the log")
for f in fillers:
    code_of(st.CancelProof, pb.CancelProofRequest(job_id=f.request_id))

# Malformed requests: clear codes, and the daemon keeps serving
bad = [
    ("unknown proof kind", submit_req(77), grpc.StatusCode.INVALID_ARGUMENT),
    ("unset proof kind", submit_req(pb.PROOF_KIND_UNSPECIFIED), grpc.StatusCode.INVALID_ARGUMENT),
    ("bad sector size", submit_req(pb.POREP_SEAL_COMMIT, sector_size=12345), grpc.StatusCode.INVALID_ARGUMENT),
    ("filecoin kind not built in", submit_req(pb.POREP_SEAL_COMMIT, sector_size=32 << 30, vanilla_proof=b"{}"),
     grpc.StatusCode.UNIMPLEMENTED),
    ("empty vanilla proof", submit_req(pb.WINNING_POST, sector_size=32 << 30, vanilla_proof=b""),
     grpc.StatusCode.INVALID_ARGUMENT),
    ("5-byte seed", submit_req(vanilla_proof=b"12345"), grpc.StatusCode.INVALID_ARGUMENT),
    ("31-byte randomness", submit_req(randomness=b"r" * 31), grpc.StatusCode.INVALID_ARGUMENT),
    ("bad priority", submit_req(priority=9), grpc.StatusCode.INVALID_ARGUMENT),
    ("request id of 257 bytes", submit_req(request_id="é" * 128 + "x"), grpc.StatusCode.INVALID_ARGUMENT),
]
for what, q, want in bad:
    c, d = code_of(st.SubmitProof, q)
    check(c == want and d, f"{what}: {c} {d!r}")
c, d = code_of(st.Prove, pb.ProveRequest())
check(c == grpc.StatusCode.INVALID_ARGUMENT, f"Prove without submit: {c}")
raw = ch.unary_unary("/cuzk.v1.ProvingEngine/SubmitProof", request_serializer=None, response_deserializer=None)
for what, payload in [("garbage bytes", bytes([0xff] * 7)), ("truncated varint", b"\x10\xff"),
                      ("random bytes", bytes(rng.getrandbits(8) for _ in range(64)) + b"\x0a\xff")]:
    c, d = code_of(raw, payload)
    check(c == grpc.StatusCode.INVALID_ARGUMENT, f"{what}: {c} {d}")
c, d = code_of(raw, b"")
check(c == grpc.StatusCode.INVALID_ARGUMENT, f"empty payload: {c} {d}")
# a request id that is not UTF-8 (Python's protobuf cannot build one: patch the bytes)
good_id = rid("utf8")
wire = submit_req(request_id=good_id).SerializeToString()
for bad_id in (b"\xff" + good_id.encode()[1:], good_id.encode()[:-2] + b"\xed\xa0"):
    c, d = code_of(raw, wire.replace(good_id.encode(), bad_id))
    check(c == grpc.StatusCode.INVALID_ARGUMENT and ("UTF-8" in d or "utf-8" in d.lower()),
          f"request id not UTF-8 {bad_id[:4]!r}: {c} {d}")
huge = submit_req(vanilla_proof=b"\0" * (200 << 20))
c, d = code_of(st.SubmitProof, huge, timeout=60)
del huge
check(c == grpc.StatusCode.RESOURCE_EXHAUSTED, f"200 MB request: {c} {d}")
c, _ = code_of(ch.unary_unary("/cuzk.v1.ProvingEngine/Nope"), b"")
check(c == grpc.StatusCode.UNIMPLEMENTED, f"unknown method: {c}")
r = st.Prove(pb.ProveRequest(submit=submit_req()), timeout=60).result
check(r.status == S.COMPLETED, "still serving after malformed requests")

# SRS management
st.Prove(pb.ProveRequest(submit=submit_req(pb.TEST_WINNING_POST)), timeout=60)
e1 = st.EvictSRS(pb.EvictSrsRequest(circuit_id="test-winning"))
tiers = {s.circuit_id: s.tier for s in st.GetStatus(pb.GetStatusRequest()).loaded_srs}
check(e1.was_loaded and tiers["test-winning"] == pb.SRSStatus.COLD, "EvictSRS makes it cold")
e2 = st.EvictSRS(pb.EvictSrsRequest(circuit_id="test-winning"))
check(not e2.was_loaded, "evict twice: was not loaded")
p1 = st.PreloadSRS(pb.PreloadSrsRequest(circuit_id="test-winning"))
p2 = st.PreloadSRS(pb.PreloadSrsRequest(circuit_id="test-winning"))
check(not p1.already_loaded and p2.already_loaded, "PreloadSRS then already loaded")
for fn, q in [(st.PreloadSRS, pb.PreloadSrsRequest(circuit_id="porep-99g")),
              (st.EvictSRS, pb.EvictSrsRequest(circuit_id="porep-99g"))]:
    c, _ = code_of(fn, q)
    check(c == grpc.StatusCode.NOT_FOUND, f"unknown circuit: {c}")
r = st.Prove(pb.ProveRequest(submit=submit_req()), timeout=60).result
check(r.status == S.COMPLETED, "prove after evict/preload")

# Metrics over gRPC and HTTP; status JSON
m = st.GetMetrics(pb.GetMetricsRequest()).prometheus_text
check('cuzk_rpc_requests_total{method="Prove",code="OK"}' in m, "metrics count Prove calls")
check('code="INVALID_ARGUMENT"' in m and "cuzk_jobs_completed_total" in m, "metrics: errors and engine counters")
check('cuzk_device_failed{device="0",reason=""} 0' in m and "cuzk_memory_pinned_bytes " in m
      and "cuzk_synthesis_limit " in m, "metrics: device health, pinned memory, synthesis limit")
rss = [float(l.split()[1]) for l in m.splitlines() if l.startswith("cuzk_memory_rss_anon_bytes ")]
budget = [float(l.split()[1]) for l in m.splitlines() if l.startswith("cuzk_memory_budget_bytes ")]
check(rss and budget and 0 < rss[0] < budget[0], f"metrics: the daemon's RssAnon beside its budget: {rss} {budget}")
done = [float(l.split()[1]) for l in m.splitlines() if l.startswith("cuzk_jobs_completed_total ")]
check(done and done[0] >= 8, f"completed jobs counted: {done}")
# curio's metric names and shapes, beside ours
for name in ("cuzk_proofs_completed_total", "cuzk_proofs_failed_total", "cuzk_queue_depth", "cuzk_running_jobs",
             "cuzk_gpu_workers", "cuzk_uptime_seconds"):
    check(any(l.startswith(name + " ") for l in m.splitlines()), f"metrics: curio's {name}")
check("# TYPE cuzk_proof_duration_seconds histogram" in m, "metrics: cuzk_proof_duration_seconds is a histogram")
per_kind = {}
for l in m.splitlines():
    for fam in ("cuzk_proofs_completed{", "cuzk_proof_duration_seconds_count{", "cuzk_proof_duration_seconds_bucket{"):
        if l.startswith(fam):
            per_kind.setdefault(fam, []).append((l.split("}")[0] + "}", float(l.split()[-1])))
comp = dict(per_kind.get("cuzk_proofs_completed{", []))
cnt = {k.replace("cuzk_proof_duration_seconds_count", "cuzk_proofs_completed"): v
       for k, v in per_kind.get("cuzk_proof_duration_seconds_count{", [])}
check(comp and comp == cnt and sum(comp.values()) >= 8 and comp.get('cuzk_proofs_completed{proof_kind="test-porep"}', 0) >= 1,
      f"metrics: completions per kind, and the histogram counts them: {comp} {cnt}")
for kind in ("test-porep", "test-window", "test-winning"):
    b = [v for k, v in per_kind.get("cuzk_proof_duration_seconds_bucket{", []) if f'proof_kind="{kind}"' in k]
    check(len(b) == 11 and all(x <= y for x, y in zip(b, b[1:])), f"histogram buckets of {kind} are cumulative: {b}")
# per-partition prove phases: one histogram with a phase label, cumulative buckets, counted once
# per prove call (the CPU prover times NTTs and MSMs; upload and eval are the GPU's)
phase = {}
for l in m.splitlines():
    mm = re.match(r'^cuzk_prove_phase_seconds_(bucket|sum|count)\{phase="([a-z_0-9]+)"(?:,le="([^"]+)")?\} (\S+)$', l)
    if mm:
        phase.setdefault(mm.group(2), {}).setdefault(mm.group(1), []).append(float(mm.group(4)))
proved = [float(l.split()[1]) for l in m.splitlines() if l.startswith("cuzk_partitions_proved_total ")]
check(set(phase) >= {"upload", "eval", "ntt", "msm", "msm_h", "wait", "host"}, f"metrics: prove phases {sorted(phase)}")
for name, f in phase.items():
    b, cnt = f.get("bucket", []), f.get("count", [0])[0]
    check(len(b) == 12 and all(x <= y for x, y in zip(b, b[1:])) and b[-1] == cnt,
          f"phase {name}: cumulative buckets ending at the count: {b} {cnt}")
ntt_n = phase.get("ntt", {}).get("count", [0])[0]
# every successful prove call is timed, also one whose job was cancelled meanwhile (not counted as proved)
check(proved and 8 <= ntt_n and abs(ntt_n - proved[0]) <= 8 and len({f["count"][0] for f in phase.values()}) == 1
      and phase["ntt"]["sum"][0] > 0 and phase["msm"]["sum"][0] > 0,
      f"phases counted once per prove call ({ntt_n}, partitions proved {proved}), NTT and MSM time > 0")
total = [float(l.split()[1]) for l in m.splitlines() if l.startswith("cuzk_proofs_completed_total ")]
check(total and total == done, f"cuzk_proofs_completed_total = cuzk_jobs_completed_total: {total} {done}")
sample = re.compile(r'^[a-zA-Z_:][a-zA-Z0-9_:]*(\{([a-zA-Z_][a-zA-Z0-9_]*="[^"\\]*",?)*\})? -?[0-9.e+-]+$')
badlines = [l for l in m.splitlines() if l and not l.startswith("# ") and not sample.match(l)]
check(not badlines, f"Prometheus exposition format: {badlines[:3]}")
hm = urllib.request.urlopen(f"http://127.0.0.1:{http_port}/metrics", timeout=10).read().decode()
check("cuzk_jobs_completed_total" in hm, "HTTP /metrics")
import json  # noqa: E402
js = json.loads(urllib.request.urlopen(f"http://127.0.0.1:{http_port}/status", timeout=10).read())
check(js["draining"] is False and "engine" in js, "HTTP /status JSON")
try:
    urllib.request.urlopen(f"http://127.0.0.1:{http_port}/nope", timeout=10)
    check(False, "HTTP 404")
except urllib.error.HTTPError as e:
    check(e.code == 404, "HTTP unknown path: 404")

# SIGHUP: a good reload applies, a bad one is rejected, serving goes on
def wait_log(d, text, timeout=20):
    until = time.time() + timeout
    while text not in d.logtext() and time.time() < until:
        time.sleep(0.02)


A.write_conf(level="debug")
A.p.send_signal(signal.SIGHUP)
wait_log(A, "configuration reloaded")
with open(A.conf, "a") as f:
    f.write("[gpus]\ngpu_workerz = 1\n")
A.p.send_signal(signal.SIGHUP)
wait_log(A, "reload rejected")
log = A.logtext()
check("configuration reloaded" in log and "reload rejected" in log and "gpus.gpu_workerz" in log,
      "SIGHUP reload and rejection are logged")
check(st.GetStatus(pb.GetStatusRequest()).uptime_seconds >= 0, "serving after SIGHUP")
A.write_conf()

# ---- TCP with a bearer token -----------------------------------------------
token = f"tok{rng.getrandbits(64):x}"
port = free_port()
# systemd's notify protocol: a datagram socket named by NOTIFY_SOCKET
notify_path = os.path.join(tmp, "notify")
notify = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
notify.bind(notify_path)
notify.settimeout(10)
B = Daemon("tcp", f"127.0.0.1:{port}", extra=f'auth_token = "{token}"\n', fmt="json").start(
    env={"NOTIFY_SOCKET": notify_path})


def notes_until(want):
    got = []
    try:
        while not any(want in g for g in got):
            got.append(notify.recv(4096).decode())
    except socket.timeout:
        pass
    return "\n".join(got)


n = notes_until("READY=1")
check("READY=1" in n and "STATUS=serving on" in n, f"sd_notify READY and STATUS: {n!r}")
tch = channel(f"127.0.0.1:{port}")
tst = pbg.ProvingEngineStub(tch)
for what, md in [("no token", None), ("wrong token", [("authorization", f"Bearer x{token}")]),
                 ("not bearer", [("authorization", token)])]:
    c, d = code_of(tst.GetStatus, pb.GetStatusRequest(), metadata=md)
    check(c == grpc.StatusCode.UNAUTHENTICATED, f"TCP {what}: {c} {d}")
    c, _ = code_of(tst.Prove, pb.ProveRequest(submit=submit_req()), metadata=md)
    check(c == grpc.StatusCode.UNAUTHENTICATED, f"TCP {what} Prove: {c}")
good = [("authorization", f"Bearer {token}")]
r = tst.Prove(pb.ProveRequest(submit=submit_req()), metadata=good, timeout=60).result
check(r.status == S.COMPLETED, "TCP with the token proves")
check(len(tst.GetMetrics(pb.GetMetricsRequest(), metadata=good).prometheus_text) > 0, "TCP GetMetrics")
check(B.stop() == 0, "TCP daemon exits 0")
check("STOPPING=1" in notes_until("STOPPING=1"), "sd_notify STOPPING")
try:
    jl = [json.loads(l) for l in B.logtext().splitlines()]
    check(all({"ts", "level", "msg"} <= set(o) for o in jl) and any("serving on" in o["msg"] for o in jl),
          "JSON log lines")
except ValueError as e:
    check(False, f"JSON log lines: {e}")
# TCP without a token: protected mode, loopback clients served without one
# (the refusal of remote ones: daemon_curio, from a network namespace)
P = Daemon("protected", f"127.0.0.1:{port}").start()
check("protected mode" in P.logtext(), "the log at start names protected mode")
pch = channel(f"127.0.0.1:{port}")
r = pbg.ProvingEngineStub(pch).Prove(pb.ProveRequest(submit=submit_req()), timeout=60).result
check(r.status == S.COMPLETED, "protected mode: a loopback client proves without a token")
pch.close()
check(P.stop() == 0, "protected-mode daemon exits 0")

# ---- SIGTERM drain with jobs in flight, then restart ---------------------------
drain_reqs = [submit_req(pb.TEST_POREP) for _ in range(2)]
inflight = [st.Prove.future(pb.ProveRequest(submit=q)) for q in drain_reqs]
for q in drain_reqs:
    wait_known(st, q.request_id)
A.p.send_signal(signal.SIGTERM)
wait_log(A, "draining")
c, d = code_of(st.SubmitProof, submit_req())
check(c == grpc.StatusCode.UNAVAILABLE, f"Submit while draining: {c} {d}")
for f in inflight:
    r = f.result(timeout=120).result
    check(r.status == S.COMPLETED and len(r.proof) == 1920, f"in-flight job finished during drain: {r.status}")
check(A.p.wait(60) == 0, "drained daemon exits 0")
check(not os.path.exists(sock), "socket removed at exit")
check(os.path.exists(os.path.join(PARAMS, "cuzk-test-porep-512.params")), "parameters in the param cache")

# restart on the same param cache, then a drain whose grace runs out
ch.close()
A.write_conf(extra='shutdown_grace = "0s"\n')
A.start()
ch2 = channel(f"unix://{sock}")
st2 = pbg.ProvingEngineStub(ch2)
r = st2.Prove(pb.ProveRequest(submit=submit_req(pb.TEST_POREP)), timeout=120).result
check(r.status == S.COMPLETED, f"proves after restart: {r.status} {r.error_message}")
for i in range(6):  # HIGH fillers ahead of the job: it cannot finish first
    st2.SubmitProof(submit_req(pb.TEST_POREP, priority=pb.HIGH, request_id=rid(f"gfill{i}")))
gq = submit_req(pb.TEST_POREP)
fut = st2.Prove.future(pb.ProveRequest(submit=gq))
wait_known(st2, gq.request_id)
A.p.send_signal(signal.SIGTERM)
try:
    r = fut.result(timeout=60).result
    check(r.status == S.CANCELLED, f"grace 0: running job cancelled: {r.status}")
except grpc.RpcError as e:
    check(e.code() == grpc.StatusCode.CANCELLED, f"grace 0: {e.code()} {e.details()}")
check(A.p.wait(60) == 0, "daemon exits 0 after cancelling")

H.finish((A, B))
