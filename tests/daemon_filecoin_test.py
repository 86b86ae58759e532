"""Filecoin proofs through the daemon, driven by Python's grpcio (see daemon_filecoin.test.sh).

2KiB sectors sealed natively by `cuzk gen-vanilla` from a fresh seed (printed;
CUZK_SEED replays it), TEST parameters from the fixture directory. Every kind
(PoRep C2, SnapDeals, WindowPoSt, WinningPoSt; SnapDeals also from `gen-vanilla snap
--synthetic`) must come back COMPLETED with
192 bytes per partition (the daemon verifies each partition before it
answers); a WinningPoSt submitted behind queued PoRep jobs must finish before
them; invalid vanilla proofs and fields are refused with INVALID_ARGUMENT
naming the field."""
import os
import subprocess
import sys
import threading
import time

import grpc

CUZK, PROTO_DIR, PARAMS = sys.argv[1], sys.argv[2], sys.argv[3]
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from grpc_harness import Harness, cuzk_runner, fil_request, kill_on_error, start_fil_daemon  # noqa: E402

H = Harness("daemon_filecoin", PROTO_DIR, seed_bits=31)
rng, tmp, failures = H.rng, H.tmp, H.failures


def check(cond, what):
    H.check(cond, what, verbose=True)


from cuzk.v1 import proving_pb2 as pb  # noqa: E402

S = pb.AwaitProofResponse
daemon = None
kill_on_error(tmp, lambda: [daemon])
run = cuzk_runner(CUZK, tmp)


# ---- inputs: two sealed sectors, their PoSt vanilla proofs, a SnapDeals update
miner = 1000 + rng.randrange(1 << 20)
sectors = [rng.randrange(1, 1 << 30) for _ in range(2)]
for i, sid in enumerate(sectors):
    run("gen-vanilla", "porep", "--sector-size", "2KiB", "--out", f"S{i}", "--seed", str(rng.getrandbits(32)),
        "--miner-id", str(miner), "--sector-id", str(sid), "--threads", "1")
post_seed = str(rng.getrandbits(32))
run("gen-vanilla", "window-post", "--sector", "S0", "--sector", "S1", "--seed", post_seed, "--out", "W")
run("gen-vanilla", "winning-post", "--sector", "S0", "--sector", "S1", "--seed", post_seed, "--out", "WIN")
run("gen-vanilla", "snap", "--sector", "S1", "--seed", str(rng.getrandbits(32)), "--out", "U")
# the stand-in update the 32 GiB runs use (no sector): the daemon must prove and verify it as well
run("gen-vanilla", "snap", "--synthetic", "--sector-size", "2KiB", "--seed", str(rng.getrandbits(32)),
    "--sector-id", str(rng.randrange(1, 1 << 30)), "--miner", str(miner), "--out", "USYN")


def request(d, **override):
    """A SubmitProofRequest from a request.json that gen-vanilla wrote."""
    return fil_request(pb, os.path.join(tmp, d), f"{d}-{rng.getrandbits(48):012x}", **override)


# ---- the daemon: parameters linked from the fixture, PCE files of its own in
# another directory ([srs] pce_dir: a read-only or full parameter cache)
params = os.path.join(tmp, "params")
pcedir = os.path.join(tmp, "pce")
os.makedirs(params)
for f in os.listdir(PARAMS):
    if f.startswith("v28-"):
        os.symlink(os.path.join(PARAMS, f), os.path.join(params, f))
# one PCE extracted beforehand by the operator's command: the daemon must load it
run("pce", "extract", "--circuit", "wpost-2k", "--dir", pcedir, "--threads", "1")
daemon, st = start_fil_daemon(CUZK, tmp, params, f'pce = true\npce_dir = "{pcedir}"\n'
                             f'[synthesis]\npartition_workers = 1\n'
                             # one prover worker: "the first PoRep is being proved, the others wait"
                             # below holds whatever the machine's speed (with two, the second PoRep
                             # could start proving before the WinningPoSt arrives)
                             f'[gpus]\ngpu_workers_per_device = 1\n')
# the kinds whose parameters the fixture made (all four, except in the sanitizer build)
stamp = {"window-post": "wpost-2k", "winning-post": "winning-2k", "snap": "snap-2k", "porep": "porep-2k"}
have = sorted(v for k, v in stamp.items() if os.path.exists(os.path.join(PARAMS, f".done-{k}-2KiB")))
if len(have) < 4:
    print(f"daemon_filecoin: parameters for {have} only (FIL_KINDS): the other kinds are not tested", flush=True)
names = sorted(q.proof_kind for q in st.GetStatus(pb.GetStatusRequest()).queues)
# the NI-PoRep kind proves with the PoRep's parameter files, and aggregate-seal checks its aggregates
# against their .vk: both registered with them
want = sorted(have + (["ni-porep-2k", "aggregate-seal"] if "porep-2k" in have else []))
check(names == want and {"wpost-2k", "winning-2k"} <= set(names), f"the 2KiB Filecoin kinds are registered: {names}")
FULL = len(have) == 4


def prove(req, what, parts=1):
    t = time.time()
    r = st.Prove(pb.ProveRequest(submit=req), timeout=900).result
    ok = r.status == S.COMPLETED and len(r.proof) == 192 * parts
    check(ok, f"{what}: {S.Status.Name(r.status)}, {len(r.proof)} bytes, {time.time() - t:.1f} s "
              f"(synthesis {r.synthesis_ms} ms, prove {r.gpu_compute_ms} ms, verify {r.verify_ms} ms) {r.error_message}")
    return r


def refused(req, field, what):
    try:
        st.SubmitProof(req)
        check(False, f"{what}: accepted")
    except grpc.RpcError as e:
        check(e.code() == grpc.StatusCode.INVALID_ARGUMENT and field in e.details(),
              f"{what}: {e.code().name} naming {field}: {e.details()}")


# ---- every kind, once (PCE extraction starts on the first proof of each) ----
prove(request("W"), "WindowPoSt 2KiB")
prove(request("WIN"), "WinningPoSt 2KiB")
if FULL:
    prove(request("U"), "SnapDeals 2KiB")
    prove(request("USYN"), "SnapDeals 2KiB, synthetic (gen-vanilla snap --synthetic)")
    prove(request("S0"), "PoRep C2 2KiB (C1 JSON)")
# curio's wrapper form of the C1 output, and a commitment given as its CID bytes


def cid(codec, mh, digest):
    def uvarint(v):
        out = b""
        while True:
            b = v & 0x7F
            v >>= 7
            out += bytes([b | (0x80 if v else 0)])
            if not v:
                return out
    return uvarint(1) + uvarint(codec) + uvarint(mh) + uvarint(32) + digest


if FULL:
    u = request("U")
    u.comm_r_old = cid(0xF102, 0xB401, u.comm_r_old)
    u.comm_d_new = cid(0xF101, 0x1012, u.comm_d_new)
    prove(u, "SnapDeals 2KiB, comm_r_old and comm_d_new as CIDs")

# ---- a WinningPoSt behind queued PoRep jobs (the PoRep proofs are a batch) --
finished = {}


def await_job(job_id):
    r = st.AwaitProof(pb.AwaitProofRequest(job_id=job_id, timeout_ms=900000), timeout=900)
    finished[job_id] = (time.time(), r)


if FULL:
    porep_ids = []
    for i in range(3):
        req = request("S0" if i % 2 == 0 else "S1")
        if i == 1:
            req.vanilla_proof = open(os.path.join(tmp, "S1", "c1-curio.json"), "rb").read()
        porep_ids.append(st.SubmitProof(req).job_id)
    threads = [threading.Thread(target=await_job, args=(j,)) for j in porep_ids]
    for t in threads:
        t.start()
    time.sleep(1.0)  # the first PoRep is being proved, the others wait
    win_id = st.SubmitProof(request("WIN")).job_id
    await_job(win_id)
    for t in threads:
        t.join()
    for i, j in enumerate(porep_ids):
        r = finished[j][1]
        check(r.status == S.COMPLETED and len(r.proof) == 192,
              f"batch PoRep {i}{' (curio C1 wrapper)' if i == 1 else ''}: {S.Status.Name(r.status)} {r.error_message}")
    w = finished[win_id]
    check(w[1].status == S.COMPLETED, f"WinningPoSt behind PoRep: {S.Status.Name(w[1].status)} {w[1].error_message}")
    later = [i for i, j in enumerate(porep_ids) if finished[j][0] > w[0]]
    # PoRep 0 may still be in synthesis when the WinningPoSt arrives (then it is
    # overtaken too); 1 and 2 are queued behind it.
    check(set(later) >= {1, 2}, f"the WinningPoSt finished before the queued PoRep jobs (PoRep jobs after it: {later})")

# ---- curio's request shapes (lib/ffi/cuzk_funcs.go, tasks/proofshare/task_prove.go) ----
# ids built as curio's Go code builds them: %d of a byte slice prints
# "[12 34 ...]", with spaces; every proof is verified by the daemon before
# it answers COMPLETED.
def go_d(bs):
    return "[" + " ".join(str(b) for b in bs) + "]"


w = request("W")
wid = f"wdpost-{w.miner_id}-{w.partition_index}-{go_d(w.randomness[:8])}"
w.request_id, w.priority = wid, pb.HIGH
prove(w, f"curio WindowPoSt, id {wid!r}")
win = request("WIN")
win.request_id = f"winpost-{win.miner_id}-{win.randomness[:8].hex()}"
prove(win, f"curio WinningPoSt, id {win.request_id!r}")
if FULL:
    # ProofShare SnapDeals: no sector_size, raw 32-byte commitments, ps-snap-M-N-task
    u = request("U")
    u.ClearField("sector_size")
    u.request_id = f"ps-snap-{u.miner_id}-{u.sector_number}-{rng.randrange(1, 1 << 40)}"
    prove(u, f"curio ProofShare SnapDeals without sector_size ({u.request_id})")
    u2 = request("U", registered_proof=3)  # 32 GiB update proof: 16 partitions, this request has 1
    u2.ClearField("sector_size")
    refused(u2, "registered_proof", "SnapDeals without sector_size whose registered_proof disagrees with its vanilla proofs")
# a retry of a failed id: the first attempt fails (its parameter file is gone,
# as when an operator's fetch is incomplete), the same curio id proves once it is back
st.EvictSRS(pb.EvictSrsRequest(circuit_id="wpost-2k"))
listing = run("params", "list", "--param-cache", params).splitlines()
wpost_params = [l.split()[4] for l in listing if l.split()[:3] == ["window-post", "2KiB", "params"]]
check(len(wpost_params) == 1, f"the WindowPoSt 2KiB parameter file: {wpost_params}")
hidden = os.path.join(tmp, "hidden.params")
os.rename(os.path.join(params, wpost_params[0]), hidden)
w = request("W")
w.request_id = f"wdpost-{w.miner_id}-{w.partition_index}-{go_d(w.randomness[:8])}-retry"
r = st.Prove(pb.ProveRequest(submit=w), timeout=900).result
check(r.status == S.FAILED and r.error_message, f"first attempt without its parameters: {S.Status.Name(r.status)} "
      f"{r.error_message}")
os.rename(hidden, os.path.join(params, wpost_params[0]))
prove(w, "the same curio id retried after a failure")
a = st.AwaitProof(pb.AwaitProofRequest(job_id=w.request_id))
check(a.status == S.COMPLETED, "the id now names the completed attempt")
if FULL:
    # a cancelled id resubmitted: curio's Prove past its deadline (ProveTimeout)
    # cancels the job; curio then retries the sector under the same porep-M-N
    p = request("S0")
    p.request_id = f"porep-{p.miner_id}-{p.sector_number}"
    try:
        st.Prove(pb.ProveRequest(submit=p), timeout=0.3)
        check(False, "PoRep within 0.3 s (the test needs it cancelled)")
    except grpc.RpcError as e:
        check(e.code() == grpc.StatusCode.DEADLINE_EXCEEDED, f"PoRep past its deadline: {e.code()}")
    a = st.AwaitProof(pb.AwaitProofRequest(job_id=p.request_id, timeout_ms=600000))
    check(a.status in (S.CANCELLED, S.TIMEOUT), f"the deadline cancelled the job: {S.Status.Name(a.status)}")
    prove(p, f"the cancelled id {p.request_id} resubmitted")
else:
    print("daemon_filecoin: no PoRep/SnapDeals parameters: curio's SnapDeals and cancelled-PoRep shapes not tested",
          flush=True)

# ---- refusals: INVALID_ARGUMENT naming the field ---------------------------
w = request("W")
blob = bytearray(w.vanilla_proofs[0])
blob[len(blob) - 1 - rng.randrange(32 * 8)] ^= 1 << rng.randrange(6)  # a path, root or comm near the end
w.vanilla_proofs[0] = bytes(blob)
refused(w, "vanilla_proofs[0]", "WindowPoSt with a flipped bit in its last 256 bytes")
w = request("W")
w.vanilla_proofs[1] = w.vanilla_proofs[1][:-1 - rng.randrange(100)]
refused(w, "vanilla_proofs[1]", "WindowPoSt with a truncated vanilla proof")
refused(request("W", randomness=bytes(31)), "randomness", "31-byte randomness")
refused(request("WIN", randomness=bytes(rng.getrandbits(8) for _ in range(31)) + b"\0"),
        "vanilla_proofs", "WinningPoSt with other randomness than its vanilla proof's")
if FULL:
    p = request("S0")
    refused(request("S0", sector_number=sectors[0] + 1), "sector", "PoRep C1 of another sector number")
    refused(request("S0", vanilla_proof=p.vanilla_proof[: len(p.vanilla_proof) // 2]), "vanilla_proof",
            "PoRep with a truncated C1 JSON")
    s = request("U")
    bad = bytearray(s.comm_r_new)
    bad[rng.randrange(31)] ^= 1 << rng.randrange(8)
    refused(request("U", comm_r_new=bytes(bad)), "comm_r_new", "SnapDeals with a wrong comm_r_new")
    refused(request("U", comm_d_new=b"\x01\x81\xe2\x03" + bytes(10)), "comm_d_new", "SnapDeals with a malformed CID")

st.GetStatus(pb.GetStatusRequest())
daemon.terminate()
check(daemon.wait(60) == 0, "daemon exits cleanly on SIGTERM")
text = open(os.path.join(tmp, "daemon.log")).read()
check("loaded the PCE of wpost-2k from disk" in text and "PCE of wpost-2k extracted" not in text,
      "the PCE from `cuzk pce extract` was loaded, not extracted again")
check(all(f"PCE of {k} extracted" in text for k in have if k != "wpost-2k"),
      f"a PCE was extracted for every other kind ({have})")
check(all(os.path.exists(os.path.join(pcedir, f"{k}.pce")) for k in have) and
      not any(f.endswith(".pce") for f in os.listdir(params)),
      f"the PCE files are in pce_dir, none beside the parameters ({sorted(os.listdir(pcedir))})")
print(f"daemon_filecoin: {H.checks - len(failures)}/{H.checks} checks passed")
if failures:
    print("--- daemon log tail ---\n" + text[-4000:])
    sys.exit(1)
subprocess.run(["rm", "-rf", tmp])
