"""The metrics text of a daemon with the test kinds, after a random mix of
jobs (see daemon_metrics.test.sh), checked against the reference table in
docs/operations.md and against GetStatus:

- the text's shape: each family's one "# HELP" and one "# TYPE" come before
  its samples, every sample's value is a number;
- its families are the documented ones, the cluster's excepted (no
  [cluster] here), and nothing else; each with the documented type and
  label names (a histogram's _sum and _count without le);
- HTTP /metrics has the same families as GetMetrics;
- the counts agree with what the test did and with GetStatus: jobs
  completed (ours, curio's total and per kind, the histogram's counts),
  duplicates, the kinds and circuits listed, the prover workers, pinned
  memory, draining.

Binds a unix socket and 127.0.0.1 only. The number, kinds and seeds of the
jobs come from the printed seed (CUZK_SEED replays them)."""
import os
import re
import sys
import urllib.request

import grpc

CUZK, PROTO_DIR, REFERENCE = sys.argv[1], sys.argv[2], sys.argv[3]
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from grpc_harness import Harness, TestDaemon, await_status, free_port  # noqa: E402

H = Harness("daemon_metrics", PROTO_DIR)
rng, tmp, check = H.rng, H.tmp, H.check
from cuzk.v1 import proving_pb2 as pb  # noqa: E402
from cuzk.v1 import proving_pb2_grpc as pbg  # noqa: E402

daemons = []
H.kill_daemons_on_error(daemons)


def reference(path):
    """{family: (type, label names, cluster only)} from the table's rows."""
    out = {}
    row = re.compile(r"^\| `(cuzk_\w+)` \| (counter|gauge|histogram) \| ([^|]*)\|")
    for line in open(path):
        m = row.match(line)
        if m:
            cell = m.group(3)
            out[m.group(1)] = (m.group(2), frozenset(re.findall(r"`(\w+)`", cell)), "*cluster*" in cell)
    return out


SAMPLE = re.compile(r'^(\w+)(?:\{(.*)\})? (\S+)$')
LABEL = re.compile(r'(\w+)="((?:[^"\\]|\\.)*)"(?:,|$)')


def parse(text, what):
    """{family: {"type", "help", "samples": [(name, {label: value}, float)]}}, checking the shape."""
    fams, order = {}, []
    for n, line in enumerate(text.splitlines(), 1):
        if line.startswith("# HELP ") or line.startswith("# TYPE "):
            kind, name = line[2:6], line.split(" ")[2]
            f = fams.setdefault(name, {"type": None, "help": 0, "samples": []})
            check(not f["samples"], f"{what} line {n}: # {kind} {name} after its samples")
            if kind == "HELP":
                f["help"] += 1
            else:
                check(f["type"] is None, f"{what} line {n}: a second # TYPE for {name}")
                f["type"] = line.split(" ")[3]
            continue
        m = SAMPLE.match(line)
        check(m is not None, f"{what} line {n}: not a sample: {line!r}")
        if not m:
            continue
        name, labels, value = m.groups()
        fam = name
        if name not in fams:
            fam = re.sub(r"_(bucket|sum|count)$", "", name)
        f = fams.get(fam)
        check(f is not None and f["type"] and f["help"] == 1, f"{what} line {n}: {name} without one HELP and a TYPE before it")
        if f is None:
            continue
        lab = dict(LABEL.findall(labels or ""))
        check(len(lab) == (labels or "").count('="'), f"{what} line {n}: labels {labels!r} do not parse")
        try:
            v = float(value)
        except ValueError:
            check(False, f"{what} line {n}: value {value!r} is not a number")
            continue
        f["samples"].append((name, lab, v))
    return fams


def one(fams, name, labels=None):
    """The value of the sample name{labels} (None: absent)."""
    fam = fams.get(re.sub(r"_(bucket|sum|count)$", "", name)) or fams.get(name) or {"samples": []}
    vals = [v for n, lab, v in fam["samples"] if n == name and (labels is None or lab == labels)]
    return vals[0] if len(vals) == 1 else None


ref = reference(REFERENCE)
check(len(ref) > 50, f"the reference table in {REFERENCE} has {len(ref)} rows")

http = free_port()
d = TestDaemon(CUZK, tmp, daemons, "metrics", f"unix://{tmp}/metrics.sock",
               keys=f'status_listen = "127.0.0.1:{http}"\n', workers=1 + rng.randrange(2))
if not d.launch():
    raise RuntimeError("daemon exited: " + d.logtext())
stub = pbg.ProvingEngineStub(grpc.insecure_channel(d.listen))

# the jobs: 2-6 of random test kinds, some submitted twice (duplicates)
kinds = {pb.TEST_POREP: "test-porep", pb.TEST_WINDOW_POST: "test-window", pb.TEST_WINNING_POST: "test-winning"}
jobs, dups = [], 0
for _ in range(2 + rng.randrange(5)):
    req = H.submit_req(rng.choice(list(kinds)))
    stub.SubmitProof(req)
    jobs.append(req)
    if rng.randrange(3) == 0:
        stub.SubmitProof(req)
        dups += 1
for req in jobs:
    st, msg = await_status(stub, req.request_id)
    check(st == pb.AwaitProofResponse.COMPLETED, f"job {req.request_id}: {st} {msg}")
print(f"{len(jobs)} jobs, {dups} submitted twice", flush=True)

text = stub.GetMetrics(pb.GetMetricsRequest()).prometheus_text
status = stub.GetStatus(pb.GetStatusRequest())
hm = urllib.request.urlopen(f"http://127.0.0.1:{http}/metrics", timeout=30).read().decode()
fams = parse(text, "GetMetrics")
hfams = parse(hm, "HTTP /metrics")

# both ways against the reference, cluster families excepted
want = {n for n, (_, _, cl) in ref.items() if not cl}
check(set(fams) == want, f"families: missing {sorted(want - set(fams))}, undocumented {sorted(set(fams) - want)}")
check(set(hfams) == set(fams), f"HTTP /metrics families differ: {sorted(set(hfams) ^ set(fams))}")
for name, f in fams.items():
    if name not in ref:
        continue
    typ, labels, _ = ref[name]
    check(f["type"] == typ, f"{name}: TYPE {f['type']}, documented {typ}")
    for n, lab, _ in f["samples"]:
        expect = labels - {"le"} if typ == "histogram" and not n.endswith("_bucket") else labels
        check(set(lab) == expect, f"{n}: labels {sorted(lab)}, documented {sorted(expect)}")
        check(n == name or (typ == "histogram" and n in (name + "_bucket", name + "_sum", name + "_count")),
              f"{n} in family {name} ({typ})")

# the counts against what was done and against GetStatus
n = float(len(jobs))
check(one(fams, "cuzk_jobs_completed_total") == n and one(fams, "cuzk_proofs_completed_total") == n,
      f"completed: {one(fams, 'cuzk_jobs_completed_total')} and {one(fams, 'cuzk_proofs_completed_total')}, ran {n}")
check(status.total_proofs_completed == len(jobs) and status.total_proofs_failed == 0
      and one(fams, "cuzk_jobs_failed_total") == 0, f"GetStatus totals {status.total_proofs_completed}/"
      f"{status.total_proofs_failed}")
check(one(fams, "cuzk_jobs_duplicate_total") == dups and one(fams, "cuzk_jobs_submitted_total") == n,
      f"submitted {one(fams, 'cuzk_jobs_submitted_total')}, duplicates {one(fams, 'cuzk_jobs_duplicate_total')} ({dups})")
for k in kinds.values():
    mine = float(sum(kinds[r.proof_kind] == k for r in jobs))
    got = one(fams, "cuzk_proofs_completed", {"proof_kind": k})
    cnt = one(fams, "cuzk_proof_duration_seconds_count", {"proof_kind": k})
    inf = one(fams, "cuzk_proof_duration_seconds_bucket", {"proof_kind": k, "le": "+Inf"})
    check(got == mine and cnt == mine and inf == mine, f"{k}: completed {got}, histogram {cnt}/{inf}, ran {mine}")
    check(one(fams, "cuzk_kind_failed", {"proof_kind": k, "circuit": k}) == 0, f"cuzk_kind_failed of {k}")
check({q.proof_kind for q in status.queues} == set(kinds.values()), f"GetStatus queues {list(status.queues)}")
check({s.circuit_id for s in status.loaded_srs} == set(kinds.values()), "GetStatus lists each circuit once")
check(len(status.gpus) == one(fams, "cuzk_gpu_workers") and all(g.name == "CPU prover (no GPU)" for g in status.gpus),
      f"GetStatus.gpus {len(status.gpus)}, cuzk_gpu_workers {one(fams, 'cuzk_gpu_workers')}")
check(status.pinned_memory_bytes == one(fams, "cuzk_memory_pinned_bytes")
      and status.pinned_memory_limit_bytes == one(fams, "cuzk_memory_pinned_limit_bytes"),
      f"pinned memory: GetStatus {status.pinned_memory_bytes}/{status.pinned_memory_limit_bytes}")
check(not status.draining and one(fams, "cuzk_draining") == 0, "not draining")
calls = one(fams, "cuzk_rpc_requests_total", {"method": "SubmitProof", "code": "OK"})
check(calls == len(jobs) + dups, f"SubmitProof calls counted {calls}, made {len(jobs) + dups}")

d.p.terminate()
d.p.wait(60)
H.finish(daemons)
