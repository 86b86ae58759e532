"""What the daemon tests share (daemon_*_test.py): the run's seed, a scratch
directory, counted checks, fresh request ids and test-kind requests, a test
daemon with a config of its own, daemons killed (their logs shown) on an
uncaught exception, and Python stubs
generated at run time from our proto (so a proto change is tested as is)."""
import os
import random
import socket
import subprocess
import sys
import tempfile
import time

from grpc_tools import protoc


def code_of(fn, *a, **kw):
    """The status of a call fn(*a, **kw): (code, details); OK and "" when it succeeds."""
    import grpc
    try:
        fn(*a, **kw)
        return grpc.StatusCode.OK, ""
    except grpc.RpcError as e:
        return e.code(), e.details()


def await_status(stub, job_id, timeout_ms=120000):
    """AwaitProof of job_id: (status, error_message), or (gRPC code, details) when the call fails."""
    import grpc
    from cuzk.v1 import proving_pb2 as pb
    try:
        r = stub.AwaitProof(pb.AwaitProofRequest(job_id=job_id, timeout_ms=timeout_ms), timeout=timeout_ms / 1000 + 30)
        return r.status, r.error_message
    except grpc.RpcError as e:
        return e.code(), e.details()


def free_port():
    """A TCP port on 127.0.0.1 that nothing listens on now."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def wait_for_log(p, logtext, text, name, timeout=120):
    """Until `text` is in logtext() (a daemon's log); RuntimeError, with the
    log, when the process p exits first or the time runs out."""
    until = time.time() + timeout
    while text not in logtext():
        if p.poll() is not None:
            raise RuntimeError(f"{name} exited: " + logtext())
        if time.time() > until:
            raise RuntimeError(f"{name}: no {text!r} in its log after {timeout} s")
        time.sleep(0.05)


class TestDaemon:
    """`cuzk daemon --test-kinds` (small test circuits) with a config of its
    own in tmp: the listen address, `keys` (more [daemon] TOML), a param
    cache of its own, `workers` partition workers; its log beside the
    config. Each daemon started is added to `daemons` (Harness's kill list)."""

    def __init__(self, cuzk, tmp, daemons, name, listen, keys="", workers=2):
        self.cuzk, self.daemons, self.name, self.listen = cuzk, daemons, name, listen
        self.conf, self.log = os.path.join(tmp, f"{name}.toml"), os.path.join(tmp, f"{name}.log")
        with open(self.conf, "w") as f:
            f.write(f'[daemon]\nlisten = "{listen}"\n{keys}[srs]\nparam_cache = "{tmp}/{name}-params"\n'
                    f'[synthesis]\npartition_workers = {workers}\n')
        self.p = None

    def launch(self, timeout=120):
        """Starts it: True once it serves, False when it exited before."""
        self.daemons.append(self)
        self.p = subprocess.Popen([self.cuzk, "daemon", "--config", self.conf, "--test-kinds", "--test-constraints",
                                   "512", "--test-post-constraints", "256"],
                                  stdout=subprocess.DEVNULL, stderr=open(self.log, "ab"))
        until = time.time() + timeout  # a bound on the wait only
        while "serving on" not in self.logtext():
            if self.p.poll() is not None:
                return False
            if time.time() > until:
                raise RuntimeError(f"{self.name}: neither serving nor exited after {timeout} s")
            time.sleep(0.05)
        return True

    def logtext(self):
        return open(self.log).read() if os.path.exists(self.log) else ""


def make_pki(d, rng, server_san, client_cn):
    """A test PKI made by the openssl command in directory d (EC P-256, valid
    2 days, fresh keys): ca.crt/key; server.crt/key signed by it for
    server_san ("IP:127.0.0.1,DNS:localhost"); client.crt/key (CN client_cn)
    signed by it; rogue-ca.crt and rogue.crt/key, a client of another CA."""
    import subprocess
    os.makedirs(d)

    def openssl(*args):
        r = subprocess.run(["openssl", *args], capture_output=True, text=True, timeout=60)
        if r.returncode:
            raise RuntimeError(f"openssl {' '.join(args)}: {r.stderr}")

    def path(name):
        return os.path.join(d, name)

    def ca(name):
        openssl("req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes",
                "-keyout", path(f"{name}.key"), "-out", path(f"{name}.crt"), "-days", "2",
                "-subj", f"/CN={name} {rng.getrandbits(32):08x}",
                "-addext", "basicConstraints=critical,CA:TRUE", "-addext", "keyUsage=critical,keyCertSign,cRLSign")

    def cert(name, signer, cn, ext):
        with open(path(f"{name}.ext"), "w") as f:
            f.write("basicConstraints=CA:FALSE\n" + ext)
        openssl("req", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes",
                "-keyout", path(f"{name}.key"), "-out", path(f"{name}.csr"), "-subj", f"/CN={cn}")
        openssl("x509", "-req", "-in", path(f"{name}.csr"), "-CA", path(f"{signer}.crt"), "-CAkey",
                path(f"{signer}.key"), "-set_serial", str(rng.getrandbits(63)), "-days", "2",
                "-out", path(f"{name}.crt"), "-extfile", path(f"{name}.ext"))

    ca("ca")
    ca("rogue-ca")
    cert("server", "ca", "cuzk-daemon", f"subjectAltName={server_san}\nextendedKeyUsage=serverAuth\n")
    cert("client", "ca", client_cn, "extendedKeyUsage=clientAuth\n")
    cert("rogue", "rogue-ca", "rogue", "extendedKeyUsage=clientAuth\n")


class Harness:
    def __init__(self, name, proto_dir, seed_bits=63):
        self.name = name
        env = int(os.environ.get("CUZK_SEED", "0"), 0)
        self.seed = env or random.SystemRandom().getrandbits(seed_bits)
        print(f"{name}: seed: {self.seed:#x} (replay with CUZK_SEED={self.seed:#x})", flush=True)
        self.rng = random.Random(self.seed)
        self.tmp = tempfile.mkdtemp(prefix=f"cuzk-{name}-")
        self.failures, self.checks = [], 0
        gen = os.path.join(self.tmp, "gen")
        os.makedirs(gen)
        rc = protoc.main(["protoc", f"-I{proto_dir}", f"--python_out={gen}", f"--grpc_python_out={gen}",
                          os.path.join(proto_dir, "cuzk/v1/proving.proto")])
        assert rc == 0, "grpc_tools.protoc failed"
        sys.path.insert(0, gen)

    def finish(self, daemons=()):
        """The summary line; with failures, the scratch directory kept, each
        daemon's (objects with .name, .logtext()) log tail, exit 1; without,
        the scratch directory removed."""
        print(f"{self.name}: {self.checks - len(self.failures)} checks passed, {len(self.failures)} failed",
              flush=True)
        if self.failures:
            print(f"kept {self.tmp} for inspection")
            for d in daemons:
                print(f"--- {d.name} log tail ---\n" + d.logtext()[-3000:])
            sys.exit(1)
        import shutil
        shutil.rmtree(self.tmp, ignore_errors=True)

    def kill_daemons_on_error(self, daemons):
        """On an uncaught exception: the traceback, every daemon in the list
        (objects with .name, .p, .logtext()) killed, its log's tail, exit 1."""
        def on_error(kind, value, tb):
            import traceback
            traceback.print_exception(kind, value, tb)
            for n in daemons:
                if getattr(n, "p", None) is not None and n.p.poll() is None:
                    n.p.kill()
                print(f"--- {n.name} log tail ---\n" + n.logtext()[-3000:])
            sys.exit(1)
        sys.excepthook = on_error

    def seed8(self):
        """A test kind's input: an 8-byte witness seed."""
        return self.rng.getrandbits(64).to_bytes(8, "little")

    def rid(self, tag):
        """A fresh request id naming what it is for."""
        return f"r-{tag}-{self.rng.getrandbits(48):012x}"

    def submit_req(self, kind=None, **kw):
        """A SubmitProofRequest of a test kind (default test-winning) with a
        fresh id and witness seed, unless given."""
        from cuzk.v1 import proving_pb2 as pb
        kw.setdefault("request_id", self.rid("x"))
        kw.setdefault("vanilla_proof", self.seed8())
        return pb.SubmitProofRequest(proof_kind=pb.TEST_WINNING_POST if kind is None else kind, **kw)

    def check(self, cond, what, verbose=False):
        self.checks += 1
        if not cond:
            self.failures.append(what)
        if verbose or not cond:
            print(f"{'ok  ' if cond else 'FAIL'}: {what}", flush=True)


def cuzk_runner(cuzk, cwd):
    """run(*args): `cuzk args` in cwd, what it printed; RuntimeError with its output when it fails."""
    def run(*args):
        r = subprocess.run([cuzk, *args], cwd=cwd, capture_output=True, text=True)
        if r.returncode != 0:
            raise RuntimeError(f"cuzk {' '.join(args)}: exit {r.returncode}\n{r.stdout}{r.stderr}")
        return r.stdout + r.stderr
    return run


def kill_on_error(tmp, procs):
    """sys.excepthook for the Filecoin daemon tests: the traceback, the processes procs() lists
    killed, tmp/daemon.log's tail, exit 1."""
    def on_error(kind, value, tb):
        import traceback
        traceback.print_exception(kind, value, tb)
        for p in procs():
            if p and p.poll() is None:
                p.kill()
        log = os.path.join(tmp, "daemon.log")
        if os.path.exists(log):
            print("--- daemon log tail ---\n" + open(log).read()[-4000:])
        sys.exit(1)
    sys.excepthook = on_error


def start_fil_daemon(cuzk, tmp, params, toml):
    """`cuzk daemon` on unix://tmp/cuzk.sock with tmp/cuzk.toml ([daemon] listen, max_message_size,
    [srs] param_cache = params, then toml), its log tmp/daemon.log; waits for "serving on".
    (process, a ProvingEngine stub)."""
    import grpc
    from cuzk.v1 import proving_pb2_grpc as pbg
    sock, conf, log = (os.path.join(tmp, n) for n in ("cuzk.sock", "cuzk.toml", "daemon.log"))
    with open(conf, "w") as f:
        f.write(f'[daemon]\nlisten = "unix://{sock}"\nmax_message_size = "64MiB"\n'
                f'[srs]\nparam_cache = "{params}"\n{toml}')
    p = subprocess.Popen([cuzk, "daemon", "--config", conf], stdout=subprocess.DEVNULL, stderr=open(log, "w"))
    deadline = time.time() + 60
    while "serving on" not in open(log).read():
        if p.poll() is not None or time.time() > deadline:
            raise RuntimeError("daemon did not start: " + open(log).read())
        time.sleep(0.05)
    ch = grpc.insecure_channel(f"unix://{sock}", options=[("grpc.max_send_message_length", -1),
                                                          ("grpc.max_receive_message_length", -1)])
    return p, pbg.ProvingEngineStub(ch)


def fil_request(pb, d, request_id, **override):
    """A SubmitProofRequest from the request.json that `cuzk gen-vanilla` wrote
    in directory d (its vanilla proof files read from there)."""
    import json
    kinds = {"porep": pb.POREP_SEAL_COMMIT, "snap": pb.SNAP_DEALS_UPDATE, "wpost": pb.WINDOW_POST_PARTITION,
             "winning": pb.WINNING_POST, "ni-porep": pb.NI_POREP_SEAL_COMMIT}
    q = json.load(open(os.path.join(d, "request.json")))
    kw = dict(proof_kind=kinds[q["proof_kind"]], sector_size=q["sector_size"],
              registered_proof=q["registered_proof"], sector_number=q["sector_number"],
              miner_id=q["miner_id"], partition_index=q.get("partition_index", 0))
    for f in ("randomness", "comm_r_old", "comm_r_new", "comm_d_new"):
        if f in q:
            kw[f] = bytes.fromhex(q[f])
    if "vanilla_proof" in q:
        kw["vanilla_proof"] = open(os.path.join(d, q["vanilla_proof"]), "rb").read()
    if "vanilla_proofs" in q:
        kw["vanilla_proofs"] = [open(os.path.join(d, f), "rb").read() for f in q["vanilla_proofs"]]
    kw["request_id"] = request_id
    kw.update(override)
    return pb.SubmitProofRequest(**kw)
