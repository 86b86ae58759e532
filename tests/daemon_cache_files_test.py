"""A running daemon whose cache files are changed on disk under it (see
daemon_cache_files.test.sh), driven by Python's grpcio. Binds only unix
sockets. Random choices (what is damaged, where, the bytes written) come
from the printed seed; CUZK_SEED replays it. No check depends on timing: a
damage that lands after the bytes it hits were read changes nothing the
checks require.

  1. Temporaries of PCE builds killed mid-save ("<id>.pce.tmp.*") are removed
     when the daemon starts, each logged; one whose writer still holds the
     id's lock, and files of other names, are kept.
  2. The cached PCE of test-window, loaded by the daemon at start, is cut,
     rewritten in place (rsync --inplace), overwritten as cp does (cut to
     nothing, then part of a new file written) or replaced by rename while
     jobs through it are in flight: the daemon lives on and every job
     completes (the PCE is the daemon's own copy of checked bytes). Restarted
     on the damaged file, it reports it, sets it aside, re-extracts the
     circuit and proves; `cuzk pce inspect` accepts the rebuilt file.
  3. The largest 2KiB Filecoin .params of the build's TEST parameters
     (copied) is cut, then rewritten in place, while a PreloadSRS loads it:
     the daemon lives on, the preload either loaded the bytes before the
     damage or fails naming the file and what it found, a test-kind job
     completes after each, and once the file is put back (by rename) the
     preload loads it."""
import fcntl
import os
import shutil
import signal
import subprocess
import sys
import threading
import time

import grpc

CUZK, PROTO_DIR, FIXTURE = sys.argv[1], sys.argv[2], sys.argv[3]
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from grpc_harness import Harness, await_status, code_of, wait_for_log  # noqa: E402

H = Harness("daemon_cache_files", PROTO_DIR)
rng, tmp, check, submit_req = H.rng, H.tmp, H.check, H.submit_req
from cuzk.v1 import proving_pb2 as pb  # noqa: E402
from cuzk.v1 import proving_pb2_grpc as pbg  # noqa: E402

S = pb.AwaitProofResponse
daemons = []
H.kill_daemons_on_error(daemons)


class Daemon:
    """`cuzk daemon --test-kinds` on a unix socket with param cache pc, a
    log of its own per start."""

    def __init__(self, name, pc):
        self.name, self.pc = name, pc
        self.sock, self.conf = os.path.join(tmp, f"{name}.sock"), os.path.join(tmp, f"{name}.toml")
        self.log = os.path.join(tmp, f"{name}.log")
        with open(self.conf, "w") as f:
            f.write(f'[daemon]\nlisten = "unix://{self.sock}"\n[srs]\nparam_cache = "{pc}"\n'
                    f'[synthesis]\npartition_workers = 2\n')

    def start(self):
        daemons.append(self)
        self.p = subprocess.Popen([CUZK, "daemon", "--config", self.conf, "--test-kinds", "--test-constraints", "512",
                                   "--test-post-constraints", "256"],
                                  stdout=subprocess.DEVNULL, stderr=open(self.log, "wb"))
        wait_for_log(self.p, self.logtext, "serving on", self.name)
        self.ch = grpc.insecure_channel(f"unix://{self.sock}")
        self.stub = pbg.ProvingEngineStub(self.ch)
        return self

    def logtext(self):
        return open(self.log, errors="replace").read() if os.path.exists(self.log) else ""

    def alive(self):
        return self.p.poll() is None

    def stop(self):
        if self.alive():
            self.p.send_signal(signal.SIGTERM)
        rc = self.p.wait(120)
        self.ch.close()
        return rc


def prove_window(d, tag):
    q = submit_req(pb.TEST_WINDOW_POST, request_id=H.rid(tag))
    code, details = code_of(d.stub.SubmitProof, q, timeout=60)
    return await_status(d.stub, q.request_id) if code == grpc.StatusCode.OK else (code, details)


def rand_bytes(n):
    return rng.getrandbits(8 * n).to_bytes(n, "little") if n else b""


def rand_suffix():
    return "".join(rng.choice("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789") for _ in range(6))


def overwrite_in_place(path, low=1024):
    """A random range past byte low rewritten with random bytes, the size kept (rsync --inplace of
    another file); past a PCE's header, in the data the proofs read."""
    n = os.path.getsize(path)
    a = low + rng.randrange(n - low)
    b = a + 1 + rng.randrange(min(n - a, 1 << 20))
    with open(path, "r+b") as f:
        f.seek(a)
        f.write(rand_bytes(b - a))
    return f"bytes [{a}, {b}) of {n} rewritten in place"


def cut(path, low=0):
    """Cut at a random byte past low in the first half: whole pages gone, whatever the file's size."""
    n = os.path.getsize(path)
    at = low + rng.randrange(max(n // 2 - low, 1))
    os.truncate(path, at)
    return f"cut from {n} to {at} bytes"


def cp_over(path):
    """What cp does to a file it overwrites: cut to nothing, then the new bytes written (stopped partway)."""
    n = os.path.getsize(path)
    k = rng.randrange(n + 1)
    with open(path, "wb") as f:
        f.write(rand_bytes(k))
    return f"overwritten as cp does: {k} new bytes where {n} were"


def replace_by_rename(path):
    n = os.path.getsize(path)
    with open(path + ".new", "wb") as f:
        f.write(rand_bytes(rng.randrange(n + 1)))
    os.replace(path + ".new", path)
    return "replaced by rename with random bytes"


# ---- 1: temporaries of killed PCE builds, removed at start -----------------------
PC = os.path.join(tmp, "cache")
os.makedirs(PC)
stale = [os.path.join(PC, f"{cid}.pce.tmp.{rand_suffix()}") for cid in ("porep-32g", "test-window", "wpost-2k")]
live = os.path.join(PC, f"snap-32g.pce.tmp.{rand_suffix()}")  # its writer holds snap-32g's lock
other = os.path.join(PC, f"notes.tmp.{rand_suffix()}")
for p in stale + [live, other]:
    with open(p, "wb") as f:
        f.write(rand_bytes(1 + rng.randrange(1 << 16)))
holder = os.open(os.path.join(PC, "snap-32g.pce.lock"), os.O_RDWR | os.O_CREAT, 0o644)
fcntl.flock(holder, fcntl.LOCK_EX)
A = Daemon("start", PC).start()
check(not any(os.path.exists(p) for p in stale),
      f"the stale temporaries are removed at start: {[p for p in stale if os.path.exists(p)]}")
said = [ln for ln in A.logtext().splitlines() if "removed a temporary left by an interrupted write" in ln]
check(all(any(p in ln for ln in said) for p in stale) and len(said) == len(stale),
      f"each removal is logged, naming the file: {said}")
check(os.path.exists(live) and os.path.exists(other), "a temporary whose writer holds its lock, and others, are kept")
os.close(holder)

# ---- 2: the PCE changed under the daemon -----------------------------------------
pce = os.path.join(PC, "test-window.pce")
st, msg = prove_window(A, "extract")
check(st == S.COMPLETED, f"test-window proves (and its PCE is extracted): {st} {msg}")
until = time.time() + 60  # a bound on the wait only
while not os.path.exists(pce) and time.time() < until:
    time.sleep(0.02)
check(os.path.exists(pce) and A.stop() == 0, "the PCE is saved; the daemon exits 0")
good = open(pce, "rb").read()

B = Daemon("damage", PC).start()  # loads test-window.pce at start
st, msg = prove_window(B, "loaded")
check(st == S.COMPLETED, f"test-window proves through the PCE loaded at start: {st} {msg}")
damages = [cut, overwrite_in_place, cp_over]
rng.shuffle(damages)
damages.append(replace_by_rename)  # last: the rounds before damage the file the daemon read
for rnd, damage in enumerate(damages + [cut]):  # the file is left cut for the restart
    jobs = [submit_req(pb.TEST_WINDOW_POST, request_id=H.rid(f"pce{rnd}-{i}")) for i in range(3)]
    submitted = [code_of(B.stub.SubmitProof, q, timeout=60) for q in jobs]
    what = damage(pce)
    out = [await_status(B.stub, q.request_id) for q in jobs] + [prove_window(B, f"pce{rnd}-after")]
    check(B.alive(), f"round {rnd} ({what}): the daemon lives on (exit status {B.p.poll()})")
    check(all(s == S.COMPLETED for s, _ in out), f"round {rnd} ({what}): the jobs in flight and the next complete: "
          f"{submitted} {out}")
    if not B.alive():
        break
    if rnd < len(damages):
        with open(pce, "wb") as f:  # put back, in place, for the next round's damage
            f.write(good)
check(B.stop() == 0, "the daemon exits 0")

C = Daemon("restart", PC).start()  # the cut file at start: reported, set aside
st, msg = prove_window(C, "rebuilt")
check(st == S.COMPLETED, f"after a restart on the cut PCE, test-window proves: {st} {msg}")
set_aside = [ln for ln in C.logtext().splitlines() if pce in ln and "set aside" in ln]
check(len(set_aside) == 1, f"the cut file is reported and set aside at start: {set_aside}")
until = time.time() + 60  # a bound on the wait only
while not os.path.exists(pce) and time.time() < until:
    time.sleep(0.02)
r = subprocess.run([CUZK, "pce", "inspect", pce], capture_output=True, text=True)
check(r.returncode == 0, f"the re-extracted PCE passes `cuzk pce inspect`: {r.returncode} {r.stderr[-300:]}")
check(C.stop() == 0, "the daemon exits 0")

# ---- 3: a .params cut, then rewritten, while it is loaded -------------------------
CIRCUIT = {"porep": "porep-2k", "snap": "snap-2k", "window-post": "wpost-2k", "winning-post": "winning-2k"}
listing = subprocess.run([CUZK, "params", "list", "--param-cache", FIXTURE], capture_output=True, text=True,
                         check=True).stdout.splitlines()
present = [ln.split() for ln in listing if ln.split()[1:4] == ["2KiB", "params", "present"]]
present = [(os.path.getsize(os.path.join(FIXTURE, f[4])), f[0], f[4]) for f in present if f[0] in CIRCUIT]
check(bool(present), f"the build's 2KiB TEST parameters are there ({FIXTURE})")
if present:
    size, kind, name = max(present)
    cid = CIRCUIT[kind]
    PC3 = os.path.join(tmp, "params")
    os.makedirs(PC3)
    params = os.path.join(PC3, name)
    vk = name[:-len(".params")] + ".vk"
    shutil.copyfile(os.path.join(FIXTURE, vk), os.path.join(PC3, vk))

    def restore():
        shutil.copyfile(os.path.join(FIXTURE, name), params + ".copy")
        os.replace(params + ".copy", params)

    def tier():
        s = D.stub.GetStatus(pb.GetStatusRequest(), timeout=30)
        return next((x.tier for x in s.loaded_srs if x.circuit_id == cid), None)

    def preload_damaged(damage):
        """PreloadSRS of cid, damage(params) once the load has begun: (code, details, what)."""
        res = []
        t = threading.Thread(target=lambda: res.append(
            code_of(D.stub.PreloadSRS, pb.PreloadSrsRequest(circuit_id=cid), timeout=600)))
        t.start()
        while t.is_alive() and tier() != pb.SRSStatus.WARM:  # WARM in GetStatus: loading
            time.sleep(0.002)
        what = damage(params)
        t.join()
        return res[0][0], res[0][1], what

    restore()
    D = Daemon("params", PC3).start()
    for rnd, damage in enumerate((lambda p: cut(p, 3 * 96 + 3 * 192 + 4), overwrite_in_place)):
        code, details, what = preload_damaged(damage)
        check(D.alive(), f"{cid} {what} while it loads: the daemon lives on (exit status {D.p.poll()})")
        if not D.alive():
            break
        check(code == grpc.StatusCode.OK or (code == grpc.StatusCode.FAILED_PRECONDITION and params in details),
              f"{cid} {what} while it loads: loaded before the damage, or refused naming the file: {code} {details}",
              verbose=True)
        st, msg = prove_window(D, f"params{rnd}")
        check(st == S.COMPLETED, f"{cid} {what}: a job of another kind then completes: {st} {msg}")
        restore()
        code, details = code_of(D.stub.PreloadSRS, pb.PreloadSrsRequest(circuit_id=cid), timeout=600)
        check(code == grpc.StatusCode.OK and tier() == pb.SRSStatus.HOT,
              f"{cid} put back by rename: the preload loads it: {code} {details}")
        code_of(D.stub.EvictSRS, pb.EvictSrsRequest(circuit_id=cid), timeout=60)
    check(D.stop() == 0, "the daemon exits 0")

H.finish(daemons)
