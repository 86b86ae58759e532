"""cuzk daemon reliability (issue 24), driven by Python's grpcio (see
daemon_reliability.test.sh). Binds only unix sockets. Inputs that are random
(witness seeds, where a parameter file is cut) are fresh per run: the seed is
printed, CUZK_SEED replays it. No check depends on timing."""
import json
import os
import signal
import socket
import subprocess
import sys
import threading
import time
import urllib.request

import grpc

CUZK, PROTO_DIR = sys.argv[1], sys.argv[2]
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from grpc_harness import Harness, code_of  # noqa: E402
from grpc_harness import await_status as harness_await  # noqa: E402

H = Harness("daemon_reliability", PROTO_DIR)
rng, tmp, failures, check = H.rng, H.tmp, H.failures, H.check
from cuzk.v1 import proving_pb2 as pb  # noqa: E402
from cuzk.v1 import proving_pb2_grpc as pbg  # noqa: E402

S = pb.AwaitProofResponse
OPTS = [("grpc.use_local_subchannel_pool", 1)]
daemons = []

H.kill_daemons_on_error(daemons)


class Daemon:
    """A daemon on a unix socket with the test kinds; `conf` is extra TOML
    (whole sections), `params` its param cache."""

    def __init__(self, name, params, conf="", daemon_keys="", preload=()):
        self.name, self.params = name, params
        self.sock = os.path.join(tmp, f"{name}.sock")
        self.conf = os.path.join(tmp, f"{name}.toml")
        self.log = os.path.join(tmp, f"{name}.log")
        with open(self.conf, "w") as f:
            f.write(f'[daemon]\nlisten = "unix://{self.sock}"\n{daemon_keys}'
                    f'[srs]\nparam_cache = "{params}"\npreload = {list(preload)!r}\n'.replace("'", '"')
                    + f'[synthesis]\npartition_workers = 2\n{conf}')

    def start(self, env=None, wait=True):
        daemons.append(self)
        self.p = subprocess.Popen([CUZK, "daemon", "--config", self.conf, "--test-kinds",
                                   "--test-constraints", "512", "--test-post-constraints", "256"],
                                  stdout=subprocess.DEVNULL, stderr=open(self.log, "ab"),
                                  env=dict(os.environ, **(env or {})))
        if not wait:
            return self
        until = time.time() + 120
        while "serving on" not in self.logtext():
            if self.p.poll() is not None:
                raise RuntimeError(f"{self.name} exited: " + self.logtext())
            if time.time() > until:
                raise RuntimeError(f"{self.name} did not start")
            time.sleep(0.05)
        self.ch = grpc.insecure_channel(f"unix://{self.sock}", options=OPTS)
        self.stub = pbg.ProvingEngineStub(self.ch)
        return self

    def logtext(self):
        return open(self.log).read() if os.path.exists(self.log) else ""

    def stop(self, sig=signal.SIGTERM, timeout=120):
        self.p.send_signal(sig)
        rc = self.p.wait(timeout)
        self.ch.close()
        return rc


seed8, rid, submit_req = H.seed8, H.rid, H.submit_req


def params_cut_reason(data):
    """What the parameter reader must say about a cut bellperson .params file
    (vk fixed points, then the vk.ic, h, l, a, b_g1, b_g2 lists, each a
    big-endian u32 count and uncompressed points), worked out here on its own."""
    pos = 3 * 96 + 3 * 192
    for name in ("vk.ic", "h", "l", "a", "b_g1", "b_g2"):
        esz = 192 if name == "b_g2" else 96
        if len(data) - pos < 4:
            return f"truncated ({len(data) - pos} bytes left, need 4)"
        c, left = int.from_bytes(data[pos:pos + 4], "big"), len(data) - pos - 4
        if c * esz > left:
            return f"truncated: {name} count {c} needs {c * esz} bytes, {left} left"
        pos += 4 + c * esz
    return None


def long_param_cache(tag):
    """A param cache whose path is long (as deep deployments have): messages
    naming a file in it run well past 255 characters."""
    d = os.path.join(tmp, tag + "-" + "p" * 120, "filecoin-proof-parameters-" + "q" * 60)
    os.makedirs(d)
    return d


# ---- item 3: no error message is cut -------------------------------------------
PC = long_param_cache("cut")
A = Daemon("cut", PC).start()
win = os.path.join(PC, "cuzk-test-window-256.params")
data = open(win, "rb").read()
cut = rng.randrange(3 * 96 + 3 * 192 + 4, len(data))  # past the fixed vk points
with open(win, "r+b") as f:
    f.truncate(cut)
reason = params_cut_reason(data[:cut])
q = submit_req(pb.TEST_WINDOW_POST)
A.stub.SubmitProof(q)
r = A.stub.AwaitProof(pb.AwaitProofRequest(job_id=q.request_id, timeout_ms=60000), timeout=90)
head = f"loading parameters of test-window: {win}: "
msg = r.error_message
check(r.status == S.FAILED, f"a job on a cut .params file fails: {r.status}")
check(len(msg) > 255 and msg.startswith(head) and msg.endswith(reason),
      f"AwaitProof.error_message whole ({len(msg)} chars, cut at byte {cut} of {len(data)}): {msg!r}, "
      f"expected {head!r} ... {reason!r}")
log = A.logtext()
line = next((l for l in log.splitlines() if f"job {q.request_id} failed" in l), "")
check(line.endswith(": " + msg) and head in line and line.endswith(reason), f"the log's failure line is whole: {line!r}")
check(A.stop() == 0, "daemon exits 0")

# ---- item 2: a preloaded kind whose parameters cannot be loaded -----------------
# The WindowPoSt 2KiB parameter file is a cut copy of a test .params file
# (cut at a random byte): the daemon serves the other kinds and says, in
# GetStatus, /status, metrics, PreloadSRS and systemd's STATUS=, that this
# one failed and why; jobs of a failed kind fail at once with that reason
# until the file is fixed; preload_failure = "fatal" makes it an exit.
PC = os.path.join(tmp, "preload-params")
os.makedirs(PC)
listing = subprocess.run([CUZK, "params", "list", "--param-cache", PC], capture_output=True, text=True,
                         check=True).stdout
wname = next(ln.split()[4] for ln in listing.splitlines() if ln.split()[:3] == ["window-post", "2KiB", "params"])
cut = rng.randrange(3 * 96 + 3 * 192 + 4, len(data))
with open(os.path.join(PC, wname), "wb") as f:
    f.write(data[:cut])
reason = params_cut_reason(data[:cut])
with socket.socket() as so:
    so.bind(("127.0.0.1", 0))
    http = so.getsockname()[1]
notify_path = os.path.join(tmp, "notify.sock")
notify = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
notify.bind(notify_path)
E = Daemon("preload", PC, daemon_keys=f'status_listen = "127.0.0.1:{http}"\n',
           preload=["wpost-2k", "test-winning"]).start(env={"NOTIFY_SOCKET": notify_path})
line = next((ln for ln in E.logtext().splitlines() if "preload wpost-2k:" in ln), "")
check(reason in line and wname in line, f"the log says why wpost-2k cannot be preloaded (cut at {cut}): {line!r}")


def srs_entry(d, circuit):
    return next((x for x in d.stub.GetStatus(pb.GetStatusRequest()).loaded_srs if x.circuit_id == circuit), None)


def http_circuit(circuit):
    st = json.load(urllib.request.urlopen(f"http://127.0.0.1:{http}/status", timeout=30))
    return next((c for c in st["engine"]["circuits"] if c["circuit_id"] == circuit), {})


def kind_failed_metric(d, kind):
    text = d.stub.GetMetrics(pb.GetMetricsRequest()).prometheus_text
    return next((ln.rsplit(" ", 1)[1] for ln in text.splitlines()
                 if ln.startswith(f'cuzk_kind_failed{{proof_kind="{kind}",')), None)


ent = srs_entry(E, "wpost-2k")
check(ent is not None and ent.tier == pb.SRSStatus.FAILED and ent.error.startswith("failed to load at ")
      and ent.error.endswith(reason), f"GetStatus: wpost-2k FAILED with its cause: {ent}")
ent = srs_entry(E, "test-winning")
check(ent is not None and ent.tier == pb.SRSStatus.HOT and not ent.error, f"GetStatus: test-winning HOT: {ent}")
c = http_circuit("wpost-2k")
check(c.get("srs") == "failed" and c.get("srs_error", "").endswith(reason), f"/status: wpost-2k failed: {c}")
check(kind_failed_metric(E, "wpost-2k") == "1" and kind_failed_metric(E, "test-winning") == "0",
      f"cuzk_kind_failed: wpost-2k 1, test-winning 0: {kind_failed_metric(E, 'wpost-2k')}, "
      f"{kind_failed_metric(E, 'test-winning')}")


def preload_refused(d, circuit, reason):
    """PreloadSRS of a circuit whose file is bad: FAILED_PRECONDITION with the reader's reason."""
    try:
        d.stub.PreloadSRS(pb.PreloadSrsRequest(circuit_id=circuit))
        check(False, f"PreloadSRS {circuit} of a cut file fails")
    except grpc.RpcError as e:
        check(e.code() == grpc.StatusCode.FAILED_PRECONDITION and e.details().endswith(reason),
              f"PreloadSRS {circuit} says why: {e.code()} {e.details()!r}")


preload_refused(E, "wpost-2k", reason)
out = subprocess.run([CUZK, "bench", "status", "--addr", f"unix://{E.sock}"], capture_output=True, text=True).stdout
line = next((ln for ln in out.splitlines() if ln.split()[:2] == ["srs", "wpost-2k"]), "")
check("FAILED: failed to load at " in line and line.endswith(reason), f"cuzk bench status shows it: {line!r}")
# systemd readiness (a build with libsystemd): READY=1 with a STATUS= naming the failed circuit
if b"libsystemd" in subprocess.run(["ldd", CUZK], capture_output=True).stdout:
    notify.settimeout(60)  # a bound on the wait only: READY=1 was sent before "serving on" was logged
    msgs = []
    while not any("READY=1" in m for m in msgs):
        msgs.append(notify.recv(4096).decode())
    ready = next(m for m in msgs if "READY=1" in m)
    check("FAILED to load: wpost-2k" in ready and "circuits usable" in ready,
          f"sd_notify STATUS= names the failed circuit: {ready!r}")
notify.close()

# A kind whose load failed: its jobs fail at once with the reason; fixing the
# file (it changes) and PreloadSRS make it usable again.
twin = os.path.join(PC, "cuzk-test-window-256.params")
good = open(twin, "rb").read()
cut = rng.randrange(3 * 96 + 3 * 192 + 4, len(good))
with open(twin, "r+b") as f:
    f.truncate(cut)
reason = params_cut_reason(good[:cut])
preload_refused(E, "test-window", reason)
for n in range(2):
    r = E.stub.Prove(pb.ProveRequest(submit=submit_req(pb.TEST_WINDOW_POST)), timeout=120).result
    check(r.status == S.FAILED and "failed to load at" in r.error_message and r.error_message.endswith(reason),
          f"job {n} of the failed kind fails at once with the load's reason: {r.status} {r.error_message!r}")
with open(twin, "wb") as f:
    f.write(good)
E.stub.PreloadSRS(pb.PreloadSrsRequest(circuit_id="test-window"))
ent = srs_entry(E, "test-window")
check(ent.tier == pb.SRSStatus.HOT and not ent.error and kind_failed_metric(E, "test-window") == "0",
      f"fixed and preloaded: test-window HOT, not failed: {ent}")
r = E.stub.Prove(pb.ProveRequest(submit=submit_req(pb.TEST_WINDOW_POST)), timeout=120).result
check(r.status == S.COMPLETED, f"a test-window job proves again: {r.status} {r.error_message}")
check(E.stop() == 0, "daemon exits 0")

F = Daemon("preload-fatal", PC, daemon_keys='preload_failure = "fatal"\n', preload=["wpost-2k"],
           conf='[logging]\nformat = "json"\n').start(wait=False)
try:
    rc = F.p.wait(120)  # a bound on the wait only
except subprocess.TimeoutExpired:
    F.p.kill()
    rc = None
log = F.logtext()
check(rc not in (0, None) and "serving on" not in log, f"preload_failure = \"fatal\": exits non-zero before serving: {rc}")
check(any("preload wpost-2k:" in ln and wname in ln and "exiting" in ln for ln in log.splitlines()),
      f"... saying why: {log[-600:]!r}")
pf = [o for o in map(json.loads, log.splitlines()) if o.get("event") == "preload_failed"]
check(len(pf) == 1 and pf[0].get("circuit") == "wpost-2k" and type(pf[0].get("reason")) is str
      and wname in pf[0]["reason"] and pf[0]["msg"].startswith(f"preload wpost-2k: {pf[0]['reason']}; exiting")
      and pf[0]["level"] == "error",
      f"... in JSON, the circuit and the reason as keys: {pf}")

# ---- item 5: max_concurrent_calls is exact -------------------------------------------
# A call holds a slot from its arrival (before its message, which may be slow
# to come) until it is over: its status sent, or abandoned by its client; not
# until its handler thread ends. A test parameter file replaced by a FIFO
# keeps what waits on it (an AwaitProof of a job, a PreloadSRS) in the daemon
# for as long as the test wants, whatever the machine's speed. The limit is
# drawn afresh; the daemon's calls in progress are read over HTTP (not a call).
PC = os.path.join(tmp, "calls-params")
N = rng.randint(2, 6)
with socket.socket() as so:
    so.bind(("127.0.0.1", 0))
    http = so.getsockname()[1]
B = Daemon("calls", PC, daemon_keys=f'max_concurrent_calls = {N}\nstatus_listen = "127.0.0.1:{http}"\n').start()


def calls_in_progress():
    text = urllib.request.urlopen(f"http://127.0.0.1:{http}/metrics", timeout=30).read().decode()
    return next((int(ln.split()[1]) for ln in text.splitlines() if ln.startswith("cuzk_rpc_calls_in_progress ")),
                None)


def fifo(circuit, constraints):
    """The circuit's parameter file made a FIFO: (its path, its good bytes)."""
    path = os.path.join(PC, f"cuzk-test-{circuit}-{constraints}.params")
    good = open(path, "rb").read()
    os.remove(path)
    os.mkfifo(path)
    return path, good


def release_fifo(path, good):
    """The loads blocked in opening it see an empty file and fail; the file
    is good again for the loads after them."""
    fd = os.open(path, os.O_RDWR)  # a writer: every open blocked on the FIFO returns
    with open(path + ".new", "wb") as f:
        f.write(good)
    os.replace(path + ".new", path)
    os.close(fd)  # their reads see the end of the file


def refused(f):
    return f.done() and f.exception() is not None and f.code() == grpc.StatusCode.RESOURCE_EXHAUSTED


def codes_of(futs):
    out = []
    for f in futs:
        try:
            f.result()
            out.append(grpc.StatusCode.OK)
        except grpc.RpcError as e:
            out.append(e.code())
    return out


def held_calls(method, req, resp, n, send):
    """n concurrent calls of a unary method, called as a client stream so
    that their request message goes only once `send` is set (the headers go
    first): each call arrives, and is admitted or refused, without it."""
    def held():
        send.wait()
        yield req
    call = B.ch.stream_unary(f"/cuzk.v1.ProvingEngine/{method}", request_serializer=type(req).SerializeToString,
                             response_deserializer=resp.FromString)
    return [call.future(held(), timeout=300) for _ in range(n)]


def admitted_exactly(futs, n, what):
    """Of len(futs) concurrent calls, exactly n admitted (the rest refused at
    once); the daemon counts n in progress."""
    until = time.time() + 60  # a bound on the wait only: an over-admitting daemon refuses fewer
    while sum(map(refused, futs)) < len(futs) - n and time.time() < until:
        time.sleep(0.02)
    time.sleep(0.2)  # not a bound on correctness: a refusal past the count would show in the checks below
    nref, live = sum(map(refused, futs)), sum(not f.done() for f in futs)
    check(nref == len(futs) - n and live == n and calls_in_progress() == n,
          f"{what}: limit {N}, {len(futs)} concurrent calls: {live} admitted, {nref} refused, "
          f"{calls_in_progress()} in progress (want {n}, {len(futs) - n}, {n})")


def admits_n_new(what):
    """N + 1 new concurrent calls: N admitted at once, and served."""
    send = threading.Event()
    futs = held_calls("GetStatus", pb.GetStatusRequest(), pb.GetStatusResponse, N + 1, send)
    admitted_exactly(futs, N, what)
    send.set()
    codes = codes_of(futs)
    check(codes.count(grpc.StatusCode.OK) == N, f"{what}: ... and served: {codes}")


# 2N concurrent AwaitProof calls on a job whose load blocks: N admitted
porep = fifo("porep", 512)
q = submit_req(pb.TEST_POREP)
B.stub.SubmitProof(q)
send = threading.Event()
futs = held_calls("AwaitProof", pb.AwaitProofRequest(job_id=q.request_id, timeout_ms=0), pb.AwaitProofResponse,
                  2 * N, send)
admitted_exactly(futs, N, "slow calls")
send.set()  # the admitted calls' messages go; they wait on the job
release_fifo(*porep)  # the job fails: their answers go
codes = codes_of(futs)
ok, ex = codes.count(grpc.StatusCode.OK), codes.count(grpc.StatusCode.RESOURCE_EXHAUSTED)
check(ok == N and ex == N, f"limit {N}, {2 * N} concurrent slow calls: exactly {N} answered ({codes})")
details = [f.exception().details() for f in futs if f.exception() is not None]
check(all(f"max_concurrent_calls = {N}" in d for d in details), f"the refusal names the limit: {details[:1]}")
# A call answered holds no slot: with every answer in hand, none is in
# progress, and N new calls are admitted at once (and one more refused).
check(calls_in_progress() == 0, f"answered calls hold no slot: {calls_in_progress()} in progress")
admits_n_new("right after the answers")

# Calls their clients abandon: PreloadSRS calls whose load blocks, then
# cancelled. Their handlers stay blocked in the load; the calls are over:
# their slots are free once the daemon sees them end, and N new calls are
# admitted (before, the slots stayed taken until the handlers returned).
def abandon_preloads(k):
    """k PreloadSRS calls of test-window, blocked in its load, cancelled."""
    futs = [B.stub.PreloadSRS.future(pb.PreloadSrsRequest(circuit_id="test-window"), timeout=300) for _ in range(k)]
    until = time.time() + 60  # a bound on the wait only
    while calls_in_progress() != k and time.time() < until:
        time.sleep(0.02)
    check(calls_in_progress() == k and not any(f.done() for f in futs), f"{k} PreloadSRS calls blocked in the load")
    for f in futs:
        f.cancel()
    until = time.time() + 60  # a bound on the wait only: the cancellations reach the daemon
    while calls_in_progress() and time.time() < until:
        time.sleep(0.02)
    check(calls_in_progress() == 0, f"abandoned calls hold no slot: {calls_in_progress()} in progress")


window = fifo("window", 256)
abandon_preloads(N - 1)
admits_n_new(f"with {N - 1} abandoned calls' handlers still blocked")
# Handlers left running are bounded by the limit: with N of them, the next
# call is refused saying so (a client cancelling in a loop piles up no
# threads; before, new calls were admitted up to 2N such handlers)
abandon_preloads(1)
c, d = code_of(B.stub.GetStatus, pb.GetStatusRequest(), timeout=60)
check(c == grpc.StatusCode.RESOURCE_EXHAUSTED and f"{N} handlers still finishing calls their clients left" in d,
      f"{N} abandoned handlers still blocked: a new call refused: {c} {d!r}")
release_fifo(*window)
until = time.time() + 60  # a bound on the wait only: the released handlers return
while "still finishing" in code_of(B.stub.GetStatus, pb.GetStatusRequest(), timeout=60)[1] and time.time() < until:
    time.sleep(0.02)
check(code_of(B.stub.GetStatus, pb.GetStatusRequest(), timeout=60)[0] == grpc.StatusCode.OK,
      "calls are served once the blocked handlers returned")
check(B.stop() == 0, "daemon exits 0")

# ---- item 6: shutdown at the grace deadline --------------------------------------
# A job's parameter load hangs (a FIFO no one writes): at the grace deadline
# the job is cancelled saying why, and the daemon exits without waiting for
# the load in hand (before, it joined the loading thread: it never exited).
PC = os.path.join(tmp, "stop-params")
with socket.socket() as so:
    so.bind(("127.0.0.1", 0))
    http = so.getsockname()[1]
C = Daemon("stop", PC, daemon_keys=f'shutdown_grace = "1s"\nstatus_listen = "127.0.0.1:{http}"\n').start()
porep = os.path.join(PC, "cuzk-test-porep-512.params")
os.remove(porep)
os.mkfifo(porep)
q = submit_req(pb.TEST_POREP)
fut = C.stub.Prove.future(pb.ProveRequest(submit=q), timeout=300)


def srs_state(circuit):
    st = json.load(urllib.request.urlopen(f"http://127.0.0.1:{http}/status", timeout=30))
    return next((c["srs"] for c in st["engine"]["circuits"] if c["circuit_id"] == circuit), None)


until = time.time() + 60
while srs_state("test-porep") != "loading" and time.time() < until:
    time.sleep(0.02)
check(srs_state("test-porep") == "loading", "the job's parameter load is in hand (blocked on the FIFO)")
C.p.send_signal(signal.SIGTERM)
try:
    r = fut.result().result
    check(r.status == S.CANCELLED and r.error_message == "cancelled: daemon shutting down",
          f"a job cancelled at the grace deadline says why: {r.status} {r.error_message!r}")
except grpc.RpcError as e:
    check(False, f"Prove over the grace deadline: {e.code()} {e.details()}")
try:
    rc = C.p.wait(60)  # a bound on the wait only: the daemon that joins the load never exits
except subprocess.TimeoutExpired:
    rc = None
check(rc == 0, f"the daemon exits 0 with the load in hand abandoned: {rc}")
check("parameter load or PCE extraction unfinished" in C.logtext(), "the log says what was abandoned")
if rc is None:
    C.p.kill()
os.close(os.open(porep, os.O_WRONLY | os.O_NONBLOCK)) if rc is None else None
C.ch.close()

# ---- item 4: a corrupt PCE cache file, through the daemon's JSON logger ----------
# Twice: the cached PCE of test-window is corrupted (one random byte: every
# byte of the file is covered by a checksum or a zero-padding check), the
# daemon restarted with JSON logs: the corruption is a JSON log line, the file
# is set aside and re-extracted, and one set-aside copy is kept, not one per time.
PC = os.path.join(tmp, "pce-params")
pce = os.path.join(PC, "test-window.pce")
for rnd in range(3):
    D = Daemon(f"pce{rnd}", PC, conf='[logging]\nformat = "json"\n').start()
    r = D.stub.Prove(pb.ProveRequest(submit=submit_req(pb.TEST_WINDOW_POST)), timeout=120).result
    check(r.status == S.COMPLETED, f"round {rnd}: test-window proves: {r.status} {r.error_message}")
    until = time.time() + 60  # a bound on the wait only
    while not os.path.exists(pce) and time.time() < until:
        time.sleep(0.02)
    check(D.stop() == 0, f"round {rnd}: daemon exits 0")
    lines = D.logtext().splitlines()
    try:
        msgs = [json.loads(ln)["msg"] for ln in lines]
        check(True, "JSON log")
    except ValueError:
        check(False, f"round {rnd}: every log line is JSON: {[ln for ln in lines if not ln.startswith('{')][:3]}")
        msgs = lines
    if rnd:
        check(any("set aside" in m and pce in m for m in msgs),
              f"round {rnd}: the corrupt PCE is reported in the JSON log: {[m for m in msgs if 'pce' in m.lower()][:4]}")
    if rnd < 2:
        data = bytearray(open(pce, "rb").read())
        off = rng.randrange(len(data))
        data[off] ^= 1 + rng.randrange(255)
        open(pce, "wb").write(bytes(data))
aside = [f for f in os.listdir(PC) if f.startswith("test-window.pce.rejected")]
check(len(aside) == 1, f"one set-aside copy kept after two corruptions: {aside}")
# Verified at start, in the background: a byte flipped while the daemon was
# down is reported (JSON log) and the file set aside with no proof asking for
# the PCE (before, only the first proof through it found out).
data = bytearray(open(pce, "rb").read())
off = rng.randrange(len(data))
data[off] ^= 1 + rng.randrange(255)
open(pce, "wb").write(bytes(data))
D = Daemon("pce-start", PC, conf='[logging]\nformat = "json"\n').start()


def pce_reported():
    return [ln for ln in D.logtext().splitlines() if "set aside" in ln and pce in ln]


until = time.time() + 60  # a bound on the wait only
while not pce_reported() and time.time() < until:
    time.sleep(0.05)
check(len(pce_reported()) == 1 and not os.path.exists(pce),
      f"a PCE corrupted at byte {off} is reported and set aside at start: {pce_reported()}")
jobs = D.stub.GetMetrics(pb.GetMetricsRequest()).prometheus_text
check("\ncuzk_jobs_submitted_total 0\n" in jobs, "... with no job submitted")
check(D.stop() == 0, "daemon exits 0")

# ---- item 9: after a crash, the job journal ----------------------------------------
# Jobs accepted and not finished when the daemon is killed (kill -9) are
# answered after the restart as lost, saying when; a job that finished
# before (completed, or cancelled) is not; a torn or garbled journal is
# logged and skipped, never fatal.
PC = os.path.join(tmp, "journal-params")
state = os.path.join(tmp, "journal-state")  # made by the daemon
jconf = f'state_dir = "{state}"\n'
G = Daemon("journal1", PC, daemon_keys=jconf).start()
done_q = submit_req(pb.TEST_WINNING_POST)
r = G.stub.Prove(pb.ProveRequest(submit=done_q), timeout=120).result
check(r.status == S.COMPLETED, f"journal: a job completes before the crash: {r.status} {r.error_message}")
porep = os.path.join(PC, "cuzk-test-porep-512.params")
os.remove(porep)
os.mkfifo(porep)  # the jobs' parameter load blocks: they stay unfinished until the kill
slow = [submit_req(pb.TEST_POREP) for _ in range(2 + rng.randrange(3))]
for q in slow:
    G.stub.SubmitProof(q)
cancelled = slow.pop(rng.randrange(len(slow)))
G.stub.CancelProof(pb.CancelProofRequest(job_id=cancelled.request_id))
G.p.kill()
G.p.wait(60)
G.ch.close()
os.remove(porep)  # the restarted daemon writes its test parameters again
G = Daemon("journal2", PC, daemon_keys=jconf).start()


def await_status(d, job_id):
    return harness_await(d.stub, job_id, timeout_ms=1000)


for q in slow:
    st, msg = await_status(G, q.request_id)
    check(st == S.FAILED and f"job {q.request_id} was accepted at " in msg and "lost in a restart at " in msg
          and msg.endswith("resubmit it"), f"journal: a job accepted before the kill is lost in a restart: {st} {msg!r}")
for q, what in ((done_q, "completed"), (cancelled, "cancelled"), (submit_req(), "never submitted")):
    st, msg = await_status(G, q.request_id)
    check(st == grpc.StatusCode.NOT_FOUND and "lost" not in msg, f"journal: a job {what} is not called lost: {st} {msg!r}")
again = slow.pop(0)
r = G.stub.Prove(pb.ProveRequest(submit=again), timeout=120).result
check(r.status == S.COMPLETED, f"journal: a lost job resubmitted proves: {r.status} {r.error_message}")
check(G.stop() == 0, "journal: daemon exits 0")
# A garbled line and a torn one appended (a disk error, a write cut by a
# crash): logged, skipped; the ids lost earlier are still lost.
jpath = os.path.join(state, "cuzk-journal")
garbage = bytes(rng.randrange(32, 127) for _ in range(1 + rng.randrange(80)))
torn = f"A {int(time.time() * 1000)} {rid('torn').encode().hex()}".encode()[:1 + rng.randrange(40)]
with open(jpath, "ab") as f:
    f.write(garbage + b"\n" + torn)
G = Daemon("journal3", PC, daemon_keys=jconf).start()
log = G.logtext()
check("1 unreadable lines ignored" in log and "is torn" in log, f"journal: the garbled and the torn line are logged: "
      f"{[ln for ln in log.splitlines() if 'journal' in ln][-3:]}")
for q in slow:
    st, msg = await_status(G, q.request_id)
    check(st == S.FAILED and "lost in a restart" in msg, f"journal: still lost after another restart: {st} {msg!r}")
st, msg = await_status(G, again.request_id)
check(st == grpc.StatusCode.NOT_FOUND, f"journal: the resubmitted job that completed is not lost: {st} {msg!r}")
check(G.stop() == 0, "journal: daemon exits 0")
# A journal of random bytes: the daemon starts and says so.
with open(jpath, "wb") as f:
    f.write(bytes(rng.randrange(256) for _ in range(1 + rng.randrange(4096))))
G = Daemon("journal4", PC, daemon_keys=jconf).start()
check("no \"cuzk-journal 1\" header" in G.logtext(), "journal: random bytes are reported, not fatal")
check(G.stop() == 0, "journal: daemon exits 0")

# Where the journal goes: [daemon] state_dir, else $STATE_DIRECTORY's first
# entry (systemd's StateDirectory=, ':'-separated; the command line reads it
# and hands it to the config loader), else the param cache.
sd = [os.path.join(tmp, f"state-env-{rng.getrandbits(32):08x}-{i}") for i in range(2)]
os.makedirs(sd[0])  # systemd makes it before the start


def journal_at(d, name, where):
    """The journal the daemon's start log names, and that it is there."""
    path = os.path.join(where, "cuzk-journal")
    lines = [ln for ln in d.logtext().splitlines() if "job journal" in ln]
    check(any(f"job journal {path} " in ln for ln in lines) and os.path.isfile(path),
          f"journal: {name}: in {where}: {lines}")


cases = (("$STATE_DIRECTORY alone", "", {"STATE_DIRECTORY": ":".join(sd)}, sd[0]),
         ("state_dir over $STATE_DIRECTORY", f'state_dir = "{sd[1]}"\n', {"STATE_DIRECTORY": sd[0]}, sd[1]),
         ("neither: the param cache", "", {"STATE_DIRECTORY": ""}, PC),
         ("a relative $STATE_DIRECTORY is none", "", {"STATE_DIRECTORY": "state"}, PC))
for i, (name, keys, env, where) in enumerate(cases):
    G = Daemon(f"journal-env{i}", PC, daemon_keys=keys).start(env=env)
    journal_at(G, name, where)
    check(G.stop() == 0, f"journal: {name}: daemon exits 0")

H.finish(daemons)
