"""SnarkPack aggregates of the daemon's 2KiB PoRep proofs (see fil_aggregate.test.sh).

Two 2KiB sectors sealed natively by `cuzk gen-vanilla` from a fresh seed (printed; CUZK_SEED
replays it), proved by the daemon with the fixture's TEST parameters (minutes each on 2 cores:
two, not more), then aggregated by `cuzk aggregate` from the values filecoin-ffi's
aggregate_seal_proofs takes (both sectors, SnarkPack v1 and v2; the first alone, its one proof
padded to 2) and verified by `cuzk verify --kind aggregate` from the values
verify_aggregate_seal_proof takes. The @noble/curves prover recomputes each aggregate byte for
byte from the proofs (padded by the last), the rows cuzk derives per sector and the transcript
bytes hashlib computes here (SHA-256 over seed || comm_r of each sector). Refused: the sectors
in another order, one seed changed, a sector left out, a flipped byte, the other version.

The same daemon, with a TEST SRS in its param cache, aggregates the sectors itself (AGGREGATE_SEAL,
fil_aggregate_daemon.py): an aggregation queued behind S1's synthesis is cancelled; each of its
aggregates is the bytes `cuzk aggregate` writes and VALID; tampered requests are refused naming
the field or fail naming the sector; the metrics count them."""
import hashlib
import json
import os
import subprocess
import sys
import time

CUZK, PROTO_DIR, PARAMS, ORACLE = sys.argv[1:5]
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from grpc_harness import Harness, cuzk_runner, fil_request, kill_on_error, start_fil_daemon  # noqa: E402

H = Harness("fil_aggregate", PROTO_DIR, seed_bits=31)
rng, tmp = H.rng, H.tmp
from cuzk.v1 import proving_pb2 as pb  # noqa: E402
from fil_aggregate_daemon import Daemon, sector_values  # noqa: E402

daemon = None
kill_on_error(tmp, lambda: [daemon])
run = cuzk_runner(CUZK, tmp)

miner = 1000 + rng.randrange(1 << 20)
ids = rng.sample(range(1, 1 << 40), 2)
for i, sid in enumerate(ids):
    run("gen-vanilla", "porep", "--sector-size", "2KiB", "--out", f"S{i}", "--seed", str(rng.getrandbits(32)),
        "--miner-id", str(miner), "--sector-id", str(sid), "--threads", "1")
params = os.path.join(tmp, "params")
os.makedirs(params)
for f in os.listdir(PARAMS):
    if f.startswith("v28-"):
        os.symlink(os.path.join(PARAMS, f), os.path.join(params, f))
run("setup", "--aggregation", "--out", "srs", "--max", "4")
srs = os.path.join(tmp, "srs", "v28-fil-inner-product-v1.srs")
os.symlink(srs, os.path.join(params, "v28-fil-inner-product-v1.srs"))  # the daemon's aggregations
daemon, st = start_fil_daemon(CUZK, tmp, params, "pce = false\n[synthesis]\npartition_workers = 1\n")
rp = json.load(open(os.path.join(tmp, "S0", "request.json")))["registered_proof"]
daemon_agg = Daemon(H, st, CUZK, run, params, [sector_values(os.path.join(tmp, f"S{i}")) for i in range(2)], rp, miner)
for i in range(2):
    t = time.time()
    req = fil_request(pb, os.path.join(tmp, f"S{i}"), f"S{i}-{rng.getrandbits(48):012x}")
    if i == 0:
        r = st.Prove(pb.ProveRequest(submit=req), timeout=900).result
    else:  # S1's synthesis holds the one slot: an aggregation waits behind it
        st.SubmitProof(req, timeout=120)
        daemon_agg.cancel_queued(daemon_agg.S[0])
        r = st.AwaitProof(pb.AwaitProofRequest(job_id=req.request_id, timeout_ms=900000), timeout=930)
    H.check(r.status == pb.AwaitProofResponse.COMPLETED, f"daemon proved S{i} in {time.time() - t:.1f} s", verbose=True)
    open(os.path.join(tmp, f"S{i}.proof"), "wb").write(r.proof)
    daemon_agg.S[i].update(proof=r.proof, proof_file=f"S{i}.proof")


def values(i):
    c1 = json.load(open(os.path.join(tmp, f"S{i}", "c1.json")))
    q = json.load(open(os.path.join(tmp, f"S{i}", "request.json")))
    return {"registered_proof": c1["registered_proof"], "sector_number": q["sector_number"],
            **{k: bytes(c1[k]).hex() for k in ("comm_r", "comm_d", "ticket", "seed")}}


S = [values(i) for i in range(2)]
rp = S[0]["registered_proof"]
# each sector's rows and the PoRep key's path, as cuzk verify --kind porep derives them
vk = None
for i, s in enumerate(S):
    out = run("verify", "--kind", "porep", "--param-cache", params, "--proof", f"S{i}.proof", "--miner", f"f0{miner}",
              "--sector-number", str(s["sector_number"]), "--registered-proof", str(rp), "--public-out", f"S{i}.public",
              *[x for k in ("comm_r", "comm_d", "ticket", "seed") for x in (f"--{k.replace('_', '-')}", s[k])])
    vk = out.split("vk: ", 1)[1].split(":", 1)[0]


def sector_arg(s):
    return f"{s['sector_number']}:{s['comm_r']}:{s['comm_d']}:{s['ticket']}:{s['seed']}"


def common(sectors, version):
    return ["--srs", srs, "--registered-proof", str(rp), "--miner", f"f0{miner}", "--aggregate-version", str(version),
            *[x for s in sectors for x in ("--sector", sector_arg(s))]]


def verify(what, rc_want, sectors, version, proof):
    r = subprocess.run([CUZK, "verify", "--kind", "aggregate", "--vk", vk, "--proof", proof, *common(sectors, version)],
                       cwd=tmp, capture_output=True, text=True)
    out = r.stdout + r.stderr
    ok = r.returncode == rc_want and ("\nVALID" in out if rc_want == 0 else rc_want == 2 or "INVALID" in out)
    H.check(ok, f"{what}: exit {r.returncode} (want {rc_want}) {out.strip().splitlines()[-1] if out.strip() else ''}",
            verbose=True)


def changed(hexv):
    b = bytearray.fromhex(hexv)
    b[rng.randrange(31)] ^= 1 << rng.randrange(8)
    return b.hex()




def oracle(what, sectors, version, agg):
    """The noble prover on these sectors' proofs and rows (padded by the last) and hashlib's bytes."""
    idx = [S.index(x) for x in sectors]
    idx += [idx[-1]] * (max(2, len(idx)) - len(idx))
    pf = b"".join(open(os.path.join(tmp, f"S{i}.proof"), "rb").read() for i in idx)
    open(os.path.join(tmp, "o.proof"), "wb").write(pf)
    open(os.path.join(tmp, "o.public"), "wb").write(b"".join(open(os.path.join(tmp, f"S{i}.public"), "rb").read()
                                                             for i in idx))
    inc = hashlib.sha256(b"".join(bytes.fromhex(s["seed"]) + bytes.fromhex(s["comm_r"]) for s in sectors)).hexdigest()
    r = subprocess.run(["node", os.path.join(ORACLE, "snarkpack_oracle.mjs"), srs, vk, os.path.join(tmp, "o.proof"),
                        os.path.join(tmp, "o.public"), inc, str(version), os.path.join(tmp, agg)],
                       capture_output=True, text=True)
    H.check(r.returncode == 0, f"{what}: noble recomputes the aggregate (hashlib's transcript bytes): "
            f"{(r.stdout + r.stderr).strip()[-400:]}", verbose=True)


def aggregate(sectors, version, agg):
    run("aggregate", "--out", agg, *common(sectors, version),
        *[x for s in sectors for x in ("--proof", f"S{S.index(s)}.proof")])
    return os.path.getsize(os.path.join(tmp, agg))


size = aggregate(S[:1], 1, "one.bin")
H.check(size == 2260 + 2976, f"one sector, its proof padded to 2: {size} bytes", verbose=True)
verify("v1: one sector (padded to 2)", 0, S[:1], 1, "one.bin")
oracle("v1: one sector", S[:1], 1, "one.bin")
for v in (1, 2):
    agg = f"agg{v}.bin"
    size = aggregate(S, v, agg)
    H.check(size == 2260 + 2976, f"v{v}: 2 proofs: {size} bytes", verbose=True)
    verify(f"v{v}: the two sectors", 0, S, v, agg)
    oracle(f"v{v}: the two sectors", S, v, agg)
    verify(f"v{v}: sectors in another order", 1, [S[1], S[0]], v, agg)
    k = rng.randrange(2)
    verify(f"v{v}: sector {k}'s seed changed", 1, [dict(s, seed=changed(s["seed"])) if i == k else s
                                                    for i, s in enumerate(S)], v, agg)
    verify(f"v{v}: the last sector left out", 1, S[:1], v, agg)
    verify(f"v{v}: the other version", 1, S, 3 - v, agg)
    b = bytearray(open(os.path.join(tmp, agg), "rb").read())
    at = rng.randrange(len(b))
    b[at] ^= 1 << rng.randrange(8)
    open(os.path.join(tmp, "flip.bin"), "wb").write(b)
    verify(f"v{v}: byte {at} flipped", 1 if at < 1488 or at >= 1492 else 2, S, v, "flip.bin")
# on a GPU (the Miller loops and MSMs there): the CPU's bytes, or a clear refusal where there is none
args = ["aggregate", "--out", "gpu.bin", *common(S, 2), *[x for s in S for x in ("--proof", f"S{S.index(s)}.proof")]]
r = subprocess.run([CUZK, *args, "--device", "gpu"], cwd=tmp, capture_output=True, text=True)
if r.returncode == 0:
    same = open(os.path.join(tmp, "gpu.bin"), "rb").read() == open(os.path.join(tmp, "agg2.bin"), "rb").read()
    H.check(same, "--device gpu: the CPU's bytes", verbose=True)
else:
    H.check(r.returncode == 1 and "no CUDA device" in r.stderr,
            f"--device gpu without a GPU: exit {r.returncode}, {r.stderr.strip()}", verbose=True)
r = subprocess.run([CUZK, *args, "--device", "tpu"], cwd=tmp, capture_output=True, text=True)
H.check(r.returncode == 2 and "expected cpu, gpu or gpu:N" in r.stderr, f"--device tpu: exit {r.returncode}",
        verbose=True)
daemon_agg.run_all()
daemon.terminate()
daemon.wait(timeout=60)
H.finish()
