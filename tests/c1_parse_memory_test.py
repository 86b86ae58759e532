"""See c1_parse_memory.test.sh."""
import os
import random
import shutil
import subprocess
import sys
import tempfile

CUZK = sys.argv[1]
seed = int(os.environ.get("CUZK_SEED", "0"), 0) or random.SystemRandom().getrandbits(63)
print(f"c1_parse_memory: seed: {seed:#x} (replay with CUZK_SEED={seed:#x})", flush=True)
rng = random.Random(seed)
tmp = tempfile.mkdtemp(prefix="cuzk-c1mem-")
failures = []


def check(cond, what):
    if not cond:
        failures.append(what)
        print(f"FAIL: {what}", flush=True)


# Linux keeps a process's peak RSS across exec, and a child spawned from this
# process (which holds the documents) would start from this process's peak:
# a small interpreter forks the command and reports its wait4 rusage.
SPAWN = """
import os, sys
pid = os.fork()
if pid == 0:
    os.dup2(os.open(sys.argv[1], os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600), 2)
    os.dup2(os.open(os.devnull, os.O_WRONLY), 1)
    os.execv(sys.argv[2], sys.argv[2:])
_, status, ru = os.wait4(pid, 0)
print(os.waitstatus_to_exitcode(status), ru.ru_maxrss * 1024)
"""


def peak_of(path):
    """`cuzk c1 check path`: (exit status, its stderr, its peak RSS in bytes)."""
    r = subprocess.run([sys.executable, "-c", SPAWN, path + ".err", CUZK, "c1", "check", path], capture_output=True,
                       text=True, check=True)
    rc, peak = (int(x) for x in r.stdout.split())
    return rc, open(path + ".err").read(), peak


def first_proof_end(c, start):
    """The index after the JSON value at c[start] (a proof object: strings hold no brackets)."""
    depth = 0
    for i in range(start, len(c)):
        if c[i] in "[{":
            depth += 1
        elif c[i] in "]}":
            depth -= 1
            if depth == 0:
                return i + 1
    raise ValueError("unbalanced")


out = os.path.join(tmp, "c1-32g")
r = subprocess.run([CUZK, "gen-vanilla", "porep", "--synthetic", "--sector-size", "32GiB", "--seed",
                    str(rng.getrandbits(32)), "--out", out], capture_output=True, text=True)
check(r.returncode == 0, f"gen-vanilla porep --synthetic 32GiB: {r.stderr}")
c1 = open(os.path.join(out, "c1.json")).read()
n = rng.randrange(16 << 20, 32 << 20)
v = c1.index("[[", c1.index('"vanilla_proofs"')) + 2
zeros_proof = c1[:v] + '{"comm_d_proofs":[' + "0," * (n // 2) + "0]}" + c1[first_proof_end(c1, v):]
docs = [  # name, text, what the refusal must name (None: accepted)
    ("32 GiB C1", c1, None),
    ("32 GiB C1, curio's wrapper", open(os.path.join(out, "c1-curio.json")).read(), None),
    ("32 GiB C1 cut at a random byte", c1[:rng.randrange(len(c1) // 4, len(c1))], "malformed JSON at line 1"),
    ("array of zeros", "[" + "0," * (n // 2) + "0]", "expected an object, got an array"),
    ("array of {}", "[" + "{}," * (n // 3) + "{}]", "expected an object, got an array"),
    ("C1, a proof holding zeros", zeros_proof, "vanilla_proofs.StackedDrg32GiBV1[0][0]: more values than a proof"),
    ("object with a member of {}", '{"junk":[' + "{}," * (n // 3) + "{}]}", "not a C1 output: more values"),
]
print(f"{'document':36} {'bytes':>11} {'peak RSS':>11} {'bound':>11}  result")
for name, text, want in docs:
    path = os.path.join(tmp, "doc.json")
    with open(path, "w") as f:
        f.write(text)
    size = len(text)
    rc, err, peak = peak_of(path)
    bound = 6 * size + (64 << 20)
    print(f"{name:36} {size:>11} {peak:>11} {bound:>11}  {'ok' if rc == 0 else err.strip()[-90:]}", flush=True)
    check(peak <= bound, f"{name}: peak RSS {peak} over {bound} ({size} bytes of input)")
    if want is None:
        check(rc == 0, f"{name}: refused: {err}")
    else:
        check(rc == 1 and want in err, f"{name}: exit {rc}, {err!r} does not say {want!r}")
print(f"c1_parse_memory: {len(docs) * 2 + 1 - len(failures)} checks passed, {len(failures)} failed")
if failures:
    print(f"kept {tmp}")
    sys.exit(1)
shutil.rmtree(tmp, ignore_errors=True)
