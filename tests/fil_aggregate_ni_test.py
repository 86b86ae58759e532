"""Aggregates of several NI-PoRep sectors through the daemon, and a running aggregation
cancelled (see fil_aggregate_ni.test.sh).

65 2KiB NI-PoRep sectors of one miner from a fresh seed (printed; CUZK_SEED replays it), made by
tool_fil_agg_standin (each sector's 13 partition proofs, as rust-fil-proofs'
seal_commit_phase2_circuit_proofs returns them, of a stand-in circuit whose key is in the param
cache under the 2KiB PoRep .vk's name), and a TEST SRS for 1024 proofs.

NI-PoRep aggregates (FIP-0092): 3 sectors (39 proofs padded to 64), v2 and v1, COMPLETED, the
bytes `cuzk aggregate` writes from the same values, VALID in `cuzk verify --kind aggregate`,
INVALID as the other version, with the sectors reordered or one comm_r changed, VALID with one
seed changed (NI-PoRep's challenges and transcript take none). Through the daemon, one sector's
comm_r, comm_d or number changed, or two sectors' proofs swapped, FAILED naming the sector.
Refused at submit naming the field: a sector's NI C2 output (the 14164-byte aggregate of its
partitions) in place of its partition proofs, 66 sectors (FIP-0092 aggregates 1 to 65), a sector
with an interactive (1-partition) proof.

Cancelled while running: the 65 sectors (845 proofs padded to 1024, 12 stages), cancelled once
GetStatus shows the aggregation in progress; the job ends CANCELLED, the daemon's log says which
stage it stopped before (an earlier one than the last: the aggregation did not run to its end
first), the daemon still serves, a 3-sector aggregation after it completes with the same bytes
as before, and the cancelled id submitted again aggregates all 65 (FIP-0092's largest), VALID.
GetMetrics counts the completed, failed and cancelled jobs."""
import json
import os
import re
import subprocess
import sys
import time

CUZK, PROTO_DIR, STANDIN = sys.argv[1:4]
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from grpc_harness import Harness, code_of, cuzk_runner, kill_on_error, start_fil_daemon  # noqa: E402

H = Harness("fil_aggregate_ni", PROTO_DIR, seed_bits=31)
rng, tmp = H.rng, H.tmp
from cuzk.v1 import proving_pb2 as pb  # noqa: E402
from fil_aggregate_daemon import CANCELLED, DONE, OK, Daemon  # noqa: E402

daemon = None
kill_on_error(tmp, lambda: [daemon])
run = cuzk_runner(CUZK, tmp)

miner = 1000 + rng.randrange(1 << 20)
params = os.path.join(tmp, "params")
os.makedirs(params)
subprocess.run([STANDIN, params, str(rng.getrandbits(63)), str(miner), "65"], check=True)
run("setup", "--aggregation", "--out", "srs", "--max", "1024")
srs = "v28-fil-inner-product-v1.srs"
os.symlink(os.path.join(tmp, "srs", srs), os.path.join(params, srs))
meta = json.load(open(os.path.join(params, "sectors.json")))
S = [{"sector_number": s["sector_number"], "proof_file": os.path.join(params, s["proof"]),
      "proof": open(os.path.join(params, s["proof"]), "rb").read(),
      **{k: bytes.fromhex(s[k]) for k in ("comm_r", "comm_d", "ticket", "seed")}} for s in meta["sectors"]]
rp = meta["registered_proof"]
H.check(rp == 15 and len(S) == 65 and all(len(s["proof"]) == 13 * 192 for s in S),
        f"65 NI-PoRep sectors (registered proof {rp}) of 13 partition proofs each", verbose=True)
daemon, st = start_fil_daemon(CUZK, tmp, params, "pce = false\n")  # [srs]: no PoRep is proved here
D = Daemon(H, st, CUZK, run, params, S, rp, miner)
log = os.path.join(tmp, "daemon.log")
size = {3: 2260 + 2976 * 6, 65: 2260 + 2976 * 10}  # 39 proofs -> 64, 845 -> 1024


def changed(s, field):
    b = bytearray(s[field])
    b[rng.randrange(31)] ^= 1 << rng.randrange(8)  # the top byte left: still a field element
    return dict(s, **{field: bytes(b)})


def aggregate(sectors, version, what, request_id=None):
    """The daemon's aggregate of sectors: COMPLETED, cuzk aggregate's bytes, VALID; its path."""
    r = st.Prove(pb.ProveRequest(submit=D.req(sectors, version, request_id=request_id)), timeout=600).result
    D.completed += r.status == DONE
    H.check(r.status == DONE and len(r.proof) == size[len(sectors)], f"{what}: {r.status} {len(r.proof)} bytes "
            f"{r.error_message}", verbose=True)
    path = os.path.join(tmp, f"ni-{len(sectors)}-v{version}.bin")
    open(path, "wb").write(r.proof)
    run("aggregate", "--out", "cli.bin", *D.common(sectors, version),
        *[x for s in sectors for x in ("--proof", s["proof_file"])])
    H.check(open(os.path.join(tmp, "cli.bin"), "rb").read() == r.proof, f"{what}: the bytes cuzk aggregate writes",
            verbose=True)
    D.verify(f"{what}: cuzk verify", True, sectors, version, path)
    return path


def ni_aggregates():
    three = S[:3]
    for version in (2, 1):
        path = aggregate(three, version, f"3 NI-PoRep sectors, v{version}")
        D.verify(f"3 NI-PoRep sectors v{version}, checked as the other version", False, three, 3 - version, path)
    path = os.path.join(tmp, "ni-3-v2.bin")
    k = rng.randrange(3)
    D.verify("3 NI-PoRep sectors, reordered", False, [three[1], three[0], three[2]], 2, path)
    D.verify(f"3 NI-PoRep sectors, sector {k}'s comm_r changed", False,
             [changed(s, "comm_r") if i == k else s for i, s in enumerate(three)], 2, path)
    D.verify(f"3 NI-PoRep sectors, sector {k}'s seed changed (NI-PoRep takes none)", True,
             [changed(s, "seed") if i == k else s for i, s in enumerate(three)], 2, path)


def ni_tampered():
    three, k = S[:3], rng.randrange(3)
    for field in ("comm_r", "comm_d"):
        D.must_fail(f"sector {k}'s {field} changed", D.req([changed(s, field) if i == k else s
                                                           for i, s in enumerate(three)], 2), f"aggregate_sectors[{k}]")
    D.must_fail(f"sector {k}'s number changed", D.req([dict(s, sector_number=s["sector_number"] + 1) if i == k else s
                                                      for i, s in enumerate(three)], 2), f"aggregate_sectors[{k}]")
    swapped = [dict(three[0], proof=three[1]["proof"]), dict(three[1], proof=three[0]["proof"]), three[2]]
    D.must_fail("sectors 0 and 1's proofs swapped", D.req(swapped, 2), "aggregate_sectors[0]")


def ni_refusals():
    k = rng.randrange(3)
    run("aggregate", "--out", "one.bin", *D.common(S[k:k + 1], 2), "--proof", S[k]["proof_file"])
    one = open(os.path.join(tmp, "one.bin"), "rb").read()
    H.check(len(one) == 14164, f"sector {k}'s own NI C2 (its 13 proofs aggregated): {len(one)} bytes")
    D.refused("a sector's NI C2 output in place of its partition proofs",
              D.req([dict(s, proof=one) if i == k else s for i, s in enumerate(S[:3])], 2),
              f"aggregate_sectors[{k}].proof is 14164 bytes: an NI-PoRep C2 output")
    extra = dict(S[0], sector_number=max(s["sector_number"] for s in S) + 1)
    D.refused("66 NI-PoRep sectors", D.req(S + [extra], 2), "FIP-0092 aggregates 1 to 65")
    D.refused("an interactive (1-partition) proof", D.req([dict(S[0], proof=S[0]["proof"][:192])] + S[1:3], 2),
              "aggregate_sectors[0].proof is 192 bytes")


def cancel_running():
    """The 65 sectors cancelled while they aggregate; the log's stage; the daemon serves on."""
    job = D.rid("running")
    st.SubmitProof(D.req(S, 2, request_id=job), timeout=120)
    running = False
    for _ in range(6000):
        q = {x.proof_kind: (x.pending, x.in_progress) for x in st.GetStatus(pb.GetStatusRequest(), timeout=30).queues}
        if q.get("aggregate-seal", (0, 0))[1] == 1:
            running = True
            break
        time.sleep(0.01)
    # into its first stages (about 4 s in all on 2 cores); wherever the cancel lands, the checks
    # below hold: the job CANCELLED and the aggregation stopped before its last stage
    time.sleep(0.5)
    was = st.CancelProof(pb.CancelProofRequest(job_id=job), timeout=30).was_running
    a = st.AwaitProof(pb.AwaitProofRequest(job_id=job, timeout_ms=120000), timeout=150)
    D.cancelled += a.status == CANCELLED
    H.check(running and was and a.status == CANCELLED, f"65 sectors cancelled while aggregating: in progress {running},"
            f" was_running {was}, {a.status} {a.error_message}", verbose=True)
    stopped = None
    for _ in range(3000):  # the finish returns at its next stage; the line follows the job's end
        m = re.search(rf"job {job}: its aggregate-seal finish stopped: (.*)", open(log).read())
        if m:
            stopped = m.group(1)
            break
        time.sleep(0.01)
    st_m = re.search(r"\(stage (\d+) of (\d+)\)", stopped or "")
    H.check(st_m is not None and int(st_m.group(2)) == 12 and int(st_m.group(1)) < 12,
            f"the aggregation stopped early: {stopped}", verbose=True)
    D.serving("after the cancelled aggregation")
    aggregate(S[:3], 2, "3 sectors after the cancelled aggregation")
    H.check(open(os.path.join(tmp, "ni-3-v2.bin"), "rb").read() == open(os.path.join(tmp, "cli.bin"), "rb").read(),
            "the same bytes as before the cancellation", verbose=True)
    aggregate(S, 2, "the cancelled id again: 65 NI-PoRep sectors (FIP-0092's largest)", request_id=job)


ni_aggregates()
ni_tampered()
ni_refusals()
cancel_running()
D.metrics()
code = code_of(st.GetStatus, pb.GetStatusRequest(), timeout=30)[0]
H.check(code == OK, "the daemon serves at the end")
daemon.terminate()
daemon.wait(timeout=60)
H.finish()
