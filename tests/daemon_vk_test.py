"""The .vk beside a .params, through the daemon (see daemon_vk.test.sh).

Two `cuzk setup` runs of the 2KiB WindowPoSt circuit give two sets of TEST
parameters, A and B. Under the real file names:
  1. A's .params with B's .vk: the kind is refused at load (FAILED, both
     files named, in the log, GetStatus, /status, the metric and PreloadSRS);
     a job of it fails and is never COMPLETED;
  2. B's .vk replaced by A's: the kind loads, a job completes, and every
     place says the keys are not the ceremony's (the .vk's digest, computed
     here, is not parameters.json's);
  3. no .vk: the kind loads and proves, the log says once that nothing
     confirms its key.
The sector, the PoSt randomness and the request ids come from the printed
seed (CUZK_SEED replays it); the setups' toxic waste is the OS's."""
import hashlib
import json
import os
import socket
import subprocess
import sys
import time
import urllib.request

import grpc

CUZK, PROTO_DIR, PARAMETERS_JSON = sys.argv[1], sys.argv[2], sys.argv[3]
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from grpc_harness import Harness, code_of, fil_request, wait_for_log  # noqa: E402

H = Harness("daemon_vk", PROTO_DIR, seed_bits=31)
rng, tmp, check = H.rng, H.tmp, H.check
from cuzk.v1 import proving_pb2 as pb  # noqa: E402
from cuzk.v1 import proving_pb2_grpc as pbg  # noqa: E402

S = pb.AwaitProofResponse


class Daemon:
    name = "daemon"

    def logtext(self):
        return open(self.log).read() if os.path.exists(self.log) else ""


D = Daemon()
H.kill_daemons_on_error([D])


def run(*args):
    r = subprocess.run([CUZK, *args], cwd=tmp, capture_output=True, text=True)
    if r.returncode != 0:
        raise RuntimeError(f"cuzk {' '.join(args)}: exit {r.returncode}\n{r.stdout}{r.stderr}")
    return r.stdout + r.stderr


def files_of(setup_dir):
    """The .params and .vk that `cuzk setup` wrote in setup_dir (their names carry the cache id)."""
    names = sorted(os.listdir(os.path.join(tmp, setup_dir)))
    return tuple(next(n for n in names if n.endswith(ext)) for ext in (".params", ".vk"))


def digest(data):
    """parameters.json's digest: the first 128 bits of Blake2b-512, in hex."""
    return hashlib.blake2b(data, digest_size=64).hexdigest()[:32]


# ---- two setups of one circuit, a sector and its WindowPoSt vanilla proof
for d in ("A", "B"):
    run("setup", "--kind", "window-post", "--sector-size", "2KiB", "--out", d, "--threads", "1")
PARAMS, VK = files_of("A")
check(files_of("B") == (PARAMS, VK), f"both setups wrote the same names: {files_of('B')}")
vk_a, vk_b = (open(os.path.join(tmp, d, VK), "rb").read() for d in ("A", "B"))
check(vk_a != vk_b, "two setups give two verifying keys")
run("gen-vanilla", "porep", "--sector-size", "2KiB", "--out", "S", "--seed", str(rng.getrandbits(32)),
    "--miner-id", str(1000 + rng.randrange(1 << 20)), "--sector-id", str(rng.randrange(1, 1 << 30)),
    "--threads", "1")
run("gen-vanilla", "window-post", "--sector", "S", "--seed", str(rng.getrandbits(32)), "--out", "W")

# ---- the param cache: A's .params, B's .vk (atomic replacements, as an operator's mv)
P = os.path.join(tmp, "params")
os.makedirs(P)
params_path, vk_path = os.path.join(P, PARAMS), os.path.join(P, VK)


def put(name, data):
    with open(os.path.join(P, name + ".tmp"), "wb") as f:
        f.write(data)
    os.replace(os.path.join(P, name + ".tmp"), os.path.join(P, name))


put(PARAMS, open(os.path.join(tmp, "A", PARAMS), "rb").read())
put(VK, vk_b)

with socket.socket() as so:
    so.bind(("127.0.0.1", 0))
    http = so.getsockname()[1]
sock = os.path.join(tmp, "d.sock")
conf = os.path.join(tmp, "d.toml")
with open(conf, "w") as f:
    f.write(f'[daemon]\nlisten = "unix://{sock}"\nstatus_listen = "127.0.0.1:{http}"\n'
            f'[srs]\nparam_cache = "{P}"\npreload = ["wpost-2k"]\n[synthesis]\npartition_workers = 1\n')
D.log = os.path.join(tmp, "d.log")
D.p = subprocess.Popen([CUZK, "daemon", "--config", conf], stdout=subprocess.DEVNULL, stderr=open(D.log, "w"))
wait_for_log(D.p, D.logtext, "serving on", "daemon")
st = pbg.ProvingEngineStub(grpc.insecure_channel(f"unix://{sock}"))


def srs_entry():
    return next((x for x in st.GetStatus(pb.GetStatusRequest()).loaded_srs if x.circuit_id == "wpost-2k"), None)


def http_circuit():
    s = json.load(urllib.request.urlopen(f"http://127.0.0.1:{http}/status", timeout=30))
    return next((c for c in s["engine"]["circuits"] if c["circuit_id"] == "wpost-2k"), {})


def metric(name):
    text = st.GetMetrics(pb.GetMetricsRequest()).prometheus_text
    return [ln for ln in text.splitlines() if ln.startswith(f'{name}{{proof_kind="wpost-2k",')]


def prove(tag):
    """A WindowPoSt job of the sector: its AwaitProof reply."""
    q = fil_request(pb, os.path.join(tmp, "W"), H.rid(tag))
    st.SubmitProof(q, timeout=60)
    return st.AwaitProof(pb.AwaitProofRequest(job_id=q.request_id, timeout_ms=300000), timeout=330)


# ---- 1. A's .params, B's .vk: refused at load, naming both files
refusal = f"{params_path} does not go with {vk_path}: the verifying key inside the .params is not the .vk's"
line = next((ln for ln in D.logtext().splitlines() if "preload wpost-2k:" in ln), "")
check(refusal in line and "the .vk is not the ceremony's either" in line and "refused" in line,
      f"the preload's log line refuses the pair, naming both files: {line!r}")
ent = srs_entry()
check(ent is not None and ent.tier == pb.SRSStatus.FAILED and refusal in ent.error,
      f"GetStatus: wpost-2k FAILED with the refusal: {ent}")
c = http_circuit()
check(c.get("srs") == "failed" and refusal in c.get("srs_error", "") and c.get("vk") == vk_path,
      f"/status: wpost-2k failed, the refusal, its .vk: {c}")
check(metric("cuzk_kind_failed") == ['cuzk_kind_failed{proof_kind="wpost-2k",circuit="wpost-2k"} 1'],
      f"cuzk_kind_failed 1: {metric('cuzk_kind_failed')}")
code, details = code_of(st.PreloadSRS, pb.PreloadSrsRequest(circuit_id="wpost-2k"))
check(code == grpc.StatusCode.FAILED_PRECONDITION and refusal in details,
      f"PreloadSRS: FAILED_PRECONDITION with the refusal: {code} {details!r}")
r = prove("mixed")
check(r.status == S.FAILED and refusal in r.error_message and not r.proof,
      f"a job of the refused pair FAILED (not COMPLETED), saying why: {S.Status.Name(r.status)} {r.error_message!r}")

# ---- 2. the .vk replaced by A's own: loads and proves; the keys are not the ceremony's
put(VK, vk_a)
st.PreloadSRS(pb.PreloadSrsRequest(circuit_id="wpost-2k"), timeout=120)
listed = json.load(open(PARAMETERS_JSON))[VK]["digest"]
note = f"{vk_path}: digest {digest(vk_a)}, parameters.json lists {listed}"
ent = srs_entry()
check(ent.tier == pb.SRSStatus.HOT and not ent.error and ent.keys == pb.SRSStatus.KEYS_NOT_CEREMONY
      and ent.keys_note.startswith(note), f"GetStatus: HOT, keys NOT_CEREMONY with the digests ({note}): {ent}")
c = http_circuit()
check(c.get("srs") == "hot" and c.get("keys") == "not-ceremony" and c.get("keys_note", "").startswith(note),
      f"/status: keys not-ceremony, the digests: {c}")
check(metric("cuzk_kind_ceremony_keys") ==
      ['cuzk_kind_ceremony_keys{proof_kind="wpost-2k",circuit="wpost-2k",keys="not-ceremony"} 0']
      and metric("cuzk_kind_failed")[0].endswith(" 0"),
      f"cuzk_kind_ceremony_keys 0 (not-ceremony), not failed: {metric('cuzk_kind_ceremony_keys')}")
out = run("bench", "status", "--addr", f"unix://{sock}")
line = next((ln for ln in out.splitlines() if ln.split()[:2] == ["srs", "wpost-2k"]), "")
check(line.endswith("hot, keys: NOT the ceremony's (proofs will be rejected on chain)"),
      f"cuzk bench status says so: {line!r}")
warns = [ln for ln in D.logtext().splitlines() if "NOT the ceremony's keys" in ln]
check(len(warns) == 1 and " warn " in warns[0] and note in warns[0] and "rejected" in warns[0],
      f"the load warns once that the keys are not the ceremony's: {warns}")
r = prove("matched")
check(r.status == S.COMPLETED and len(r.proof) == 192, f"with matching files the job COMPLETED: "
      f"{S.Status.Name(r.status)} {r.error_message!r}")

# ---- 3. no .vk: loads and proves; said once
os.remove(vk_path)
no_vk = f"parameters of wpost-2k: no {vk_path}: proofs are checked against the key inside {params_path} only"
for n in range(2):
    st.EvictSRS(pb.EvictSrsRequest(circuit_id="wpost-2k"), timeout=60)
    st.PreloadSRS(pb.PreloadSrsRequest(circuit_id="wpost-2k"), timeout=120)
    ent = srs_entry()
    check(ent.tier == pb.SRSStatus.HOT and ent.keys == pb.SRSStatus.KEYS_NO_VK,
          f"load {n} without a .vk: HOT, keys NO_VK: {ent}")
said = [ln for ln in D.logtext().splitlines() if no_vk in ln]
check(len(said) == 1 and " warn " in said[0], f"the missing .vk is said once in the log: {said}")
check(http_circuit().get("keys") == "no-vk" and metric("cuzk_kind_ceremony_keys") ==
      ['cuzk_kind_ceremony_keys{proof_kind="wpost-2k",circuit="wpost-2k",keys="no-vk"} 0'],
      f"/status and the metric say no-vk: {metric('cuzk_kind_ceremony_keys')}")
r = prove("no-vk")
check(r.status == S.COMPLETED and len(r.proof) == 192, f"without a .vk the job COMPLETED: {S.Status.Name(r.status)}")

D.p.terminate()
check(D.p.wait(120) == 0, "daemon exits 0")
print(f"daemon_vk: {H.checks - len(H.failures)} of {H.checks} checks passed")
if H.failures:
    print("--- daemon log tail ---\n" + D.logtext()[-3000:])
    sys.exit(1)
