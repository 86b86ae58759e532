"""What an operator of the cuzk daemon reads and sets up (issue 24, items 7
and 8), driven by Python's grpcio (see daemon_ops.test.sh):

- logs, in text and in JSON: one line per finished job with its kind,
  partitions and times (equal to what AwaitProof reports); rejected calls with
  their code and peer, rate limited, every held-back line counted; a job that
  fails at once has its "submitted" line before its "failed" one; in JSON,
  these lines' fields (kind, partitions, times, reason; method, code, peer)
  are typed keys beside msg, also for an id that mimics them;
- auth: the Bearer scheme in any case (RFC 7235), a blank auth_token_file
  named as such;
- TLS from gRPC core with a CA, server and client certificates made here by
  openssl: TLS calls work, plaintext to the TLS port fails, mutual TLS without
  a (right) client certificate fails, the token over TLS works and a wrong one
  is refused; `cuzk bench` connects over TLS too; wrong TLS files stop the
  start with the key named.

Binds unix sockets and 127.0.0.1 only. Witness seeds, ids, tokens and keys
are fresh per run (the seed is printed; CUZK_SEED replays what it draws)."""
import json
import os
import re
import signal
import subprocess
import sys
import threading
import time

import grpc

CUZK, PROTO_DIR = sys.argv[1], sys.argv[2]
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from grpc_harness import Harness, code_of, free_port, make_pki, wait_for_log  # noqa: E402

H = Harness("daemon_ops", PROTO_DIR)
rng, tmp, check = H.rng, H.tmp, H.check
from cuzk.v1 import proving_pb2 as pb  # noqa: E402
from cuzk.v1 import proving_pb2_grpc as pbg  # noqa: E402

S = pb.AwaitProofResponse
SC = grpc.StatusCode
OPTS = [("grpc.use_local_subchannel_pool", 1)]
KINDS = {pb.TEST_POREP: ("test-porep", 10), pb.TEST_WINDOW_POST: ("test-window", 1),
         pb.TEST_WINNING_POST: ("test-winning", 1)}
REJECT_BURST = 20  # rejected calls logged a minute (service.c)
daemons = []
H.kill_daemons_on_error(daemons)


class Daemon:
    """A daemon with the test kinds and a param cache of its own; `keys` is
    extra [daemon] TOML."""

    def __init__(self, name, listen, keys="", fmt="text", preload=()):
        self.name, self.listen, self.fmt = name, listen, fmt
        self.conf, self.log = os.path.join(tmp, f"{name}.toml"), os.path.join(tmp, f"{name}.log")
        self.params = os.path.join(tmp, f"{name}-params")
        with open(self.conf, "w") as f:
            f.write(f'[daemon]\nlisten = "{listen}"\n{keys}[srs]\nparam_cache = "{self.params}"\n'
                    f'preload = {json.dumps(list(preload))}\n'
                    f'[synthesis]\npartition_workers = 2\n[logging]\nformat = "{fmt}"\n')
        self.p = None

    def start(self):
        daemons.append(self)
        self.p = subprocess.Popen([CUZK, "daemon", "--config", self.conf, "--test-kinds", "--test-constraints",
                                   "512", "--test-post-constraints", "256"],
                                  stdout=subprocess.DEVNULL, stderr=open(self.log, "ab"))
        wait_for_log(self.p, self.logtext, "serving on", self.name)
        return self

    def check_config(self):
        """`cuzk daemon --check-config`: (exit code, what it wrote)."""
        r = subprocess.run([CUZK, "daemon", "--config", self.conf, "--check-config"], capture_output=True,
                           text=True, timeout=60)
        return r.returncode, r.stdout + r.stderr

    def logtext(self):
        return open(self.log).read() if os.path.exists(self.log) else ""

    def lines(self):
        """(level, message) of each log line, from either format; a line of
        neither shape is a failure."""
        out = []
        for ln in self.logtext().splitlines():
            if self.fmt == "json":
                try:
                    o = json.loads(ln)
                    out.append((o["level"], o["msg"]))
                except (ValueError, KeyError) as e:
                    check(False, f"{self.name}: a JSON log line: {ln!r}: {e}")
            else:
                m = re.match(r"^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z (\w+) +(.*)$", ln)
                check(m is not None, f"{self.name}: a text log line: {ln!r}")
                if m:
                    out.append((m.group(1), m.group(2)))
        return out

    def objs(self):
        """The JSON log's objects, in order (format "json")."""
        return [json.loads(ln) for ln in self.logtext().splitlines()]

    def stop(self):
        self.p.send_signal(signal.SIGTERM)
        return self.p.wait(120)


rid = H.rid


def submit_req(kind):
    return H.submit_req(kind, request_id=rid(KINDS[kind][0]))


END = re.compile(r"kind=(\S+) partitions=(\d+) proved=(\d+) queue_ms=(\d+) srs_ms=(\d+) synthesis_ms=(\d+) "
                 r"prove_ms=(\d+) verify_ms=(\d+) total_ms=(\d+)(?:: (.*))?$")


def end_lines(lines, job_id, outcome):
    """The job's completion lines: (index, level, fields)."""
    head = f"job {job_id} {outcome}: "
    out = []
    for i, (lvl, msg) in enumerate(lines):
        at = msg.find(head)
        if at >= 0:
            m = END.match(msg[at + len(head):])
            out.append((i, lvl, m.groups() if m else None))
    return out


def typed(obj, want):
    """obj has each key of want with that value and its JSON type (an int
    is not a bool, a number not a string)."""
    return all(k in obj and type(obj[k]) is type(v) and obj[k] == v for k, v in want.items())


# ---- item 7: log lines, in both formats ------------------------------------------
def refused_by_transport(fmt):
    """A call over max_concurrent_calls is answered by the transport, before
    any handler: logged as rejected calls are. Its own daemon, with a limit
    of 1 and no other call: of 2 calls held open, exactly one is refused."""
    sock = os.path.join(tmp, f"limit-{fmt}.sock")
    L = Daemon(f"limit-{fmt}", f"unix://{sock}", keys="max_concurrent_calls = 1\n", fmt=fmt).start()
    ch = grpc.insecure_channel(f"unix://{sock}", options=OPTS)
    release = threading.Event()

    def held(req):
        release.wait()
        yield req

    status_held = ch.stream_unary("/cuzk.v1.ProvingEngine/GetStatus",
                                  request_serializer=pb.GetStatusRequest.SerializeToString,
                                  response_deserializer=pb.GetStatusResponse.FromString)
    futs = [status_held.future(held(pb.GetStatusRequest()), timeout=300) for _ in range(2)]
    until = time.time() + 60  # bounds the wait only: one of the two is refused at once
    while not any(f.done() for f in futs) and time.time() < until:
        time.sleep(0.02)
    release.set()
    codes = sorted(code_of(f.result)[0].name for f in futs)
    check(codes == ["OK", "RESOURCE_EXHAUSTED"], f"{fmt}: 2 calls, limit 1: one refused: {codes}")
    ch.close()
    check(L.stop() == 0, f"{fmt}: daemon exits 0")
    rej = [(lvl, m) for lvl, m in L.lines() if m.startswith("rejected ")]
    check(rej == [("warn", "rejected GetStatus from unix socket: RESOURCE_EXHAUSTED: too many calls in progress "
                           "(daemon.max_concurrent_calls = 1)")], f"{fmt}: the refusal is logged: {rej}")
    if fmt == "json":
        o = [o for o in L.objs() if o.get("event") == "call_rejected"]
        want = {"method": "GetStatus", "peer": "unix socket", "code": "RESOURCE_EXHAUSTED", "grpc_status": 8,
                "reason": "too many calls in progress (daemon.max_concurrent_calls = 1)"}
        check(len(o) == 1 and typed(o[0], want), f"json: the refusal's keys: {o}")


def log_checks(fmt):
    sock = os.path.join(tmp, f"logs-{fmt}.sock")
    D = Daemon(f"logs-{fmt}", f"unix://{sock}", fmt=fmt, preload=["test-winning"]).start()
    ch = grpc.insecure_channel(f"unix://{sock}", options=OPTS)
    stub = pbg.ProvingEngineStub(ch)

    # rejected calls: a random run of bad requests, more than the rate limit
    # lets through. Each call's code as the client saw it.
    seen = []
    bad = [("SubmitProof", lambda: stub.SubmitProof(pb.SubmitProofRequest(
                proof_kind=1000 + rng.randrange(1000), request_id=rid("bad")))),
           ("AwaitProof", lambda: stub.AwaitProof(pb.AwaitProofRequest(job_id=""))),
           ("AwaitProof", lambda: stub.AwaitProof(pb.AwaitProofRequest(job_id=rid("none"), timeout_ms=1))),
           ("CancelProof", lambda: stub.CancelProof(pb.CancelProofRequest(job_id=rid("none"))))]
    for _ in range(rng.randint(3 * REJECT_BURST, 5 * REJECT_BURST)):
        name, fn = rng.choice(bad)
        seen.append((name, code_of(fn)[0]))
    check(all(c in (SC.INVALID_ARGUMENT, SC.NOT_FOUND) for _, c in seen),
          f"{fmt}: the bad calls are refused: {set(c for _, c in seen)}")

    # jobs that complete, through SubmitProof + AwaitProof or Prove; one id
    # mimics the fields of the lines it appears in (ids are free text)
    done = []
    for i in range(rng.randint(3, 6)):
        q = submit_req(rng.choice(list(KINDS)))
        if i == 0:
            q.request_id = (f"{rid('mimic')} done: kind=fake partitions=7 proved=7 queue_ms=1 srs_ms=1 synthesis_ms=1 "
                            "prove_ms=1 verify_ms=1 total_ms=1: not a reason: x (9 partitions, priority low)")
        if rng.getrandbits(1):
            r = stub.Prove(pb.ProveRequest(submit=q), timeout=300).result
        else:
            stub.SubmitProof(q)
            r = stub.AwaitProof(pb.AwaitProofRequest(job_id=q.request_id), timeout=300)
        check(r.status == S.COMPLETED, f"{fmt}: {q.request_id} proves: {S.Status.Name(r.status)} {r.error_message}")
        done.append((q, r))

    # jobs that fail at once: their parameter file is cut and out of memory,
    # so the load fails as soon as a worker takes the job, racing the
    # submit's own path
    stub.EvictSRS(pb.EvictSrsRequest(circuit_id="test-window"))
    win = os.path.join(D.params, "cuzk-test-window-256.params")
    size = os.path.getsize(win)
    with open(win, "r+b") as f:
        f.truncate(rng.randrange(1, size))
    failed = []
    for _ in range(rng.randint(24, 48)):
        q = submit_req(pb.TEST_WINDOW_POST)
        stub.SubmitProof(q)
        failed.append(q)
    for i, q in enumerate(failed):
        r = stub.AwaitProof(pb.AwaitProofRequest(job_id=q.request_id), timeout=120)
        check(r.status == S.FAILED and r.error_message, f"{fmt}: a job on a cut .params fails: {S.Status.Name(r.status)}")
        failed[i] = (q, r)
    # a job cancelled while its parameter load hangs (a FIFO no one writes
    # yet): its last line says who cancelled it, as AwaitProof does
    stub.EvictSRS(pb.EvictSrsRequest(circuit_id="test-porep"))
    porep = os.path.join(D.params, "cuzk-test-porep-512.params")
    os.remove(porep)
    os.mkfifo(porep)
    cq = submit_req(pb.TEST_POREP)
    stub.SubmitProof(cq)
    was = stub.CancelProof(pb.CancelProofRequest(job_id=cq.request_id)).was_running
    cr = stub.AwaitProof(pb.AwaitProofRequest(job_id=cq.request_id), timeout=60)
    # a load begun sees an empty file and ends; a job cancelled while queued
    # begins none, and this thread waits for no one until the test exits
    threading.Thread(target=lambda: os.close(os.open(porep, os.O_WRONLY)), daemon=True).start()
    check(cr.status == S.CANCELLED and cr.error_message == "cancelled: CancelProof from unix socket",
          f"{fmt}: a cancelled job says who cancelled it: {S.Status.Name(cr.status)} {cr.error_message!r} "
          f"(was running: {was})")
    ch.close()
    check(D.stop() == 0, f"{fmt}: daemon exits 0")

    lines = D.lines()
    for q, r in done:
        ends = end_lines(lines, q.request_id, "done")
        kind, parts = KINDS[q.proof_kind]
        want = (kind, str(parts), str(parts), str(r.queue_wait_ms), str(r.srs_load_ms), str(r.synthesis_ms),
                str(r.gpu_compute_ms), str(r.verify_ms), str(r.total_ms), None)
        check(len(ends) == 1 and ends[0][1] == "info" and ends[0][2] == want,
              f"{fmt}: one completion line for {q.request_id}, its times those AwaitProof reports: "
              f"{ends} (want {want})")
    order_bad = []
    for q, r in failed:
        subs = [i for i, (_, m) in enumerate(lines) if f"job {q.request_id}: test-window submitted" in m]
        ends = end_lines(lines, q.request_id, "failed")
        check(len(ends) == 1 and ends[0][1] == "error" and ends[0][2] is not None
              and ends[0][2][:3] == ("test-window", "1", "0") and ends[0][2][-1] == r.error_message,
              f"{fmt}: one failure line for {q.request_id}, with its fields and the whole reason: {ends}")
        if not (len(subs) == 1 and ends and subs[0] < ends[0][0]):
            order_bad.append((q.request_id, subs, [e[0] for e in ends]))
    check(not order_bad, f"{fmt}: each failing job's 'submitted' line comes before its 'failed' line "
                         f"({len(order_bad)} of {len(failed)} not: {order_bad[:3]})")

    ends = end_lines(lines, cq.request_id, "cancelled")
    subs = [i for i, (_, m) in enumerate(lines) if f"job {cq.request_id}: test-porep submitted" in m]
    check(len(ends) == 1 and ends[0][2] is not None and ends[0][2][-1] == cr.error_message and subs
          and subs[0] < ends[0][0], f"{fmt}: the cancelled job's lines: submitted, then cancelled with who: {ends}")

    rej = [(lvl, re.match(r"^rejected (\w+) from (unix socket): ([A-Z_]+): (.+)$", m)) for lvl, m in lines
           if m.startswith("rejected ")]
    held_back = [int(m.group(1)) for _, m in
                 ((lvl, re.match(r"^(\d+) more rejected calls were not logged", msg)) for lvl, msg in lines) if m]
    check(all(m and lvl == "warn" for lvl, m in rej), f"{fmt}: rejected-call lines name method, unix peer and code "
                                                      f"(warn): {[m for _, m in rej if not m][:2]}")
    got = [(m.group(1), m.group(3)) for _, m in rej if m]
    want = [(n, c.name) for n, c in seen]
    check(len(got) + sum(held_back) == len(seen),
          f"{fmt}: {len(seen)} rejected calls: {len(got)} logged + {sum(held_back)} counted as held back")
    check(0 < len(got) < len(seen) and held_back, f"{fmt}: the rate limit held some back: {len(got)} of {len(seen)}")
    k = min(REJECT_BURST, len(got))
    check(got[:k] == want[:k], f"{fmt}: the first {k} rejected calls logged in order: {got[:3]} vs {want[:3]}")
    if fmt == "json":
        json_keys(D, done, failed, cq, cr, seen, held_back)


def json_keys(D, done, failed, cq, cr, seen, held_back):
    """The JSON log's lines carry their fields as typed keys beside msg."""
    objs = D.objs()

    def events(ev, job=None):
        return [o for o in objs if o.get("event") == ev and (job is None or o.get("job") == job)]

    for q, r in done:
        kind, parts = KINDS[q.proof_kind]
        sub, end = events("job_submitted", q.request_id), events("job_end", q.request_id)
        check(len(sub) == 1 and typed(sub[0], {"kind": kind, "peer": "unix socket", "partitions": parts})
              and type(sub[0].get("priority")) is str, f"json: {q.request_id!r} submitted: {sub}")
        want = {"outcome": "done", "kind": kind, "partitions": parts, "proved": parts, "queue_ms": r.queue_wait_ms,
                "srs_ms": r.srs_load_ms, "synthesis_ms": r.synthesis_ms, "prove_ms": r.gpu_compute_ms,
                "verify_ms": r.verify_ms, "total_ms": r.total_ms}
        check(len(end) == 1 and typed(end[0], want) and "reason" not in end[0] and end[0]["level"] == "info",
              f"json: {q.request_id!r} ended, its times as AwaitProof reports them: {end} (want {want})")
    for q, r in failed:
        end = events("job_end", q.request_id)
        check(len(end) == 1 and typed(end[0], {"outcome": "failed", "kind": "test-window", "partitions": 1,
                                               "proved": 0, "reason": r.error_message}),
              f"json: {q.request_id} failed, with its reason as a key: {end}")
    end = events("job_end", cq.request_id)
    check(len(end) == 1 and typed(end[0], {"outcome": "cancelled", "reason": cr.error_message}),
          f"json: the cancelled job's end: {end}")
    rej = events("call_rejected")
    codes = {"INVALID_ARGUMENT": 3, "NOT_FOUND": 5}
    check(rej and all(type(o.get("method")) is str and o.get("peer") == "unix socket" and o.get("code") in codes
                      and o.get("grpc_status") == codes[o["code"]] and type(o.get("reason")) is str and o["reason"]
                      and o["msg"].endswith(o["reason"]) for o in rej),
          f"json: rejected calls with method, peer, code, grpc_status, reason: {rej[:2]}")
    check([(o["method"], o["code"]) for o in rej] == [(n, c.name) for n, c in seen][:len(rej)],
          "json: the rejected calls' keys in the order made")
    held = events("calls_not_logged")
    check([o.get("count") for o in held] == held_back and all(type(o["count"]) is int for o in held),
          f"json: held-back counts as a number: {held}")
    pre = events("preloaded")
    check(len(pre) == 1 and pre[0].get("circuit") == "test-winning" and type(pre[0].get("load_ms")) is int,
          f"json: the preload line: {pre}")
    mem = events("memory_budget")
    check(len(mem) == 1 and type(mem[0].get("budget")) is int and type(mem[0].get("limit")) is int
          and 0 < mem[0]["budget"] < mem[0]["limit"] and type(mem[0].get("limit_source")) is str,
          f"json: the memory budget line: {mem}")


for fmt in ("text", "json"):
    refused_by_transport(fmt)
    log_checks(fmt)


# ---- item 8: auth, TLS ---------------------------------------------------------------
PKI = os.path.join(tmp, "pki")
client_cn = f"client-{rng.getrandbits(32):08x}"
make_pki(PKI, rng, "IP:127.0.0.1,DNS:localhost", client_cn)


def pki(name):
    return os.path.join(PKI, name)


pem = {n: open(pki(n), "rb").read() for n in ("ca.crt", "server.crt", "client.crt", "client.key", "rogue.crt",
                                              "rogue.key", "rogue-ca.crt")}
token = f"t{rng.getrandbits(96):x}"


def status_code(target, creds=None, md=None, name=None):
    """GetStatus through a fresh channel: plaintext (creds None) or TLS."""
    opts = OPTS + ([("grpc.ssl_target_name_override", name)] if name else [])
    ch = grpc.secure_channel(target, creds, options=opts) if creds else grpc.insecure_channel(target, options=opts)
    try:
        return code_of(pbg.ProvingEngineStub(ch).GetStatus, pb.GetStatusRequest(), metadata=md, timeout=30)
    finally:
        ch.close()


def bearer(scheme, tok=None):
    return [("authorization", f"{scheme} {tok or token}")]


def bench(port, *args):
    r = subprocess.run([CUZK, "bench", "status", "--addr", f"127.0.0.1:{port}", "--timeout", "30", *args],
                       capture_output=True, text=True, timeout=120)
    return r.returncode, r.stdout + r.stderr


# The Bearer scheme in any case, over plaintext TCP (a token, no TLS)
port = free_port()
P = Daemon("token", f"127.0.0.1:{port}", keys=f'auth_token = "{token}"\n').start()
for scheme in ("Bearer", "bearer", "BEARER", "bEaReR", "Bearer "):
    c, d = status_code(f"127.0.0.1:{port}", md=bearer(scheme))
    check(c == SC.OK, f"the scheme {scheme!r}: {c} {d}")
for what, md in [("a wrong token", bearer("Bearer", token + "x")), ("no scheme", [("authorization", token)]),
                 ("Basic", bearer("Basic")), ("no token", None)]:
    c, d = status_code(f"127.0.0.1:{port}", md=md)
    check(c == SC.UNAUTHENTICATED, f"{what}: refused: {c} {d}")
check(P.stop() == 0, "token daemon exits 0")
check(re.search(r"rejected GetStatus from ipv4:127\.0\.0\.1:\d+: UNAUTHENTICATED: wrong bearer token", P.logtext()),
      "a wrong token is logged with its code and peer")
check("crosses the network in clear" in P.logtext(), "a token over plaintext TCP is pointed out at start")

# start-up errors name the key and say what is wrong (--check-config and a start)
junk = pki("junk.pem")
with open(junk, "wb") as f:
    f.write(bytes(rng.getrandbits(8) | 1 for _ in range(rng.randint(64, 4096))))  # no NUL, no PEM
blank = pki("blank-token")
with open(blank, "w") as f:
    f.write(rng.choice([" ", "\t", "  \t "]) + "\n" + token + "\n")
missing = pki(f"missing-{rng.getrandbits(32):x}.crt")
# the server's request signed again, valid until yesterday; its key under a passphrase
for args in (["x509", "-req", "-in", pki("server.csr"), "-CA", pki("ca.crt"), "-CAkey", pki("ca.key"), "-set_serial",
              str(rng.getrandbits(63)), "-days", "-1", "-out", pki("expired.crt")],
             ["pkey", "-in", pki("server.key"), "-aes256", "-passout", f"pass:p{rng.getrandbits(32):x}",
              "-out", pki("encrypted.key")]):
    subprocess.run(["openssl", *args], check=True, capture_output=True, timeout=60)
tls_keys = 'tls_cert = "{}"\ntls_key = "{}"\n'
cases = [
    ("an unreadable certificate", f"127.0.0.1:{free_port()}", tls_keys.format(missing, pki("server.key")),
     ["daemon.tls_cert", missing, "No such file"]),
    ("a certificate without its key", f"127.0.0.1:{free_port()}", f'tls_cert = "{pki("server.crt")}"\n',
     ["daemon.tls_cert", "daemon.tls_key"]),
    ("a key of another certificate", f"127.0.0.1:{free_port()}", tls_keys.format(pki("server.crt"), pki("client.key")),
     ["daemon.tls_key", pki("client.key"), "does not belong"]),
    ("an expired certificate", f"127.0.0.1:{free_port()}", tls_keys.format(pki("expired.crt"), pki("server.key")),
     ["daemon.tls_cert", pki("expired.crt"), "has expired"]),
    ("a key under a passphrase", f"127.0.0.1:{free_port()}", tls_keys.format(pki("server.crt"), pki("encrypted.key")),
     ["daemon.tls_key", pki("encrypted.key"), "encrypted"]),
    ("a file that is not PEM", f"127.0.0.1:{free_port()}", tls_keys.format(junk, pki("server.key")),
     ["daemon.tls_cert", junk, "no PEM certificate"]),
    ("a client CA that is not PEM", f"127.0.0.1:{free_port()}",
     tls_keys.format(pki("server.crt"), pki("server.key")) + f'tls_client_ca = "{junk}"\n',
     ["daemon.tls_client_ca", junk]),
    ("a client CA without a certificate", f"127.0.0.1:{free_port()}", f'tls_client_ca = "{pki("ca.crt")}"\n',
     ["daemon.tls_client_ca", "daemon.tls_cert"]),
    ("TLS on a unix socket", f"unix://{tmp}/tls-unix.sock", tls_keys.format(pki("server.crt"), pki("server.key")),
     ["daemon.tls_cert", "unix socket"]),
    ("a blank auth_token_file", f"127.0.0.1:{free_port()}", f'auth_token_file = "{blank}"\n',
     ["daemon.auth_token_file", blank, "blank"]),
]
for what, listen, keys, want in cases:
    B = Daemon("bad", listen, keys=keys)
    rc, out = B.check_config()
    check(rc == 2 and all(w in out for w in want) and "daemon.auth_token:" not in out,
          f"--check-config, {what}: exit {rc}, names {want}: {out.strip()[-400:]!r}")
    r = subprocess.run([CUZK, "daemon", "--config", B.conf, "--test-kinds"], capture_output=True, text=True,
                       timeout=120)
    check(r.returncode == 2 and all(w in r.stderr for w in want), f"the daemon does not start with {what}: "
                                                                 f"{r.returncode} {r.stderr.strip()[-300:]!r}")

# TLS with a token
port = free_port()
T = Daemon("tls", f"127.0.0.1:{port}", keys=f'auth_token = "{token}"\ntls_cert = "{pki("server.crt")}"\n'
                                          f'tls_key = "{pki("server.key")}"\n').start()
tls = grpc.ssl_channel_credentials(root_certificates=pem["ca.crt"])
target = f"127.0.0.1:{port}"
c, d = status_code(target, tls, bearer("Bearer"))
check(c == SC.OK, f"TLS (127.0.0.1, the IP in the certificate) with the token: {c} {d}")
c, d = status_code(f"localhost:{port}", tls, bearer("bearer"))
check(c == SC.OK, f"TLS (localhost) with the token, lower-case scheme: {c} {d}")
for what, md in [("a wrong token", bearer("Bearer", "x" + token)), ("no token", None)]:
    c, d = status_code(target, tls, md)
    check(c == SC.UNAUTHENTICATED, f"TLS with {what}: refused: {c} {d}")
c, d = status_code(target, None, bearer("Bearer"))
check(c == SC.UNAVAILABLE, f"plaintext to the TLS port fails: {c} {d}")
c, d = status_code(target, grpc.ssl_channel_credentials(root_certificates=pem["rogue-ca.crt"]), bearer("Bearer"))
check(c == SC.UNAVAILABLE, f"a client trusting another CA does not accept the daemon: {c} {d}")
ch = grpc.secure_channel(target, tls, options=OPTS)
q = submit_req(pb.TEST_WINNING_POST)
r = pbg.ProvingEngineStub(ch).Prove(pb.ProveRequest(submit=q), metadata=bearer("Bearer"), timeout=300).result
check(r.status == S.COMPLETED and len(r.proof) == 192, f"a proof over TLS: {S.Status.Name(r.status)} {r.error_message}")
ch.close()
rc, out = bench(port, "--tls-ca", pki("ca.crt"), "--token", token)
check(rc == 0, f"cuzk bench status --tls-ca: {rc} {out[-300:]}")
rc, out = bench(port, "--token", token)
check(rc != 0, f"cuzk bench status in plaintext to the TLS port fails: {rc}")
check(T.stop() == 0, "TLS daemon exits 0")
check("TLS: bearer token required" in T.logtext(), "the start line says TLS and the token")

# mutual TLS without a token: the certificate is the credential
port = free_port()
M = Daemon("mtls", f"127.0.0.1:{port}", keys=f'tls_cert = "{pki("server.crt")}"\ntls_key = "{pki("server.key")}"\n'
                                            f'tls_client_ca = "{pki("ca.crt")}"\n').start()
target = f"127.0.0.1:{port}"
mine = grpc.ssl_channel_credentials(pem["ca.crt"], pem["client.key"], pem["client.crt"])
c, d = status_code(target, mine)
check(c == SC.OK, f"mutual TLS with a client certificate from the CA: {c} {d}")
c, d = status_code(target, tls)
check(c == SC.UNAVAILABLE, f"mutual TLS without a client certificate fails: {c} {d}")
c, d = status_code(target, grpc.ssl_channel_credentials(pem["ca.crt"], pem["rogue.key"], pem["rogue.crt"]))
check(c == SC.UNAVAILABLE, f"mutual TLS with a certificate from another CA fails: {c} {d}")
ch = grpc.secure_channel(target, mine, options=OPTS)
c, d = code_of(pbg.ProvingEngineStub(ch).AwaitProof, pb.AwaitProofRequest(job_id=""), timeout=30)
check(c == SC.INVALID_ARGUMENT, f"a bad call over mutual TLS: {c}")
ch.close()
rc, out = bench(port, "--tls-ca", pki("ca.crt"), "--tls-cert", pki("client.crt"), "--tls-key", pki("client.key"))
check(rc == 0, f"cuzk bench status with a client certificate: {rc} {out[-300:]}")
rc, out = bench(port, "--tls-ca", pki("ca.crt"))
check(rc != 0, f"cuzk bench status without one fails: {rc}")
check(M.stop() == 0, "mutual-TLS daemon exits 0")
check(re.search(rf"rejected AwaitProof from ipv4:127\.0\.0\.1:\d+ cn={client_cn}: INVALID_ARGUMENT", M.logtext()),
      "over mutual TLS the log names the client certificate")
check("mutual TLS: every client with a certificate" in M.logtext(), "the start line says mutual TLS")

print(f"daemon_ops: {H.checks - len(H.failures)}/{H.checks} checks passed", flush=True)
if H.failures:
    print("FAILED:\n  " + "\n  ".join(H.failures[:40]))
    sys.exit(1)
