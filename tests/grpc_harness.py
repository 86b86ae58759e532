"""What the daemon tests share (daemon_grpc_test.py, daemon_filecoin_test.py,
daemon_reliability_test.py): the run's seed, a scratch directory, counted
checks, daemons killed (their logs shown) on an uncaught exception, and Python
stubs generated at run time from our proto (so a proto change is tested as is)."""
import os
import random
import sys
import tempfile

from grpc_tools import protoc


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

    def check(self, cond, what, verbose=False):
        self.checks += 1
        if not cond:
            self.failures.append(what)
        if verbose or not cond:
            print(f"{'ok  ' if cond else 'FAIL'}: {what}", flush=True)


def fil_request(pb, d, request_id, **override):
    """A SubmitProofRequest from the request.json that `cuzk gen-vanilla` wrote
    in directory d (its vanilla proof files read from there)."""
    import json
    kinds = {"porep": pb.POREP_SEAL_COMMIT, "snap": pb.SNAP_DEALS_UPDATE, "wpost": pb.WINDOW_POST_PARTITION,
             "winning": pb.WINNING_POST}
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
