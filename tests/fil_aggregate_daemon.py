"""AGGREGATE_SEAL through the daemon: the part of fil_aggregate_test.py that asks the daemon,
which proved the sectors there, for their aggregates (one module so that those proofs, minutes
each on 2 cores, are made once for both).

Daemon(...).cancel_queued(sector): with one synthesis slot, an aggregation submitted while a
PoRep partition synthesizes waits (GetStatus lists it pending under aggregate-seal) and is
cancelled, never run. Daemon(...).run_all(): each aggregate (both sectors v1 and v2, the first alone
padded to 2) is the bytes `cuzk aggregate` writes from the same values and proof files, and VALID
in `cuzk verify --kind aggregate` from the sector values, INVALID there with the other version.
Refused at submit with INVALID_ARGUMENT naming the field, the daemon serving after each: no
sectors, more sectors than the SRS serves, a cut proof, an empty proof (a sector's proof left out
of the list), a sector of another registered proof, interactive (1-partition) proofs under an
NI-PoRep registered proof (13 partitions each), no version, a 31-byte ticket, a sector number
twice, a zero comm_d. Failed (never COMPLETED) with the sector at fault named: a proof point
negated (a valid point, a wrong proof), a sector value changed, the two proofs swapped; a random
byte flipped is refused at submit or fails, never COMPLETED. A
failed id submitted again with the right values completes (a retry). GetMetrics counts the
kind's completed and failed jobs and the cancellation."""
import json
import os
import re
import subprocess

import grpc
from cuzk.v1 import proving_pb2 as pb
from grpc_harness import code_of

OK, DONE, FAILED, CANCELLED = grpc.StatusCode.OK, pb.AwaitProofResponse.COMPLETED, pb.AwaitProofResponse.FAILED, \
    pb.AwaitProofResponse.CANCELLED


def sector_values(d):
    """A sector's public values from the c1.json and request.json `cuzk gen-vanilla` wrote in d."""
    c1 = json.load(open(os.path.join(d, "c1.json")))
    q = json.load(open(os.path.join(d, "request.json")))
    return {"sector_number": q["sector_number"], **{k: bytes(c1[k]) for k in ("comm_r", "comm_d", "ticket", "seed")}}


class Daemon:
    """The checks, against stub st of a daemon whose param cache (params) holds the PoRep TEST
    parameters and a TEST SRS for 4 proofs; sectors: sector_values() of each, rp their
    registered proof (a number), miner the miner id, run a cuzk_runner in tmp."""

    def __init__(self, H, st, cuzk, run, params, sectors, rp, miner):
        self.H, self.st, self.cuzk, self.run, self.params = H, st, cuzk, run, params
        self.S, self.rp, self.miner, self.rng, self.tmp = sectors, rp, miner, H.rng, H.tmp
        self.srs = os.path.join(params, "v28-fil-inner-product-v1.srs")
        self.completed = self.failed = self.cancelled = 0

    def rid(self, tag):
        return f"agg-{tag}-{self.rng.getrandbits(48):012x}"

    def req(self, sectors, version, request_id=None, **override):
        """An AGGREGATE_SEAL request of sectors (dicts of values and "proof")."""
        kw = dict(request_id=request_id or self.rid("a"), proof_kind=pb.AGGREGATE_SEAL, registered_proof=self.rp,
                  miner_id=self.miner, aggregate_version=version,
                  aggregate_sectors=[pb.AggregateSector(sector_number=s["sector_number"], comm_r=s["comm_r"],
                                                        comm_d=s["comm_d"], ticket=s["ticket"], seed=s["seed"],
                                                        proof=s["proof"], registered_proof=s.get("rp", 0))
                                     for s in sectors])
        kw.update(override)
        return pb.SubmitProofRequest(**kw)

    def cancel_queued(self, sector):
        """While a PoRep partition synthesizes (the one slot): an aggregation of sector queued, cancelled."""
        H, st = self.H, self.st
        job = st.SubmitProof(self.req([sector], pb.SNARKPACK_V2, priority=pb.LOW), timeout=120).job_id
        q = {x.proof_kind: (x.pending, x.in_progress) for x in st.GetStatus(pb.GetStatusRequest(), timeout=30).queues}
        H.check(q.get("aggregate-seal") == (1, 0), f"an aggregation queued behind the PoRep synthesis: {q}",
                verbose=True)
        was = st.CancelProof(pb.CancelProofRequest(job_id=job), timeout=30).was_running
        a = st.AwaitProof(pb.AwaitProofRequest(job_id=job, timeout_ms=60000), timeout=90)
        self.cancelled += a.status == CANCELLED
        H.check(a.status == CANCELLED and not was, f"the queued aggregation cancelled: {a.status} {a.error_message} "
                f"(was_running {was})", verbose=True)

    def serving(self, what):
        code = code_of(self.st.GetStatus, pb.GetStatusRequest(), timeout=30)[0]
        self.H.check(code == OK, f"{what}: the daemon still serves")

    def refused(self, what, req, text):
        code, details = code_of(self.st.SubmitProof, req, timeout=120)
        self.H.check(code == grpc.StatusCode.INVALID_ARGUMENT and text in details,
                     f"{what}: {code.name} {details[:240]}", verbose=True)
        self.serving(what)

    def must_fail(self, what, req, text):
        """Submitted, the job fails naming text (never COMPLETED)."""
        job = self.st.SubmitProof(req, timeout=120).job_id
        a = self.st.AwaitProof(pb.AwaitProofRequest(job_id=job, timeout_ms=300000), timeout=330)
        self.failed += a.status == FAILED
        self.H.check(a.status == FAILED and text in a.error_message, f"{what}: {a.status} {a.error_message[:300]}",
                     verbose=True)

    def common(self, sectors, version):
        arg = [f"{s['sector_number']}:{s['comm_r'].hex()}:{s['comm_d'].hex()}:{s['ticket'].hex()}:{s['seed'].hex()}"
               for s in sectors]
        return ["--srs", self.srs, "--registered-proof", str(self.rp), "--miner", f"f0{self.miner}",
                "--aggregate-version", str(version), *[x for a in arg for x in ("--sector", a)]]

    def verify(self, what, want_valid, sectors, version, path):
        vk = [f for f in os.listdir(self.params) if f.startswith("v28-stacked-proof-of-replication") and
              f.endswith(".vk")][0]
        r = subprocess.run([self.cuzk, "verify", "--kind", "aggregate", "--vk", os.path.join(self.params, vk),
                            "--proof", path, *self.common(sectors, version)], cwd=self.tmp, capture_output=True,
                           text=True)
        out = (r.stdout + r.stderr).strip()
        ok = (r.returncode == 0 and "\nVALID" in "\n" + out) if want_valid else (r.returncode == 1 and "INVALID" in out)
        self.H.check(ok, f"{what}: exit {r.returncode}: {out.splitlines()[-1] if out else ''}", verbose=True)

    def aggregates(self):
        """The daemon's aggregates: cuzk aggregate's bytes, VALID from the values, INVALID as the other version."""
        S, H = self.S, self.H
        for name, sectors, version in (("both v1", S, 1), ("both v2", S, 2), ("S0 alone v2", S[:1], 2)):
            r = self.st.Prove(pb.ProveRequest(submit=self.req(sectors, version)), timeout=300).result
            self.completed += r.status == DONE
            H.check(r.status == DONE and len(r.proof) == 2260 + 2976, f"daemon aggregate, {name}: {r.status} "
                    f"{len(r.proof)} bytes {r.error_message}", verbose=True)
            path = os.path.join(self.tmp, f"daemon-{version}-{len(sectors)}.bin")
            open(path, "wb").write(r.proof)
            self.run("aggregate", "--out", "cli.bin", *self.common(sectors, version),
                     *[x for s in sectors for x in ("--proof", s["proof_file"])])
            H.check(open(os.path.join(self.tmp, "cli.bin"), "rb").read() == r.proof,
                    f"daemon aggregate, {name}: the bytes cuzk aggregate writes", verbose=True)
            self.verify(f"daemon aggregate, {name}", True, sectors, version, path)
            self.verify(f"daemon aggregate, {name}, checked as the other version", False, sectors, 3 - version, path)

    def tampered(self):
        """Requests whose proofs or values do not go together: failed naming the sector, never COMPLETED."""
        S, rng = self.S, self.rng
        k = rng.randrange(2)
        other = [dict(s) for s in S]
        at = rng.choice((0, 48, 144))  # A, B or C (48 + 96 + 48 bytes): the sign flag flipped, the point negated
        pf = bytearray(S[k]["proof"])
        pf[at] ^= 0x20
        other[k]["proof"] = bytes(pf)
        self.must_fail(f"sector {k}'s point at byte {at} negated", self.req(other, 2), f"aggregate_sectors[{k}]")
        field = rng.choice(("seed", "ticket", "sector_number"))
        other = [dict(s) for s in S]
        if field == "sector_number":
            other[k][field] += 1
        else:
            b = bytearray(other[k][field])
            b[rng.randrange(32)] ^= 1 << rng.randrange(8)
            other[k][field] = bytes(b)
        self.must_fail(f"sector {k}'s {field} changed", self.req(other, 1), f"aggregate_sectors[{k}]")
        swapped = [dict(S[0], proof=S[1]["proof"]), dict(S[1], proof=S[0]["proof"])]
        job = self.rid("retry")
        self.must_fail("the two sectors' proofs swapped", self.req(swapped, 2, request_id=job), "aggregate_sectors[0]")
        r = self.st.Prove(pb.ProveRequest(submit=self.req(S, 2, request_id=job)), timeout=300).result
        self.completed += r.status == DONE
        self.H.check(r.status == DONE and r.proof == open(os.path.join(self.tmp, "daemon-2-2.bin"), "rb").read(),
                     f"the failed id submitted again with the right proofs: {r.status} {r.error_message}",
                     verbose=True)
        self.flipped(k)

    def flipped(self, k):
        """A random byte of sector k's proof flipped: refused at submit (a point that does not decode) or failed."""
        at = self.rng.randrange(192)
        pf = bytearray(self.S[k]["proof"])
        pf[at] ^= 1 << self.rng.randrange(8)
        other = [dict(s) for s in self.S]
        other[k]["proof"] = bytes(pf)
        req = self.req(other, 2)
        code, details = code_of(self.st.SubmitProof, req, timeout=120)
        if code == OK:
            a = self.st.AwaitProof(pb.AwaitProofRequest(job_id=req.request_id, timeout_ms=300000), timeout=330)
            self.failed += a.status == FAILED
            self.H.check(a.status == FAILED and f"aggregate_sectors[{k}]" in a.error_message,
                         f"sector {k}'s byte {at} flipped: job {a.status} {a.error_message[:200]}", verbose=True)
        else:
            self.H.check(code == grpc.StatusCode.INVALID_ARGUMENT and f"aggregate_sectors[{k}].proof" in details,
                         f"sector {k}'s byte {at} flipped: {code.name} {details[:200]}", verbose=True)

    def refusals(self):
        S, req, refused = self.S, self.req, self.refused
        refused("no sectors", req([], 2), "aggregate_sectors is empty")
        five = [dict(S[i % 2], sector_number=S[i % 2]["sector_number"] + 7 * i) for i in range(5)]
        refused("5 sectors, the SRS serves 4 proofs", req(five, 2), "serves at most 4")
        refused("a cut proof", req([S[0], dict(S[1], proof=S[1]["proof"][:191])], 2),
                "aggregate_sectors[1].proof is 191 bytes")
        refused("a sector's proof left out", req([S[0], dict(S[1], proof=b"")], 2),
                "aggregate_sectors[1].proof is empty")
        refused("a sector of another registered proof", req([S[0], dict(S[1], rp=self.rp + 5)], 2),
                "aggregate_sectors[1].registered_proof")
        refused("interactive proofs as NI-PoRep's", req(S, 2, registered_proof=15),
                "aggregate_sectors[0].proof is 192 bytes; a C2 output of this registered proof is 13 partition(s)")
        refused("no aggregate_version", req(S, pb.AGGREGATE_VERSION_UNSPECIFIED), "aggregate_version")
        refused("a 31-byte ticket", req([S[0], dict(S[1], ticket=S[1]["ticket"][:31])], 2),
                "aggregate_sectors[1].ticket is 31 bytes")
        refused("a sector number twice", req([S[0], dict(S[1], sector_number=S[0]["sector_number"])], 2),
                "aggregate_sectors[1].sector_number")
        refused("a zero comm_d", req([dict(S[0], comm_d=bytes(32)), S[1]], 2), "aggregate_sectors[0].comm_d is zero")

    def metrics(self):
        text = self.st.GetMetrics(pb.GetMetricsRequest(), timeout=30).prometheus_text

        def metric(name):
            m = re.search(r"^" + re.escape(name) + r" (\d+)$", text, re.M)
            return int(m.group(1)) if m else None
        got = (metric('cuzk_proofs_completed{proof_kind="aggregate-seal"}'),
               metric('cuzk_proofs_failed{proof_kind="aggregate-seal"}'), metric("cuzk_jobs_cancelled_total"))
        want = (self.completed, self.failed, self.cancelled)
        self.H.check(got == want, f"metrics: aggregate-seal completed, failed, jobs cancelled {got}, want {want}",
                     verbose=True)

    def run_all(self):
        self.aggregates()
        self.tampered()
        self.refusals()
        self.metrics()
