"""curio's daemon replaced by this one (see daemon_curio.test.sh).

1. `cuzk --config deploy/curio-example.toml --check-config`: curio's example
   loads as is, without warnings, and names protected mode; curio's
   deprecated keys load with warnings; bad invocations are refused.
2. In a user + network namespace of its own (so port 9820 is free and
   nothing outside is touched): `cuzk --config COPY` where COPY is curio's
   example with only param_cache moved to a scratch directory; a loopback
   client (127.0.0.1, ::1) proves without a token; a client in a second
   namespace, across a veth pair the test makes, is refused with
   UNAUTHENTICATED and a message naming the way out; the same file with
   allow_unauthenticated_tcp, then with auth_token, serves it.
The seed (request ids, witness seeds) is printed; CUZK_SEED replays it."""
import json
import os
import shutil
import signal
import subprocess
import sys
import time

CUZK, PROTO_DIR, SRC = sys.argv[1], sys.argv[2], sys.argv[3]
IN_NETNS = len(sys.argv) > 4 and sys.argv[4] == "--in-netns"
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from grpc_harness import Harness, make_pki  # noqa: E402

import grpc  # noqa: E402

H = Harness("daemon_curio" + ("-netns" if IN_NETNS else ""), PROTO_DIR)
rng, tmp, failures = H.rng, H.tmp, H.failures


def check(cond, what):
    H.check(cond, what, verbose=True)


from cuzk.v1 import proving_pb2 as pb  # noqa: E402
from cuzk.v1 import proving_pb2_grpc as pbg  # noqa: E402

EXAMPLE = os.path.join(SRC, "deploy", "curio-example.toml")
S = pb.AwaitProofResponse


def cuzk(*args, timeout=60):
    return subprocess.run([CUZK, *args], capture_output=True, text=True, timeout=timeout)


# ---- in the namespace: the daemon on curio's 0.0.0.0:9820 --------------------
REMOTE_CLIENT = r'''
import json, sys, grpc
target, token = sys.argv[1], sys.argv[2]
tls = [open(f, "rb").read() if f else None for f in sys.argv[3:6]]  # CA, client key, client certificate
ch = grpc.secure_channel(target, grpc.ssl_channel_credentials(*tls)) if tls else grpc.insecure_channel(target)
md = [("authorization", "Bearer " + token)] if token else None
try:
    ch.unary_unary("/cuzk.v1.ProvingEngine/GetStatus")(b"", timeout=20, metadata=md)
    print(json.dumps(["OK", ""]))
except grpc.RpcError as e:
    print(json.dumps([e.code().name, e.details()]))
'''


def netns_part():
    # a second namespace for the remote client, joined to this one by a veth pair
    setup = subprocess.run(["sh", "-c", "ip link set lo up && ip link add cz0 type veth peer name cz1 && "
                                        "ip addr add 10.203.0.1/24 dev cz0 && ip link set cz0 up"],
                           capture_output=True, text=True)
    if setup.returncode != 0:
        print(f"SKIP namespace part: veth pair: {setup.stderr.strip()}", flush=True)
        return
    peer_ns = subprocess.Popen(["unshare", "-n", "sleep", "600"])
    time.sleep(0.2)
    try:
        r = subprocess.run(["sh", "-c", f"ip link set cz1 netns {peer_ns.pid} && nsenter -t {peer_ns.pid} -n sh -c "
                                        "'ip link set lo up && ip addr add 10.203.0.2/24 dev cz1 && ip link set cz1 up'"],
                           capture_output=True, text=True)
        check(r.returncode == 0, f"second namespace on the veth pair: {r.stderr.strip()}")
        run_daemons(peer_ns.pid)
    finally:
        peer_ns.kill()
        peer_ns.wait()


def remote(pid, token="", tls=()):
    """GetStatus from the other namespace; tls: (CA, client key, client
    certificate) paths, "" for none, or () for plaintext."""
    r = subprocess.run(["nsenter", "-t", str(pid), "-n", sys.executable, "-c", REMOTE_CLIENT, "10.203.0.1:9820", token,
                        *tls], capture_output=True, text=True, timeout=60)
    try:
        return json.loads(r.stdout.strip().splitlines()[-1])
    except (ValueError, IndexError):
        return ["NO ANSWER", r.stdout + r.stderr]


def start(conf, log):
    p = subprocess.Popen([CUZK, "--config", conf, "--test-kinds", "--test-constraints", "256",
                          "--test-post-constraints", "128"], stdout=subprocess.DEVNULL, stderr=open(log, "w"))
    deadline = time.time() + 120
    while "serving on" not in open(log).read():
        if p.poll() is not None or time.time() > deadline:
            p.kill()
            raise RuntimeError("daemon did not start: " + open(log).read())
        time.sleep(0.05)
    return p


def run_daemons(peer_pid):
    params = os.path.join(tmp, "params")
    os.makedirs(params)
    text = open(EXAMPLE).read()
    moved = text.replace('param_cache = "/data/zk/params"', f'param_cache = "{params}"')
    check(moved != text and moved.count("\n") == text.count("\n"), "the copy differs from curio's example in param_cache only")
    conf, log = os.path.join(tmp, "curio.toml"), os.path.join(tmp, "daemon.log")
    with open(conf, "w") as f:
        f.write(moved)
    p = start(conf, log)
    first = open(log).read()
    check("serving on 0.0.0.0:9820" in first and "protected mode" in first, "log at start: 0.0.0.0:9820, protected mode")
    check(" warn " not in first, "curio's example loads without warnings")
    for target in ("127.0.0.1:9820", "[::1]:9820", "localhost:9820"):
        ch = grpc.insecure_channel(target)
        st = pbg.ProvingEngineStub(ch)
        try:
            q = pb.SubmitProofRequest(proof_kind=pb.TEST_WINDOW_POST, request_id=f"loop-{rng.getrandbits(40):x}",
                                      vanilla_proof=rng.getrandbits(64).to_bytes(8, "little"))
            r = st.Prove(pb.ProveRequest(submit=q), timeout=120).result
            check(r.status == S.COMPLETED and len(r.proof) == 192, f"loopback {target}: proved without a token")
        except grpc.RpcError as e:
            check(False, f"loopback {target}: {e.code()} {e.details()}")
        ch.close()
    code, details = remote(peer_pid)
    check(code == "UNAUTHENTICATED" and "protected mode" in details and "allow_unauthenticated_tcp" in details
          and "10.203.0.2" in details, f"remote client refused with a helpful message: {code} {details!r}")
    p.send_signal(signal.SIGTERM)
    check(p.wait(60) == 0, "daemon exits 0")
    # the same file, opened to the firewalled network
    with open(conf, "w") as f:
        f.write(moved.replace('listen = "0.0.0.0:9820"', 'listen = "0.0.0.0:9820"\nallow_unauthenticated_tcp = true'))
    p = start(conf, log)
    code, details = remote(peer_pid)
    check(code == "OK", f"allow_unauthenticated_tcp: the remote client is served: {code} {details}")
    p.send_signal(signal.SIGTERM)
    p.wait(60)
    token = f"t{rng.getrandbits(64):x}"
    with open(conf, "w") as f:
        f.write(moved.replace('listen = "0.0.0.0:9820"', f'listen = "0.0.0.0:9820"\nauth_token = "{token}"'))
    p = start(conf, log)
    code, details = remote(peer_pid)
    check(code == "UNAUTHENTICATED", f"auth_token: a remote client without it is refused: {code}")
    code, details = remote(peer_pid, token)
    check(code == "OK", f"auth_token: a remote client with it is served: {code} {details}")
    p.send_signal(signal.SIGTERM)
    p.wait(60)
    if shutil.which("openssl"):
        tls_remote(peer_pid, conf, log, moved)
    else:
        print("SKIP remote TLS part: no openssl command", flush=True)


def tls_remote(peer_pid, conf, log, moved):
    """Without a token, TLS alone keeps protected mode; mutual TLS serves a
    remote client that holds a certificate from tls_client_ca, and no other."""
    d = os.path.join(tmp, "pki")
    make_pki(d, rng, "IP:10.203.0.1", "remote-client")
    ca, key, crt = (os.path.join(d, n) for n in ("ca.crt", "client.key", "client.crt"))
    keys = f'tls_cert = "{d}/server.crt"\ntls_key = "{d}/server.key"\n'
    for mutual in (False, True):
        with open(conf, "w") as f:
            f.write(moved.replace('listen = "0.0.0.0:9820"', 'listen = "0.0.0.0:9820"\n' + keys +
                                  (f'tls_client_ca = "{ca}"' if mutual else "")))
        p = start(conf, log)
        code, details = remote(peer_pid, tls=(ca, key, crt) if mutual else (ca, "", ""))
        if mutual:
            check(code == "OK", f"mutual TLS, no token: a remote client with a certificate is served: {code} {details}")
            code, details = remote(peer_pid, tls=(ca, "", ""))
            check(code == "UNAVAILABLE", f"mutual TLS: a remote client without one is not: {code} {details}")
        else:
            check(code == "UNAUTHENTICATED" and "protected mode" in details,
                  f"TLS without a token or client CA: a remote client is refused (protected mode): {code} {details}")
        p.send_signal(signal.SIGTERM)
        check(p.wait(60) == 0, f"daemon ({'mutual ' if mutual else ''}TLS) exits 0")


if IN_NETNS:
    netns_part()
    H.finish()
    sys.exit(0)

# ---- on the host: curio's file and invocation ----------------------------------
r = cuzk("--config", EXAMPLE, "--check-config")
check(r.returncode == 0 and "listen 0.0.0.0:9820" in r.stdout and "protected mode" in r.stdout
      and "warning" not in r.stdout, f"cuzk --config curio-example.toml --check-config: {r.stdout}{r.stderr}")
r = cuzk("-c", EXAMPLE, "-l", "127.0.0.1:9821", "--log-level", "debug", "--check-config")
check(r.returncode == 0 and "listen 127.0.0.1:9821" in r.stdout and "log level debug" in r.stdout,
      f"-c FILE -l ADDR --log-level L: {r.stdout}{r.stderr}")
r = cuzk(f"--config={EXAMPLE}", "--listen=unix:///tmp/x.sock", "--check-config")
check(r.returncode == 0 and "listen unix:///tmp/x.sock" in r.stdout, f"--config=FILE --listen=ADDR: {r.stdout}{r.stderr}")
old = os.path.join(tmp, "old-curio.toml")
with open(old, "w") as f:
    f.write(open(EXAMPLE).read().replace("[memory]\n", '[memory]\npinned_budget = "64GiB"\nworking_memory_budget = "200GiB"\n')
            .replace("synthesis_lookahead = 1", "synthesis_lookahead = 4"))
r = cuzk("--config", old, "--check-config")
check(r.returncode == 0 and "memory.pinned_budget is deprecated" in r.stdout
      and "memory.working_memory_budget is deprecated" in r.stdout
      and "pipeline.synthesis_lookahead has no effect" in r.stdout, f"curio's deprecated keys warn: {r.stdout}{r.stderr}")
with open(old, "w") as f:
    f.write(open(EXAMPLE).read().replace("[memory]\n", '[memory]\npinned_budget = true\n'))
r = cuzk("--config", old, "--check-config")
check(r.returncode == 2 and "memory.pinned_budget" in r.stderr, f"a bad deprecated value is an error: {r.stderr}")
for args, what in ((["--config"], "--config without a file"), (["--confg", EXAMPLE], "a misspelt option"),
                   (["--config", os.path.join(tmp, "absent.toml"), "--check-config"], "a missing file")):
    r = cuzk(*args)
    check(r.returncode == 2 and r.stderr, f"{what}: exit {r.returncode}: {r.stderr.strip()}")

probe = subprocess.run(["unshare", "-rn", "true"], capture_output=True, text=True)
if probe.returncode != 0 or not shutil.which("ip") or not shutil.which("nsenter"):
    print(f"SKIP namespace part (remote client): user/network namespaces not allowed here or ip/nsenter missing: "
          f"{probe.stderr.strip()}", flush=True)
else:
    env = dict(os.environ, CUZK_SEED=hex(rng.getrandbits(63) | 1))
    r = subprocess.run(["unshare", "-rn", sys.executable, os.path.abspath(__file__), CUZK, PROTO_DIR, SRC,
                        "--in-netns"], env=env, timeout=600)
    check(r.returncode == 0, "the namespace part passed")
H.finish()
