"""`cuzk verify --kind ...` on proofs the daemon made (see fil_verify.test.sh).

2KiB sectors sealed natively by `cuzk gen-vanilla` from a fresh seed (printed; CUZK_SEED
replays it), TEST parameters from the fixture directory, the daemon driven by Python's grpcio.
Its PoRep, SnapDeals, WindowPoSt (two partitions, proved one request each) and WinningPoSt
proofs must verify VALID from the values filecoin-ffi's verifiers take, given as hex, CIDs
(base32 made here with Python's own encoder), base64 and a JSON file; each with one proof byte
flipped, each public value changed, or another setup's key must be INVALID (exit 1); another
kind's key and truncated or padded proof lists are bad input (exit 2) saying why. Independent
checks: the public inputs cuzk derives (--public-out) verify the daemon's proofs in
@noble/curves, and the PoSt and SnapDeals rows and PoRep's replica_id, commitments and
challenges are recomputed here from the values with hashlib."""
import base64
import hashlib
import json
import os
import subprocess
import sys
import time

CUZK, PROTO_DIR, PARAMS, ORACLE = sys.argv[1:5]
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from grpc_harness import Harness, cuzk_runner, fil_request, kill_on_error, start_fil_daemon  # noqa: E402

H = Harness("fil_verify", PROTO_DIR, seed_bits=31)
rng, tmp = H.rng, H.tmp
from cuzk.v1 import proving_pb2 as pb  # noqa: E402

daemon = None
kill_on_error(tmp, lambda: [daemon])
run = cuzk_runner(CUZK, tmp)


# ---- inputs: three sealed sectors, a WindowPoSt of two partitions, a WinningPoSt, an update
miner = 1000 + rng.randrange(1 << 20)
ids = sorted(rng.sample(range(1, 1 << 40), 3))
for i, sid in enumerate(ids):
    run("gen-vanilla", "porep", "--sector-size", "2KiB", "--out", f"S{i}", "--seed", str(rng.getrandbits(32)),
        "--miner-id", str(miner), "--sector-id", str(sid), "--threads", "1")
rnd = bytearray(rng.randbytes(32))
rnd[31] &= 0x3F
# 2KiB WindowPoSt partitions hold two sectors: the two lowest numbers, then the third
run("gen-vanilla", "window-post", "--sector", "S0", "--sector", "S1", "--randomness", rnd.hex(), "--out", "W0")
run("gen-vanilla", "window-post", "--sector", "S2", "--randomness", rnd.hex(), "--partition", "1", "--out", "W1")
run("gen-vanilla", "winning-post", "--sector", "S0", "--sector", "S1", "--sector", "S2", "--seed",
    str(rng.getrandbits(32)), "--out", "WIN")
run("gen-vanilla", "snap", "--sector", "S1", "--seed", str(rng.getrandbits(32)), "--out", "U")


def jload(*p):
    return json.load(open(os.path.join(tmp, *p)))


# ---- the daemon ---------------------------------------------------------------
params = os.path.join(tmp, "params")
os.makedirs(params)
for f in os.listdir(PARAMS):
    if f.startswith("v28-"):
        os.symlink(os.path.join(PARAMS, f), os.path.join(params, f))
daemon, st = start_fil_daemon(CUZK, tmp, params, "pce = false\n[synthesis]\npartition_workers = 1\n")

def prove(d):
    t = time.time()
    req = fil_request(pb, os.path.join(tmp, d), f"{d}-{rng.getrandbits(48):012x}")
    r = st.Prove(pb.ProveRequest(submit=req), timeout=900).result
    H.check(r.status == pb.AwaitProofResponse.COMPLETED, f"daemon proved {d} in {time.time() - t:.1f} s "
            f"{r.error_message}", verbose=True)
    path = os.path.join(tmp, f"{d}.proof")
    open(path, "wb").write(r.proof)
    return r.proof


proofs = {d: prove(d) for d in ("W0", "W1", "WIN", "U", "S0")}
daemon.terminate()
daemon.wait(timeout=60)
open(os.path.join(tmp, "W.proof"), "wb").write(proofs["W0"] + proofs["W1"])


# ---- the values, as operators have them -------------------------------------------
def uvarint(v):
    out = b""
    while True:
        out += bytes([(v & 0x7F) | (0x80 if v > 0x7F else 0)])
        v >>= 7
        if not v:
            return out


def cid(digest, sealed):
    """The CID string lotus prints for a commitment: multibase 'b', base32 lowercase unpadded."""
    codec, mh = (0xF102, 0xB401) if sealed else (0xF101, 0x1012)
    raw = uvarint(1) + uvarint(codec) + uvarint(mh) + uvarint(32) + digest
    return "b" + base64.b32encode(raw).decode().lower().rstrip("=")


c1 = jload("S0", "c1.json")
s0 = jload("S0", "request.json")
porep = {"registered_proof": c1["registered_proof"], "miner": f"f0{miner}", "sector_number": s0["sector_number"],
         "comm_r": bytes(c1["comm_r"]).hex(), "comm_d": bytes(c1["comm_d"]).hex(),
         "ticket": bytes(c1["ticket"]).hex(), "seed": bytes(c1["seed"]).hex()}


def post_sector(path):
    """(sector number, comm_r) of a PoSt vanilla proof: bincode u64 LE, then 32 bytes."""
    b = open(path, "rb").read()
    return int.from_bytes(b[:8], "little"), b[8:40]


def sectors_of(d):
    q = jload(d, "request.json")
    return [post_sector(os.path.join(tmp, d, f)) for f in q["vanilla_proofs"]], q


wsec = sectors_of("W0")[0] + sectors_of("W1")[0]
wq = jload("W0", "request.json")
window = {"registered_proof": wq["registered_proof"], "randomness": wq["randomness"],
          "sector": [f"{n}:{c.hex()}" for n, c in reversed(wsec)]}
(winsec,), winq = sectors_of("WIN")
winning = {"registered_proof": winq["registered_proof"], "randomness": winq["randomness"],
           "sector": [f"{winsec[0]}:{winsec[1].hex()}"]}
uq = jload("U", "request.json")
snap = {"registered_proof": uq["registered_proof"], "comm_r_old": uq["comm_r_old"], "comm_r_new": uq["comm_r_new"],
        "comm_d_new": uq["comm_d_new"]}
KINDS = {"porep": ("S0.proof", porep), "window-post": ("W.proof", window), "winning-post": ("WIN.proof", winning),
         "snap": ("U.proof", snap)}


def verify(kind, values, proof=None, extra=()):
    """cuzk verify with values as options: (exit status, output)."""
    args = ["verify", "--kind", kind, "--param-cache", params, "--proof", proof or KINDS[kind][0], *extra]
    for k, v in values.items():
        for x in v if isinstance(v, list) else [v]:
            args += ["--" + k.replace("_", "-"), str(x)]
    r = subprocess.run([CUZK, *args], cwd=tmp, capture_output=True, text=True)
    return r.returncode, r.stdout + r.stderr


def expect(what, rc_want, out_has, kind, values, proof=None, extra=()):
    rc, out = verify(kind, values, proof, extra)
    ok = rc == rc_want and all(s in out for s in ([out_has] if isinstance(out_has, str) else out_has))
    H.check(ok, f"{what}: exit {rc} (want {rc_want}) {'' if ok else out[-600:]}", verbose=True)


def changed(hexv):
    """The 32 bytes of hexv with one random bit of bytes 0-30 flipped (still a field element)."""
    b = bytearray.fromhex(hexv)
    b[rng.randrange(31)] ^= 1 << rng.randrange(8)
    return b.hex()


# ---- VALID -------------------------------------------------------------------------
expect("porep, values in hex", 0, ["partition 0: VALID", "\nVALID"], "porep", porep)
expect("window-post, two partitions, sectors given in reverse", 0,
       ["partition 0: VALID", "partition 1: VALID", "\nVALID"], "window-post", window)
expect("winning-post", 0, "\nVALID", "winning-post", winning)
expect("snap", 0, "\nVALID", "snap", snap)
expect("window-post, partition 1 alone (a daemon's per-partition answer)", 0, "partition 1: VALID",
       "window-post", window, "W1.proof", ["--partition", "1"])
# lotus's forms: CIDs, base64 ticket and seed, the miner's address, the proof's name; as a JSON file
vals = dict(porep, comm_r=cid(bytes(c1["comm_r"]), True), comm_d={"/": cid(bytes(c1["comm_d"]), False)},
            ticket=base64.b64encode(bytes(c1["ticket"])).decode(), seed="0x" + porep["seed"],
            registered_proof=c1["registered_proof"], sector_number=int(s0["sector_number"]), kind="porep")
open(os.path.join(tmp, "porep.json"), "w").write(json.dumps(vals))
r = subprocess.run([CUZK, "verify", "--values", "porep.json", "--param-cache", params, "--proof", "S0.proof"],
                   cwd=tmp, capture_output=True, text=True)
ok = r.returncode == 0 and "\nVALID" in r.stdout and "NOT the ceremony's" in r.stdout
H.check(ok, f"porep from a JSON file (CIDs, base64, f0 address): exit {r.returncode} "
        f"{'' if ok else r.stdout[-300:] + r.stderr}", verbose=True)
wj = {"registered_proof": window["registered_proof"],
      "randomness": base64.b64encode(bytes.fromhex(window["randomness"])).decode(),
      "sectors": [{"sector_number": n, "comm_r": {"/": cid(c, True)}} for n, c in wsec]}
open(os.path.join(tmp, "window.json"), "w").write(json.dumps(wj))
r = subprocess.run([CUZK, "verify", "--kind", "window-post", "--values", "window.json", "--param-cache", params,
                    "--proof", "W.proof"], cwd=tmp, capture_output=True, text=True)
H.check(r.returncode == 0, f"window-post from a JSON file: exit {r.returncode} {r.stderr}", verbose=True)

# ---- INVALID: a proof byte, each public value, another setup's key ---------------------
for kind, (pf, v) in KINDS.items():
    b = bytearray(open(os.path.join(tmp, pf), "rb").read())
    at = rng.randrange(len(b))
    b[at] ^= 1 << rng.randrange(8)
    open(os.path.join(tmp, "flip.proof"), "wb").write(b)
    expect(f"{kind}: byte {at} flipped", 1, [f"partition {at // 192}: INVALID", "\nINVALID"], kind, v, "flip.proof")
for field in ("comm_r", "comm_d", "ticket", "seed"):
    expect(f"porep: {field} changed", 1, "partition 0: INVALID", "porep", dict(porep, **{field: changed(porep[field])}))
expect("porep: another miner (prover id)", 1, "INVALID", "porep", dict(porep, miner=f"f0{miner + 1}"))
expect("porep: another sector number", 1, "INVALID", "porep", dict(porep, sector_number=int(porep["sector_number"]) + 1))
for field in ("comm_r_old", "comm_r_new", "comm_d_new"):
    expect(f"snap: {field} changed", 1, "INVALID", "snap", dict(snap, **{field: changed(snap[field])}))
for kind, v in (("window-post", window), ("winning-post", winning)):
    expect(f"{kind}: randomness changed", 1, "INVALID", kind, dict(v, randomness=changed(v["randomness"])))
    n, c = v["sector"][0].split(":")
    expect(f"{kind}: a sector's comm_r changed", 1, "INVALID", kind, dict(v, sector=[f"{n}:{changed(c)}"] + v["sector"][1:]))
    other = int(n) + 1 + rng.randrange(1000)
    expect(f"{kind}: a sector's number changed", 1, "INVALID", kind, dict(v, sector=[f"{other}:{c}"] + v["sector"][1:]))
# the lowest sector moved into the second partition: both partitions' statements change
open(os.path.join(tmp, "Wswap.proof"), "wb").write(proofs["W1"] + proofs["W0"])
expect("window-post: partitions swapped", 1, ["partition 0: INVALID", "partition 1: INVALID"], "window-post", window,
       "Wswap.proof")
# a PoSt's public inputs carry no prover id (fallback challenges come from randomness and sector numbers)
expect("window-post: the prover id is not in its statement", 0, "\nVALID", "window-post",
       dict(window, miner=f"f0{miner + 1}"))
run("setup", "--kind", "window-post", "--sector-size", "2KiB", "--out", "other")
other_vk = [os.path.join(tmp, "other", f) for f in os.listdir(os.path.join(tmp, "other")) if f.endswith(".vk")][0]
expect("window-post: another setup's key", 1, ["partition 0: INVALID", "partition 1: INVALID"], "window-post", window,
       extra=["--vk", other_vk])

# ---- bad input: another kind's key, proof lists of the wrong length, bad values -------
expect("porep: a window-post key", 2, "vk: a key for 22 public inputs", "porep", porep, extra=["--vk", other_vk])
open(os.path.join(tmp, "pad.proof"), "wb").write(proofs["S0"] + proofs["S0"])
expect("porep: a padded proof list", 2, "2 proofs, this porep proof has 1 partition (padded list)", "porep", porep, "pad.proof")
expect("window-post: one of two partitions", 2, "1 proofs, this window-post proof has 2 partitions (truncated list)",
       "window-post", window, "W0.proof")
open(os.path.join(tmp, "short.proof"), "wb").write(proofs["S0"][:-1])
expect("porep: a byte short", 2, "191 bytes, not a whole number of 192-byte proofs (truncated", "porep", porep, "short.proof")
open(os.path.join(tmp, "empty.proof"), "wb").write(b"")
expect("snap: no proof", 2, "0 proofs, this snap proof has", "snap", snap, "empty.proof")
expect("porep: seed missing", 2, "seed: missing", "porep", {k: v for k, v in porep.items() if k != "seed"})
expect("porep: comm_r given as comm_d's CID", 2, "comm_r: the CID of an unsealed", "porep",
       dict(porep, comm_r=cid(bytes(c1["comm_d"]), False)))
expect("window-post: a sector twice", 2, "given twice", "window-post", dict(window, sector=window["sector"] + window["sector"][:1]))
expect("porep: no key in the parameter cache", 2, "cannot read", "porep", porep, extra=["--param-cache", tmp])

# ---- independent checks: noble on cuzk's rows, the rows recomputed here ----------------
NODES = 2048 // 32


def fr(b):
    return int.from_bytes(b, "little")


def post_row(randomness, secs, k, api_v1_2=True, per=2, challenges=10):
    """FallbackPoSt public inputs of partition k (window: 2 sectors x 10 challenges at 2KiB)."""
    rnd = bytearray(bytes.fromhex(randomness))
    rnd[31] &= 0x3F
    part = secs[k * per:(k + 1) * per]
    row = []
    for slot in range(per):
        n, c = part[min(slot, len(part) - 1)]
        row.append(fr(c))
        for j in range(challenges):
            ci = j if api_v1_2 else (k * per + slot) * challenges + j
            h = hashlib.sha256(bytes(rnd) + n.to_bytes(8, "little") + ci.to_bytes(8, "little")).digest()
            row.append(int.from_bytes(h[:8], "little") % NODES)
    return row


def rows_of(path, width):
    b = open(path, "rb").read()
    vals = [fr(b[i:i + 32]) for i in range(0, len(b), 32)]
    return [vals[i:i + width] for i in range(0, len(vals), width)]


vk_name = {}
for kind, (pf, v) in KINDS.items():
    rc, out = verify(kind, v, pf, ["--public-out", f"{kind}.public"])
    vk_name[kind] = out.split("vk: ", 1)[1].split(":", 1)[0]
    r = subprocess.run(["node", os.path.join(ORACLE, "groth16_oracle.mjs"), "check", vk_name[kind],
                        os.path.join(tmp, pf), os.path.join(tmp, f"{kind}.public")], capture_output=True, text=True)
    H.check(rc == 0 and r.returncode == 0, f"{kind}: noble verifies the daemon's proof on cuzk's rows "
            f"(exit {r.returncode}) {r.stderr[-300:]}", verbose=True)
wsorted = sorted(wsec)
H.check(rows_of(os.path.join(tmp, "window-post.public"), 22) == [post_row(window["randomness"], wsorted, k)
                                                                  for k in range(2)],
        "window-post rows: hashlib's challenges over the sorted sectors", verbose=True)
win_row = []
for slot in range(66):  # WinningPoSt (API 1.0): 66 slots of the one sector, challenge index = slot
    n, c = winsec
    h = hashlib.sha256(bytes.fromhex(winning["randomness"]) + n.to_bytes(8, "little") + slot.to_bytes(8, "little"))
    win_row += [fr(c), int.from_bytes(h.digest()[:8], "little") % NODES]
H.check(rows_of(os.path.join(tmp, "winning-post.public"), 132) == [win_row], "winning-post row: hashlib's", verbose=True)
H.check(rows_of(os.path.join(tmp, "snap.public"), 4) == [[1, fr(bytes.fromhex(snap["comm_r_old"])),
                                                          fr(bytes.fromhex(snap["comm_d_new"])),
                                                          fr(bytes.fromhex(snap["comm_r_new"]))]],
        "snap row: k_and_h_select 1 (2KiB: one partition, h_select 1), comm_r_old, comm_d_new, comm_r_new", verbose=True)
# PoRep: replica_id, comm_d, comm_r, then per challenge its node first (parents come from the graph)
prover = uvarint(miner).ljust(32, b"\0")
porep_id = (5).to_bytes(8, "little") + bytes(24)  # StackedDrg2KiBV1_1 is registered proof 5, nonce 0
rid = bytearray(hashlib.sha256(prover + int(porep["sector_number"]).to_bytes(8, "big") + bytes(c1["ticket"]) +
                               bytes(c1["comm_d"]) + porep_id).digest())
rid[31] &= 0x3F
row = rows_of(os.path.join(tmp, "porep.public"), 3 + 18 * 2)[0]
nodes = [1 + fr(hashlib.sha256(bytes(rid) + bytes(c1["seed"]) + j.to_bytes(4, "little")).digest()) % (NODES - 1)
         for j in range(2)]
H.check(row[:3] == [fr(rid), fr(bytes(c1["comm_d"])), fr(bytes(c1["comm_r"]))] and
        [row[3 + 18 * i] for i in range(2)] == nodes and [row[3 + 18 * i + 17] for i in range(2)] == nodes,
        "porep row: hashlib's replica_id, commitments and challenges", verbose=True)
# the oracle can fail: a challenge moved in the rows
b = bytearray(open(os.path.join(tmp, "porep.public"), "rb").read())
b[3 * 32] ^= 1
open(os.path.join(tmp, "bad.public"), "wb").write(b)
r = subprocess.run(["node", os.path.join(ORACLE, "groth16_oracle.mjs"), "check", vk_name["porep"],
                    os.path.join(tmp, "S0.proof"), os.path.join(tmp, "bad.public")], capture_output=True, text=True)
H.check(r.returncode != 0, "noble rejects the PoRep proof on a changed row", verbose=True)
H.finish()
