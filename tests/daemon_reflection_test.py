"""gRPC server reflection, as grpcurl uses it (see daemon_reflection.test.sh).

The client is Debian's python3-grpcio and python3-protobuf, with no reflection
package and no copy of our reflection.proto: the reflection schema is built
here from the protocol's field numbers, typed independently of proto/grpc/.
Against a daemon on loopback TCP with an auth token, for both v1alpha and v1:
- list_services names ProvingEngine and the two reflection services;
- the FileDescriptorProto served for proving.proto equals the one that
  grpc_tools' protoc (another compiler than the build's protoc-c) makes;
- file_containing_symbol finds random symbols of every sort (messages,
  fields, nested types, enums and their values, services, methods), and
  answers NOT_FOUND for random unknown names, file_by_filename likewise, on
  one stream of requests in a random order, each answer echoing its request;
- the served reflection.proto has the field numbers typed here;
- GetStatus is called through message classes made from the served
  descriptor alone;
- a request that is not a ServerReflectionRequest ends the stream with
  INVALID_ARGUMENT, a caller without the token gets UNAUTHENTICATED, and
  concurrent and abandoned streams leave the daemon serving;
- the metrics count the streams.
The seed is printed; CUZK_SEED replays it."""
import os
import socket
import subprocess
import sys
import threading
import time

CUZK, PROTO_DIR = sys.argv[1], sys.argv[2]
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from grpc_harness import Harness  # noqa: E402

import grpc  # noqa: E402
from google.protobuf import descriptor_pb2, descriptor_pool, message_factory  # noqa: E402
from grpc_tools import protoc  # noqa: E402

H = Harness("daemon_reflection", PROTO_DIR)
rng, tmp, failures = H.rng, H.tmp, H.failures


def check(cond, what):
    H.check(cond, what, verbose=True)


FD = descriptor_pb2.FieldDescriptorProto

# ---- the reflection schema, from the protocol's published field numbers ------
# (message, [(field, number, type, label, message type)]); the fields of
# ONEOF are members of a oneof (so an empty string is still sent).
STR, I32, BYTES, MSG = FD.TYPE_STRING, FD.TYPE_INT32, FD.TYPE_BYTES, FD.TYPE_MESSAGE
OPT, REP = FD.LABEL_OPTIONAL, FD.LABEL_REPEATED
SCHEMA = {
    "ServerReflectionRequest": [("host", 1, STR, OPT, None), ("file_by_filename", 3, STR, OPT, None),
                                ("file_containing_symbol", 4, STR, OPT, None),
                                ("file_containing_extension", 5, MSG, OPT, "ExtensionRequest"),
                                ("all_extension_numbers_of_type", 6, STR, OPT, None),
                                ("list_services", 7, STR, OPT, None)],
    "ExtensionRequest": [("containing_type", 1, STR, OPT, None), ("extension_number", 2, I32, OPT, None)],
    "ServerReflectionResponse": [("valid_host", 1, STR, OPT, None),
                                 ("original_request", 2, MSG, OPT, "ServerReflectionRequest"),
                                 ("file_descriptor_response", 4, MSG, OPT, "FileDescriptorResponse"),
                                 ("all_extension_numbers_response", 5, MSG, OPT, "ExtensionNumberResponse"),
                                 ("list_services_response", 6, MSG, OPT, "ListServiceResponse"),
                                 ("error_response", 7, MSG, OPT, "ErrorResponse")],
    "FileDescriptorResponse": [("file_descriptor_proto", 1, BYTES, REP, None)],
    "ExtensionNumberResponse": [("base_type_name", 1, STR, OPT, None), ("extension_number", 2, I32, REP, None)],
    "ListServiceResponse": [("service", 1, MSG, REP, "ServiceResponse")],
    "ServiceResponse": [("name", 1, STR, OPT, None)],
    "ErrorResponse": [("error_code", 1, I32, OPT, None), ("error_message", 2, STR, OPT, None)],
}

ONEOF = {"ServerReflectionRequest": {3, 4, 5, 6, 7}, "ServerReflectionResponse": {4, 5, 6, 7}}


def schema_file():
    f = descriptor_pb2.FileDescriptorProto(name="test/reflection.proto", package="t", syntax="proto3")
    for mname, fields in SCHEMA.items():
        m = f.message_type.add(name=mname)
        if mname in ONEOF:
            m.oneof_decl.add(name="message")
        for name, num, typ, label, tname in fields:
            fd = m.field.add(name=name, number=num, type=typ, label=label)
            if tname:
                fd.type_name = ".t." + tname
            if num in ONEOF.get(mname, ()):
                fd.oneof_index = 0
    return f


pool = descriptor_pool.DescriptorPool()
pool.Add(schema_file())
factory = message_factory.MessageFactory(pool)
Req = factory.GetPrototype(pool.FindMessageTypeByName("t.ServerReflectionRequest"))
Resp = factory.GetPrototype(pool.FindMessageTypeByName("t.ServerReflectionResponse"))
NOT_FOUND = grpc.StatusCode.NOT_FOUND.value[0]

# ---- the oracle: proving.proto compiled by grpc_tools' protoc ----------------
oracle_set = os.path.join(tmp, "proving.pb")
rc = protoc.main(["protoc", f"-I{PROTO_DIR}", f"--descriptor_set_out={oracle_set}",
                  os.path.join(PROTO_DIR, "cuzk/v1/proving.proto")])
assert rc == 0, "grpc_tools.protoc --descriptor_set_out failed"
fds = descriptor_pb2.FileDescriptorSet()
fds.ParseFromString(open(oracle_set, "rb").read())
ORACLE = fds.file[0]


def symbols_of(f):
    """Every name the file declares, fully qualified (enum values in the
    enum's enclosing scope, as protobuf scopes them)."""
    out = []

    def enum(scope, e):
        out.append(f"{scope}.{e.name}")
        out.extend(f"{scope}.{v.name}" for v in e.value)

    def message(scope, m):
        full = f"{scope}.{m.name}"
        out.append(full)
        out.extend(f"{full}.{fl.name}" for fl in m.field)
        for n in m.nested_type:
            message(full, n)
        for e in m.enum_type:
            enum(full, e)

    for m in f.message_type:
        message(f.package, m)
    for e in f.enum_type:
        enum(f.package, e)
    for s in f.service:
        out.append(f"{f.package}.{s.name}")
        out.extend(f"{f.package}.{s.name}.{m.name}" for m in s.method)
    return out


SYMBOLS = symbols_of(ORACLE)
check(len(SYMBOLS) > 50 and "cuzk.v1.ProvingEngine.GetStatus" in SYMBOLS,
      f"the oracle declares {len(SYMBOLS)} symbols")

# ---- the daemon ---------------------------------------------------------------
sock = socket.socket()
sock.bind(("127.0.0.1", 0))
port = sock.getsockname()[1]
sock.close()
token = "%032x" % rng.getrandbits(128)
conf, log = os.path.join(tmp, "cuzk.toml"), os.path.join(tmp, "daemon.log")
with open(conf, "w") as f:
    f.write(f'[daemon]\nlisten = "127.0.0.1:{port}"\nauth_token = "{token}"\n'
            f'[srs]\nparam_cache = "{tmp}/params"\n')


class Daemon:
    name = "daemon"
    p = None

    def logtext(self):
        return open(log).read() if os.path.exists(log) else ""


daemon = Daemon()
H.kill_daemons_on_error([daemon])
daemon.p = subprocess.Popen([CUZK, "daemon", "--config", conf, "--test-kinds", "--test-constraints", "256",
                             "--test-post-constraints", "128"], stdout=subprocess.DEVNULL, stderr=open(log, "w"))
deadline = time.time() + 120
while "serving on" not in daemon.logtext():
    if daemon.p.poll() is not None or time.time() > deadline:
        raise RuntimeError("daemon did not start:\n" + daemon.logtext())
    time.sleep(0.05)

channel = grpc.insecure_channel(f"127.0.0.1:{port}")
MD = [("authorization", "Bearer " + token)]
PATHS = ["/grpc.reflection.v1alpha.ServerReflection/ServerReflectionInfo",
         "/grpc.reflection.v1.ServerReflection/ServerReflectionInfo"]


def stream(path, requests, md=MD):
    call = channel.stream_stream(path, request_serializer=Req.SerializeToString, response_deserializer=Resp.FromString)
    return list(call(iter(requests), metadata=md, timeout=60))


def served_file(resp):
    out = []
    for b in resp.file_descriptor_response.file_descriptor_proto:
        f = descriptor_pb2.FileDescriptorProto()
        f.ParseFromString(b)
        out.append(f)
    return out


streams_ok = 0
for path in PATHS:
    v = path.split(".")[2]
    # list_services
    (r,) = stream(path, [Req(host="h", list_services="")])
    streams_ok += 1
    names = sorted(s.name for s in r.list_services_response.service)
    check(names == ["cuzk.v1.ProvingEngine", "grpc.reflection.v1.ServerReflection",
                    "grpc.reflection.v1alpha.ServerReflection"], f"{v}: list_services: {names}")
    check(r.valid_host == "h" and r.original_request.HasField("list_services"), f"{v}: the answer echoes its request")

    # the service's file, equal to the oracle's
    (r,) = stream(path, [Req(file_containing_symbol="cuzk.v1.ProvingEngine")])
    streams_ok += 1
    files = served_file(r)
    check(len(files) == 1 and files[0] == ORACLE,
          f"{v}: the FileDescriptorProto for cuzk.v1.ProvingEngine equals grpc_tools' protoc's "
          f"({len(files)} files, {[f.name for f in files]})")

    # one stream of random known and unknown symbols and files, in a random order
    queries = []
    for s in rng.sample(SYMBOLS, 24):
        queries.append(("sym", s, True))
    for _ in range(8):
        junk = "".join(rng.choice("abcdefghijklmnopqrstuvwxyz.") for _ in range(rng.randint(1, 40)))
        name = "cuzk.v1." + junk if rng.random() < 0.5 else junk
        queries.append(("sym", name, name in SYMBOLS))
    queries.append(("sym", "cuzk.v1.ProvingEngine.NoSuchMethod", False))
    queries.append(("file", "cuzk/v1/proving.proto", True))
    queries.append(("file", "cuzk/v1/proving.protox", False))
    queries.append(("file", f"grpc/reflection/{v}/reflection.proto", True))
    queries.append(("ext", "cuzk.v1.ProveRequest", True))
    queries.append(("ext", "cuzk.v1.NoSuchMessage", False))
    rng.shuffle(queries)
    reqs = []
    for kind, name, _ in queries:
        if kind == "sym":
            reqs.append(Req(file_containing_symbol=name))
        elif kind == "file":
            reqs.append(Req(file_by_filename=name))
        else:
            reqs.append(Req(all_extension_numbers_of_type=name))
    answers = stream(path, reqs)
    streams_ok += 1
    check(len(answers) == len(reqs), f"{v}: {len(answers)} answers to {len(reqs)} requests on one stream")
    bad = []
    for (kind, name, known), q, a in zip(queries, reqs, answers):
        if a.original_request != q:
            bad.append(f"{name}: answer to another request")
        elif not known:
            if not (a.HasField("error_response") and a.error_response.error_code == NOT_FOUND):
                bad.append(f"{name}: want NOT_FOUND, got {a}")
        elif kind == "ext":
            e = a.all_extension_numbers_response
            if not (a.HasField("all_extension_numbers_response") and e.base_type_name == name and
                    not e.extension_number):
                bad.append(f"{name}: {a}")
        else:
            files = served_file(a)
            want = "cuzk/v1/proving.proto" if kind == "sym" else name
            if [f.name for f in files] != [want]:
                bad.append(f"{name}: served {[f.name for f in files]}")
    check(not bad, f"{v}: {len(queries)} random queries answered (" + "; ".join(bad[:3]) + ")")

    # the reflection schema as served has the field numbers typed here
    (r,) = stream(path, [Req(file_containing_symbol=f"grpc.reflection.{v}.ServerReflection")])
    streams_ok += 1
    (rf,) = served_file(r)
    got = {m.name: sorted((f.name, f.number, f.type, f.label) for f in m.field) for m in rf.message_type}
    want = {m: sorted((n, num, t, lab) for n, num, t, lab, _ in fs) for m, fs in SCHEMA.items()}
    check(got == want and rf.package == f"grpc.reflection.{v}", f"{v}: the served reflection.proto has the protocol's fields")
    (svc,) = rf.service
    check([(m.name, m.client_streaming, m.server_streaming) for m in svc.method] ==
          [("ServerReflectionInfo", True, True)], f"{v}: ServerReflectionInfo is a bidirectional stream")

# ---- GetStatus through the served descriptor alone ---------------------------
(r,) = stream(PATHS[0], [Req(file_containing_symbol="cuzk.v1.ProvingEngine.GetStatus")])
streams_ok += 1
dyn = descriptor_pool.DescriptorPool()
for f in served_file(r):
    dyn.Add(f)
method = dyn.FindMethodByName("cuzk.v1.ProvingEngine.GetStatus")
dfac = message_factory.MessageFactory(dyn)
In, Out = dfac.GetPrototype(method.input_type), dfac.GetPrototype(method.output_type)
status = channel.unary_unary(f"/{method.containing_service.full_name}/{method.name}",
                             request_serializer=In.SerializeToString,
                             response_deserializer=Out.FromString)(In(), metadata=MD, timeout=30)
kinds = sorted(q.proof_kind for q in status.queues)
check("test-porep" in kinds and not status.draining, f"GetStatus through reflected classes: queues {kinds}")

# ---- refusals and rough clients --------------------------------------------------
try:
    stream(PATHS[1], [Req(list_services="")], md=None)
    check(False, "a stream without the token is refused")
except grpc.RpcError as e:
    check(e.code() == grpc.StatusCode.UNAUTHENTICATED, f"a stream without the token: {e.code()}")

raw = channel.stream_stream(PATHS[0])
try:
    list(raw(iter([Req(list_services="").SerializeToString(), bytes([0xff] * rng.randint(1, 9))]),
             metadata=MD, timeout=30))
    check(False, "an undecodable request ends the stream with an error")
except grpc.RpcError as e:
    check(e.code() == grpc.StatusCode.INVALID_ARGUMENT and "request 2" in e.details(),
          f"an undecodable second request: {e.code()} {e.details()}")

# concurrent streams, some abandoned half way (the client cancels)
results = []


def worker(i, cancel):
    call = channel.stream_stream(PATHS[i % 2], request_serializer=Req.SerializeToString,
                                 response_deserializer=Resp.FromString)
    n = 1 + i % 5
    it = call(iter([Req(list_services="")] * n + ([] if not cancel else [Req(list_services="")] * 1000)),
              metadata=MD, timeout=60)
    got = 0
    for a in it:
        got += 1
        if cancel and got == n:
            it.cancel()
            break
    results.append((cancel, got == n))


threads = [threading.Thread(target=worker, args=(i, rng.random() < 0.3)) for i in range(12)]
for t in threads:
    t.start()
for t in threads:
    t.join()
check(len(results) == 12 and all(ok for _, ok in results), f"12 concurrent streams: {results}")
streams_ok += sum(1 for c, _ in results if not c)
(r,) = stream(PATHS[0], [Req(list_services="")])
streams_ok += 1
check(len(r.list_services_response.service) == 3, "the daemon serves after abandoned streams")

metrics = channel.unary_unary("/cuzk.v1.ProvingEngine/GetMetrics")(b"", metadata=MD, timeout=30).decode("latin1")
line = [l for l in metrics.splitlines() if 'method="ServerReflectionInfo",code="OK"' in l]
# a stream the client cancels may read as one it closed (the core reports both
# as the end of its messages): those count either way
abandoned = sum(1 for c, _ in results if c)
n = int(line[0].split()[-1]) if line else -1
check(streams_ok <= n <= streams_ok + abandoned,
      f"metrics count {n} reflection streams OK ({streams_ok} closed, {abandoned} abandoned)")

daemon.p.send_signal(15)
check(daemon.p.wait(timeout=60) == 0, "the daemon exits cleanly")
H.finish()
