"""NI-PoRep C2 through the daemon (see fil_ni_porep.test.sh).

A 2KiB sector sealed natively by `cuzk gen-vanilla porep --non-interactive` from a fresh seed
(printed; CUZK_SEED replays it): its C1 of StackedDrg2KiBV1_2_Feat_NonInteractivePoRep (13
partitions, challenges from replica_id and comm_r). The daemon serves it with the fixture's TEST
PoRep parameters and a TEST aggregation SRS in its param cache.

Always: an NI request of an interactive registered proof refused naming it; a POREP_SEAL_COMMIT
request of the NI proof routed to the ni-porep-2k kind (queued there, then cancelled); the SRS
missing, a foreign file (a TEST SRS without its trailer: the digest is not the ceremony's), a
damaged TEST SRS refused at submit with the reason, and the daemon serving after each; a daemon
with [srs] test_srs = false refusing the TEST SRS.

With CUZK_NI_PROVE=1 (13 CPU partitions of 2.7M constraints: tens of minutes on 2 cores; set it
on a GPU host or a larger CPU): the NI request proved (every partition verified, then their
SnarkPack v2 aggregate, 16 proofs, 14164 bytes), `cuzk verify --kind ni-porep` VALID from the
sector's values (by registered proof and by sector size; another seed too: NI-PoRep's challenges
take none), `cuzk verify --kind aggregate` VALID on the same bytes; INVALID with comm_r, comm_d,
ticket, sector number or miner changed and with a flipped byte; the same request id submitted as
POREP_SEAL_COMMIT answers the same job's bytes."""
import json
import os
import subprocess
import sys
import time

CUZK, PROTO_DIR, PARAMS = sys.argv[1:4]
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from grpc_harness import Harness, code_of, cuzk_runner, fil_request, kill_on_error, start_fil_daemon  # noqa: E402

H = Harness("fil_ni_porep", PROTO_DIR, seed_bits=31)
rng, tmp = H.rng, H.tmp
import grpc  # noqa: E402
from cuzk.v1 import proving_pb2 as pb  # noqa: E402

prove = os.environ.get("CUZK_NI_PROVE") == "1"
daemons = []
kill_on_error(tmp, lambda: daemons)
run = cuzk_runner(CUZK, tmp)

miner = 1000 + rng.randrange(1 << 20)
sid = rng.randrange(1, 1 << 40)
out = run("gen-vanilla", "porep", "--non-interactive", "--sector-size", "2KiB", "--out", "S", "--seed",
          str(rng.getrandbits(32)), "--miner-id", str(miner), "--sector-id", str(sid), "--threads", "1")
H.check("13 partition(s) x 2 challenges" in out, f"gen-vanilla --non-interactive: {out.strip().splitlines()[-1]}",
        verbose=True)
params = os.path.join(tmp, "params")
os.makedirs(params)
for f in os.listdir(PARAMS):
    if f.startswith("v28-stacked-proof-of-replication"):
        os.symlink(os.path.join(PARAMS, f), os.path.join(params, f))
run("setup", "--aggregation", "--out", "srs", "--max", "16")
good = open(os.path.join(tmp, "srs", "v28-fil-inner-product-v1.srs"), "rb").read()
srs_path = os.path.join(params, "v28-fil-inner-product-v1.srs")


def put_srs(data):
    if os.path.exists(srs_path):
        os.unlink(srs_path)
    if data is not None:
        open(srs_path, "wb").write(data)


put_srs(good)
# (start_fil_daemon's [srs] section is the last one: its keys first)
toml = (f'pce = true\npce_dir = "{tmp}"\n' if prove else "pce = false\n") + "[synthesis]\npartition_workers = 1\n"
daemon, st = start_fil_daemon(CUZK, tmp, params, toml)
daemons.append(daemon)


def rid():
    return f"ni-{rng.getrandbits(48):012x}"


def submit(name, want, text, **override):
    """SubmitProof of S's request with override: want the gRPC code (and text in its details)."""
    code, details = code_of(st.SubmitProof, fil_request(pb, os.path.join(tmp, "S"), rid(), **override), timeout=120)
    H.check(code == want and text in details, f"{name}: {code.name} {details[:300]}", verbose=True)
    H.check(code_of(st.GetStatus, pb.GetStatusRequest(), timeout=30)[0] == grpc.StatusCode.OK,
            f"{name}: the daemon still serves")


# the SRS is read at the kind's first request that finds it usable: the refusals first
put_srs(None)
submit("no aggregation SRS in the param cache", grpc.StatusCode.INVALID_ARGUMENT, "cuzk setup --aggregation")
# the four vectors without cuzk's TEST trailer: bellperson's format, not the ceremony's digest
off = 0
for size in (48, 48, 96, 96):
    off += 4 + int.from_bytes(good[off:off + 4], "big") * size
put_srs(good[:off])
submit("a foreign SRS (no TEST trailer, another digest)", grpc.StatusCode.INVALID_ARGUMENT,
       "srs-inner-product.json lists ae20310138f5ba81451d723f858e3797")
bad = bytearray(good)
at = 4 + rng.randrange(16) * 48 + 47  # a g_alpha point's last byte: off the curve or out of the subgroup
bad[at] ^= 1 << rng.randrange(8)
put_srs(bytes(bad))
submit(f"a TEST SRS with byte {at} flipped", grpc.StatusCode.INVALID_ARGUMENT, "a damaged or foreign file")
put_srs(good)
submit("NI kind, interactive registered proof", grpc.StatusCode.INVALID_ARGUMENT, "is not an NI-PoRep proof",
       registered_proof=5)
submit("NI kind, no vanilla proof", grpc.StatusCode.INVALID_ARGUMENT, "vanilla_proof", vanilla_proof=b"")

# the interactive proof kind with the NI C1: routed to ni-porep-2k, then cancelled
job = rid()
if not prove:
    r = st.SubmitProof(fil_request(pb, os.path.join(tmp, "S"), job, proof_kind=pb.POREP_SEAL_COMMIT), timeout=120)
    s = st.GetStatus(pb.GetStatusRequest(), timeout=30)
    queued = {q.proof_kind: q.pending + q.in_progress for q in s.queues}
    H.check(r.job_id == job and queued.get("ni-porep-2k", 0) >= 1 and not queued.get("porep-2k", 0),
            f"POREP_SEAL_COMMIT of an NI C1 queued as {queued}", verbose=True)
    st.CancelProof(pb.CancelProofRequest(job_id=job), timeout=30)
    a = st.AwaitProof(pb.AwaitProofRequest(job_id=job, timeout_ms=60000), timeout=90)
    H.check(a.status == pb.AwaitProofResponse.CANCELLED, f"cancelled: {a.status} {a.error_message}", verbose=True)

# a daemon that takes only the ceremony's SRS
tb = os.path.join(tmp, "b")
os.makedirs(tb)
db, stb = start_fil_daemon(CUZK, tb, params, "pce = false\ntest_srs = false\n")
daemons.append(db)
code, details = code_of(stb.SubmitProof, fil_request(pb, os.path.join(tmp, "S"), rid()), timeout=120)
H.check(code == grpc.StatusCode.INVALID_ARGUMENT and "TEST parameters are not allowed" in details,
        f"test_srs = false: {code.name} {details[:200]}", verbose=True)
db.terminate()
db.wait(timeout=60)

if not prove:
    print("fil_ni_porep: CUZK_NI_PROVE is not 1: the 13 partitions are not proved here")
    daemon.terminate()
    daemon.wait(timeout=60)
    H.finish()
    sys.exit(0)

t = time.time()
r = st.Prove(pb.ProveRequest(submit=fil_request(pb, os.path.join(tmp, "S"), job)), timeout=7200).result
H.check(r.status == pb.AwaitProofResponse.COMPLETED and len(r.proof) == 2260 + 2976 * 4,
        f"the daemon proved the NI C1 in {time.time() - t:.1f} s: {len(r.proof)} bytes {r.error_message}",
        verbose=True)
open(os.path.join(tmp, "ni.proof"), "wb").write(r.proof)
a = st.SubmitProof(fil_request(pb, os.path.join(tmp, "S"), job, proof_kind=pb.POREP_SEAL_COMMIT), timeout=120)
b = st.AwaitProof(pb.AwaitProofRequest(job_id=job, timeout_ms=5000), timeout=60)
H.check(a.job_id == job and b.status == pb.AwaitProofResponse.COMPLETED and b.proof == r.proof,
        "the same id as POREP_SEAL_COMMIT: the same job, the same bytes", verbose=True)
daemon.terminate()
daemon.wait(timeout=60)

c1 = json.load(open(os.path.join(tmp, "S", "c1.json")))
V = {k: bytes(c1[k]).hex() for k in ("comm_r", "comm_d", "ticket", "seed")}


def changed(hexv):
    b = bytearray.fromhex(hexv)
    b[rng.randrange(31)] ^= 1 << rng.randrange(8)
    return b.hex()


def verify(what, want, proof="ni.proof", miner_id=miner, number=sid, by_size=False, **vals):
    v = dict(V, **vals)
    args = [CUZK, "verify", "--kind", "ni-porep", "--param-cache", params, "--proof", proof, "--miner",
            f"f0{miner_id}", "--sector-number", str(number),
            *(["--sector-size", "2KiB"] if by_size else ["--registered-proof", str(c1["registered_proof"])]),
            *[x for k in ("comm_r", "comm_d", "ticket", "seed") for x in (f"--{k.replace('_', '-')}", v[k])]]
    p = subprocess.run(args, cwd=tmp, capture_output=True, text=True)
    o = (p.stdout + p.stderr).strip()
    ok = p.returncode == want and ("\nVALID" in "\n" + o if want == 0 else want == 2 or "INVALID" in o)
    H.check(ok, f"{what}: exit {p.returncode} (want {want}) {o.splitlines()[-1] if o else ''}", verbose=True)


verify("the daemon's NI-PoRep proof", 0)
verify("by sector size", 0, by_size=True)
verify("another seed (NI-PoRep's challenges take none)", 0, seed=changed(V["seed"]))
for k in ("comm_r", "comm_d", "ticket"):
    verify(f"{k} changed", 1, **{k: changed(V[k])})
verify("another sector number", 1, number=sid + 1)
verify("another miner", 1, miner_id=miner + 1)
pb_ = bytearray(r.proof)
at = rng.randrange(len(pb_))
pb_[at] ^= 1 << rng.randrange(8)
open(os.path.join(tmp, "flip.proof"), "wb").write(pb_)
verify(f"byte {at} flipped", 1 if at < 1488 or at >= 1492 else 2, proof="flip.proof")
out = run("verify", "--kind", "aggregate", "--srs", srs_path, "--vk",
          [os.path.join(params, f) for f in os.listdir(params) if f.endswith(".vk")][0], "--proof", "ni.proof",
          "--registered-proof", str(c1["registered_proof"]), "--miner", f"f0{miner}", "--sector",
          f"{sid}:{V['comm_r']}:{V['comm_d']}:{V['ticket']}:{V['seed']}")
H.check("\nVALID" in out, "cuzk verify --kind aggregate: VALID", verbose=True)
H.finish()
