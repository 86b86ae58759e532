"""The daemon under a real cgroup memory limit (issue 24, item 1), driven by
Python's grpcio (see daemon_cgroup.test.sh).

A memory cgroup is made for the test (cgroup v2 memory.max where the unified
hierarchy has the memory controller, else v1 memory.limit_in_bytes), with a
random limit far below the RAM; the daemon starts inside it with an "auto"
budget. It must take its budget from that limit (metrics, /status, the log
naming the file), then, given far more work than fits (test-porep jobs whose
partitions, all admitted, would need more than the limit), queue it: every
job completes (each partition verified by the daemon), the engine's peak
reservation stays within the budget, it waited for memory, and the cgroup
saw no OOM kill and peaked below its limit. The group is removed at the end,
also on failure. Exits 77 with the reason where no memory cgroup can be made
(not root, no writable hierarchy). The limit and the witness seeds are drawn
from the printed seed (CUZK_SEED replays them)."""
import json
import os
import signal
import subprocess
import sys
import time
import urllib.request

import grpc

CUZK, PROTO_DIR = sys.argv[1], sys.argv[2]
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from grpc_harness import Harness, free_port, wait_for_log  # noqa: E402

MiB = 1 << 20
CONSTRAINTS = 16384  # per test-porep partition: ~3.5 MiB reserved each, 10 partitions a job
JOBS = 6             # all admitted at once they would reserve ~230 MiB, RSS ~290 MiB
MARGIN = 112 * MiB   # [memory] safety_margin: headroom for what the engine does not count


def mounts():
    """(type, mount point, options) of each cgroup hierarchy mounted."""
    out = []
    for ln in open("/proc/self/mountinfo"):
        left, right = ln.split(" - ", 1)
        fstype, _src, opts = right.split()[:3]
        if fstype in ("cgroup", "cgroup2"):
            out.append((fstype, left.split()[4], set(opts.split(",")) | set(left.split()[5].split(","))))
    return out


def own_group(hier, pid="self"):
    """A process's group in a hierarchy, as /proc/PID/cgroup names it: v2
    ("0::"), or the v1 one with the memory controller."""
    for ln in open(f"/proc/{pid}/cgroup"):
        hid, ctrl, path = ln.rstrip("\n").split(":", 2)
        if (hier == "v2" and hid == "0" and not ctrl) or (hier == "v1" and "memory" in ctrl.split(",")):
            return path
    return None


class Group:
    """A memory cgroup made for this test, under this process's own group
    when the mount shows it, else under the mount's top."""

    def __init__(self, hier, mnt, rng):
        self.hier, self.dir, self.mnt = hier, None, mnt
        own = own_group(hier) or "/"
        parent = os.path.join(mnt, own.lstrip("/"))
        if ".." in own.split("/") or not os.path.isdir(parent):
            parent = mnt  # a cgroup namespace the mount does not follow

        self.dir = os.path.join(parent, f"cuzk-test-{os.getpid()}-{rng.getrandbits(32):08x}")
        os.mkdir(self.dir)

    def file(self, name):
        return os.path.join(self.dir, name)

    def write(self, name, value):
        with open(self.file(name), "w") as f:
            f.write(str(value))

    def read(self, name):
        return open(self.file(name)).read()

    def set_limit(self, n):
        """The limit as the kernel keeps it (rounded to pages)."""
        name = "memory.max" if self.hier == "v2" else "memory.limit_in_bytes"
        self.write(name, n)
        return int(self.read(name))

    def peak(self):
        """The group's peak usage; None where the kernel keeps none (v2 before 5.19)."""
        name = "memory.peak" if self.hier == "v2" else "memory.max_usage_in_bytes"
        return int(self.read(name)) if os.path.exists(self.file(name)) else None

    def usage(self):
        return int(self.read("memory.current" if self.hier == "v2" else "memory.usage_in_bytes"))

    def oom_kills(self):
        """OOM kills in the group (v2 memory.events, v1 memory.oom_control's
        oom_kill, kernels >= 4.13), and whether it is under OOM now (v1)."""
        text = self.read("memory.events" if self.hier == "v2" else "memory.oom_control")
        kv = dict(ln.split() for ln in text.splitlines() if len(ln.split()) == 2)
        return int(kv.get("oom_kill", 0)), int(kv.get("under_oom", 0))

    def enter(self):
        """For Popen's preexec_fn: the child joins the group before exec."""
        with open(self.file("cgroup.procs"), "w") as f:
            f.write(str(os.getpid()))

    def remove(self):
        """rmdir (a group is removed empty: its processes are killed first)."""
        if not self.dir or not os.path.isdir(self.dir):
            return
        for _ in range(100):  # a bound on the wait only: killed processes leave the group
            pids = [int(p) for p in self.read("cgroup.procs").split()]
            for p in pids:
                try:
                    os.kill(p, signal.SIGKILL)
                except ProcessLookupError:
                    pass
            try:
                os.rmdir(self.dir)
                return
            except OSError:
                time.sleep(0.1)
        print(f"could not remove {self.dir}", flush=True)


def make_group(rng):
    """A group in the first writable hierarchy with the memory controller,
    v2 first; (None, why) where there is none."""
    if os.geteuid() != 0:
        return None, "not root: cannot make a cgroup"
    why = []
    for fstype, mnt, opts in sorted(mounts(), key=lambda m: m[0] != "cgroup2"):
        if fstype == "cgroup2":
            ctrl = os.path.join(mnt, "cgroup.controllers")
            if "memory" not in (open(ctrl).read().split() if os.path.exists(ctrl) else []):
                why.append(f"cgroup2 at {mnt} has no memory controller")
                continue
            hier = "v2"
        elif "memory" in opts:
            hier = "v1"
        else:
            continue
        if "ro" in opts:
            why.append(f"{mnt} is read-only")
            continue
        g = None
        try:
            g = Group(hier, mnt, rng)
            if not os.path.exists(g.file("memory.max" if hier == "v2" else "memory.limit_in_bytes")):
                raise OSError("no memory limit file in a new group (the controller is not enabled for it)")
            return g, None
        except OSError as e:
            why.append(f"{mnt}: {e}")
            if g:
                g.remove()
    return None, "; ".join(why) or "no memory cgroup hierarchy mounted"


H = Harness("daemon_cgroup", PROTO_DIR)
rng, tmp, check = H.rng, H.tmp, H.check
group, why = make_group(rng)
if not group:
    print(f"SKIP: no memory cgroup to put the daemon in: {why}", flush=True)
    sys.exit(77)
from cuzk.v1 import proving_pb2 as pb  # noqa: E402
from cuzk.v1 import proving_pb2_grpc as pbg  # noqa: E402

S = pb.AwaitProofResponse
daemon = None


def cleanup():
    if daemon and daemon.poll() is None:
        daemon.kill()
        daemon.wait(60)
    group.remove()


def on_signal(sig, _frame):
    cleanup()
    sys.exit(128 + sig)


signal.signal(signal.SIGTERM, on_signal)
logs = []


def container_view():
    """How to start the daemon as a container without a cgroup namespace of
    its own sees its group (docker --cgroupns=host): in a mount namespace
    where the group itself is mounted at the hierarchy's place, so that
    /proc/self/cgroup names a path the mount does not show. (None, why)
    where this user cannot make one."""
    wrap = ["unshare", "-m", "--propagation", "private", "sh", "-c", 'mount --bind "$0" "$1" && shift && exec "$@"',
            group.dir, group.mnt]
    try:
        r = subprocess.run(wrap + ["true"], capture_output=True, text=True, timeout=60)
    except OSError as e:
        return None, str(e)
    return (wrap, None) if r.returncode == 0 else (None, r.stderr.strip())


def start(name, wrap=()):
    """A daemon in the group, from its first instruction; (process, its
    status URL, its socket, its log text function)."""
    global daemon
    sock, http = os.path.join(tmp, f"{name}.sock"), free_port()
    conf, dlog = os.path.join(tmp, f"{name}.toml"), os.path.join(tmp, f"{name}.log")
    with open(conf, "w") as f:
        f.write(f'[daemon]\nlisten = "unix://{sock}"\nstatus_listen = "127.0.0.1:{http}"\n'
                f'[srs]\nparam_cache = "{os.path.join(tmp, "params")}"\n'
                f'[synthesis]\npartition_workers = 2\n'
                f'[pipeline]\nmax_gpu_queue_depth = 64\n'  # memory, not the queue, must hold the work back
                f'[memory]\nsafety_margin = "{MARGIN // MiB}MiB"\n')
    daemon = subprocess.Popen([*wrap, CUZK, "daemon", "--config", conf, "--test-kinds", "--test-constraints",
                               str(CONSTRAINTS), "--test-post-constraints", "256"],
                              stdout=subprocess.DEVNULL, stderr=open(dlog, "ab"), preexec_fn=group.enter)

    def logtext():
        return open(dlog).read()

    logs.append((name, logtext))
    wait_for_log(daemon, logtext, "serving on", name)
    return daemon, f"http://127.0.0.1:{http}", sock, logtext


def status(url):
    return json.load(urllib.request.urlopen(url + "/status", timeout=30))["engine"]


def metric(url, name):
    text = urllib.request.urlopen(url + "/metrics", timeout=30).read().decode()
    return next((float(ln.split()[1]) for ln in text.splitlines() if ln.startswith(name + " ")), None)


def stop(p, name):
    p.send_signal(signal.SIGTERM)
    check(p.wait(120) == 0, f"{name}: the daemon exits 0")


try:
    limit = group.set_limit((224 + rng.randrange(64)) * MiB)
    ram = os.sysconf("SC_PHYS_PAGES") * os.sysconf("SC_PAGE_SIZE")
    print(f"{group.hier} group {group.dir}, limit {limit} bytes ({limit / MiB:.0f} MiB of {ram / MiB:.0f} MiB RAM)",
          flush=True)
    # the documented rule: the limit less headroom of max(safety_margin, 3/10); half on a small one
    head = max(MARGIN, limit // 10 * 3)
    want_budget = limit - head if limit > 2 * head else limit // 2
    limit_name = "memory.max" if group.hier == "v2" else "memory.limit_in_bytes"

    def budget_checks(url, logtext, name, where):
        check(str(daemon.pid) in group.read("cgroup.procs").split(), f"{name}: the daemon runs in the group")
        line = next((ln for ln in logtext().splitlines() if "memory budget" in ln), "")
        check(where in line, f"{name}: the log says which limit it budgets under ({where}): {line!r}")
        got = metric(url, "cuzk_memory_budget_bytes")
        check(got == want_budget and status(url)["memory"]["budget"] == want_budget,
              f"{name}: the budget comes from the group's limit: {got} (want {want_budget} = {limit} less {head})")

    # a systemd unit's view: the group's path under the hierarchy, as /proc/self/cgroup says
    p, url, sock, logtext = start("unit")
    budget_checks(url, logtext, "unit", group.file(limit_name))
    stop(p, "unit")
    # a container's view: the path it is told is not under the mount, whose top is its group
    wrap, why = container_view()
    if wrap:
        p, url, sock, logtext = start("container", wrap)
        told = own_group(group.hier, p.pid)
        budget_checks(url, logtext, "container", f"{os.path.join(group.mnt, limit_name)} (this process's cgroup "
                      f"{told} (/proc/self/cgroup) is not under {group.mnt}; read from its top up)")
    else:
        print(f"container view not tested (no mount namespace: {why}); the work goes to a daemon as a unit",
              flush=True)
        p, url, sock, logtext = start("unit2")

    # more work than fits, all at once
    ch = grpc.insecure_channel(f"unix://{sock}")
    stub = pbg.ProvingEngineStub(ch)
    jobs = [H.submit_req(pb.TEST_POREP) for _ in range(JOBS)]
    for q in jobs:
        stub.SubmitProof(q, timeout=60)
    for q in jobs:
        r = stub.AwaitProof(pb.AwaitProofRequest(job_id=q.request_id, timeout_ms=600000), timeout=660)
        check(r.status == S.COMPLETED and len(r.proof) == 10 * 192,
              f"job {q.request_id}: {S.Status.Name(r.status)}, {len(r.proof)} proof bytes {r.error_message}")
    st = status(url)
    mem, waits = st["memory"], st["counters"]["memory_waits"]
    print(f"engine: budget {mem['budget']}, peak reserved {mem['peak']}, RssAnon now {mem['rss_anon']}, "
          f"memory waits {waits}; group: peak {group.peak()}, now {group.usage()}", flush=True)
    check(st["counters"]["partitions_verified"] == 10 * JOBS,
          f"every partition verified by the daemon: {st['counters']['partitions_verified']}")
    check(0 < mem["peak"] <= want_budget, f"the engine's peak reservation within the budget: {mem['peak']}")
    check(waits > 0, f"work waited for memory instead of exceeding the budget: {waits} waits")
    kills, under = group.oom_kills()
    check(kills == 0 and not under, f"no OOM kill in the group: oom_kill {kills}, under_oom {under}")
    peak = group.peak()
    check(peak is None or peak < limit, f"the group's peak usage below its limit: {peak} of {limit}")
    ch.close()
    stop(p, "work")
except BaseException:
    for name, text in logs:
        print(f"--- {name} log tail ---\n" + text()[-3000:])
    raise
finally:
    cleanup()
check(not os.path.exists(group.dir), f"the group is removed: {group.dir}")

print(f"daemon_cgroup: {H.checks - len(H.failures)} checks passed, {len(H.failures)} failed", flush=True)
if H.failures:
    print(f"kept {tmp} for inspection")
    for name, text in logs:
        print(f"--- {name} log tail ---\n" + text()[-3000:])
    sys.exit(1)
import shutil  # noqa: E402
shutil.rmtree(tmp, ignore_errors=True)
