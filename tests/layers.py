#!/usr/bin/python3
"""The layer rule, checked on every #include in src/ and include/.

The one layer table is src/layers (lowest first; CMakeLists.txt builds libcuzk
from it). A file of layer L may include only headers of L and of the layers
before it; a src/<M>/*_internal.h (or .cuh) header is M's alone. Every public
header belongs to one layer and every folder of src/ is a layer. README's
layout table and docs/architecture.md name the layers in the table's order.
No file of src/ reads the environment (getenv) outside src/util and the
command line's documented variables: a daemon's behaviour comes from its
config, a test's switches from the hooks its program sets.

Usage: layers.py [SOURCE_DIR]   (default: the parent of this file's folder)
Exit 0 when the tree keeps the rule, 1 with one line per broken edge.
"""
import os
import re
import sys

EXTENSIONS = (".c", ".h", ".cu", ".cuh", ".cpp")
INCLUDE = re.compile(r'^\s*#\s*include\s*"([^"]+)"', re.M)
# Headers made at build time (protoc-c): not in the tree, above no one.
GENERATED = re.compile(r"\.pb-c\.h$")

# The engine's core knows jobs, partitions, priorities, workers and memory,
# not Filecoin, the circuits, pre-compiled circuits, the GPU or circom,
# although those layers are below it: they belong in src/kinds, above it.
ENGINE_CORE_MAY_NOT = ("poly", "msm", "gadgets", "circuits", "filecoin", "pce", "gpu", "circom")

# Test inputs (native sealing, sector directories, the vanilla-proof and C1 writers) are the
# command line's and the tests': nothing on the daemon's path includes them, wherever the
# table puts their layer.
TEST_INPUTS = "filecoin_gen"
DAEMON_PATH = ("engine", "kinds", "cluster", "server")


def read_table(root):
    """src/layers -> (layers lowest first, {public header: layer})."""
    layers, owner = [], {}
    with open(os.path.join(root, "src", "layers")) as f:
        for n, line in enumerate(f, 1):
            words = line.split("#", 1)[0].split()
            if not words:
                continue
            if len(words) < 2 or words[0] in layers:
                sys.exit(f"src/layers:{n}: want 'layer part [headers...]', each layer once")
            layers.append(words[0])
            for h in words[2:]:
                if h in owner:
                    sys.exit(f"src/layers:{n}: {h} already belongs to {owner[h]}")
                owner[f"include/cuzk/{words[0]}/{h}"] = words[0]
    return layers, owner


def layer_of(path, owner):
    """The layer a tree path belongs to, or None (generated, unknown)."""
    if path.startswith("include/cuzk/"):
        return owner.get(path)
    parts = path.split("/")
    if parts[0] == "src" and len(parts) > 2:
        return parts[1]
    return None


def resolve(root, path, name):
    """A quoted include as the compiler finds it: the including file's folder,
    then src/ and include/ (the -I directories); None if not in the tree."""
    for base in (os.path.dirname(path), "src", "include"):
        cand = os.path.normpath(os.path.join(base, name))
        if os.path.isfile(os.path.join(root, cand)):
            return cand
    return None


def scan(root):
    """{file: [(line, included name)]} for every source file in src/ and include/."""
    edges = {}
    for top in ("src", "include"):
        for d, _, files in os.walk(os.path.join(root, top)):
            for fn in files:
                if not fn.endswith(EXTENSIONS):
                    continue
                full = os.path.join(d, fn)
                rel = os.path.relpath(full, root)
                with open(full, errors="replace") as f:
                    text = f.read()
                edges[rel] = [(text.count("\n", 0, m.start()) + 1, m.group(1)) for m in INCLUDE.finditer(text)]
    return edges


def check_edges(root, layers, owner, edges):
    errors = []
    rank = {name: i for i, name in enumerate(layers)}
    for path in sorted(edges):
        me = layer_of(path, owner)
        if me is None:
            where = "a public header no layer owns (add it to src/layers)" if path.startswith("include/") \
                else "a folder of src/ that is no layer (add it to src/layers)"
            errors.append(f"{path}: {where}")
            continue
        for line, name in edges[path]:
            target = resolve(root, path, name)
            if target is None:
                if not GENERATED.search(name):
                    errors.append(f"{path}:{line}: includes \"{name}\", which is not in the tree")
                continue
            them = layer_of(target, owner)
            if them is None:
                errors.append(f"{path}:{line}: includes {target}, which no layer owns")
            elif me in DAEMON_PATH and them == TEST_INPUTS:
                errors.append(f"{path}:{line}: the daemon's path ({me}) includes {target} of {them}, "
                              "the test inputs")
            elif rank[them] > rank[me]:
                errors.append(f"{path}:{line}: upward: {me} includes {target} of {them}, a layer above it")
            elif them != me and re.search(r"_internal\.(h|cuh)$", target):
                errors.append(f"{path}:{line}: {me} includes {target}, internal to {them}")
            elif me == "engine" and them in ENGINE_CORE_MAY_NOT:
                errors.append(f"{path}:{line}: the engine core includes {target} of {them} "
                              "(it belongs in src/kinds, above the core)")
    return errors


def check_docs(root, layers):
    """README's layout table and docs/architecture.md's layer list, in order."""
    errors = []
    for doc, start in (("README.md", "## Layout"), ("docs/architecture.md", "## The layers")):
        with open(os.path.join(root, doc)) as f:
            text = f.read()
        at = text.find(start)
        if at < 0:
            errors.append(f"{doc}: no '{start}' section")
            continue
        end = text.find("\n## ", at + len(start))
        section = text[at:end if end > 0 else len(text)]
        named = []
        for row in re.findall(r"^\|([^|]*)\|", section, re.M):  # a table's first column
            for name in re.findall(r"`src/([a-z0-9_]+)`", row):
                if name not in named:
                    named.append(name)
        if named != layers:
            errors.append(f"{doc} ({start}) names the layers {' '.join(named)}; src/layers has {' '.join(layers)}")
    return errors


def check_folders(root, layers):
    have = sorted(d for d in os.listdir(os.path.join(root, "src")) if os.path.isdir(os.path.join(root, "src", d)))
    return [f"src/{d}: a folder that is no layer (add it to src/layers)" for d in have if d not in layers] + \
           [f"src/layers: {d} has no folder src/{d}" for d in layers if d not in have]


# The environment a process of cuzk reads: src/util any (CUZK_SEED), the command
# line its documented variables, and two the daemon shares with the tools around
# it, each the default of a [section] key that names it (docs/configuration.md).
GETENV = re.compile(r"\b(?:secure_)?getenv\s*\(\s*([^)]*?)\s*\)")
ENV_ALLOWED = {
    ("cli", '"CUZK_THREADS"'): "the command line's threads (README)",
    ("cli", '"CUZK_TOKEN"'): "cuzk bench's bearer token (README)",
    ("server", '"STATE_DIRECTORY"'): "systemd's StateDirectory=, [daemon] state_dir's default",
    ("filecoin", "CUZK_FIL_PARAM_CACHE_ENV"): "rust-fil-proofs' parameter cache, [srs] param_cache's default",
}


def strip_comments(text):
    """C and C++ comments blanked (newlines kept, so lines still count)."""
    return re.sub(r"/\*.*?\*/|//[^\n]*", lambda m: re.sub(r"[^\n]", " ", m.group(0)), text, flags=re.S)


def scan_env(root):
    """{file: [(line, getenv's argument)]} for the files of src/ that call getenv."""
    calls = {}
    for d, _, files in os.walk(os.path.join(root, "src")):
        for fn in files:
            if not fn.endswith(EXTENSIONS):
                continue
            full = os.path.join(d, fn)
            with open(full, errors="replace") as f:
                text = strip_comments(f.read())
            found = [(text.count("\n", 0, m.start()) + 1, m.group(1)) for m in GETENV.finditer(text)]
            if found:
                calls[os.path.relpath(full, root)] = found
    return calls


def check_env(calls):
    errors = []
    for path in sorted(calls):
        layer = path.split("/")[1]
        for line, arg in calls[path]:
            if layer != "util" and (layer, arg) not in ENV_ALLOWED:
                errors.append(f"{path}:{line}: getenv({arg}): a knob outside the config (docs/configuration.md's "
                              "table, passed down as a struct) or a test hook set through the API")
    return errors


def self_test(root, layers, owner, edges):
    """The checker must see an upward edge, an internal header across layers, an
    engine-core edge and a daemon edge to the test inputs when one is added: each
    injected alone into the real tree."""
    lowest, top = layers[0], layers[-1]
    public_top = next(h for h, l in owner.items() if l == "engine")
    internal = next(p for p in sorted(edges) if re.search(r"^src/[a-z0-9_]+/[a-z0-9_]+_internal\.h$", p))
    cases = (
        (f"src/{lowest}/injected.c", os.path.relpath(public_top, "include"), "upward"),
        (f"src/{top}/injected.c", os.path.relpath(internal, "src"), "internal to"),
        ("src/engine/injected.c", "cuzk/gpu/gpu.h", "engine core"),
        ("src/server/injected.c", os.path.relpath(next(h for h, l in owner.items() if l == TEST_INPUTS), "include"),
         "test inputs"),
        ("include/cuzk/injected.h", "cuzk/ff/fr.h", "no layer owns"),
    )
    failed = []
    for path, arg in (("src/gpu/injected.cu", '"CUZK_GPU_X"'), ("src/cli/injected.c", '"CUZK_OTHER"'),
                      ("src/server/injected.c", "name")):
        text = f'static int f(void) {{ /* getenv("IN_A_COMMENT") */ return getenv({arg}) != 0; }}'
        found = [(1, m.group(1)) for m in GETENV.finditer(strip_comments(text))]
        if len(check_env({path: found})) != 1:
            failed.append(f"self-test: getenv({arg}) in {path} was not reported exactly once")
    if check_env({"src/util/injected.c": [(1, '"CUZK_SEED"')], "src/cli/injected.c": [(1, '"CUZK_TOKEN"')]}):
        failed.append("self-test: src/util's getenv or the command line's CUZK_TOKEN was reported")
    for path, name, want in cases:
        trial = dict(edges)
        trial[path] = [(1, name)]
        errs = check_edges(root, layers, dict(owner), trial)
        if not any(path in e and want in e for e in errs):
            failed.append(f"self-test: {path} including \"{name}\" was not reported as '{want}'")
    return failed


def main():
    root = os.path.abspath(sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(__file__), ".."))
    layers, owner = read_table(root)
    for d, _, files in os.walk(os.path.join(root, "include", "cuzk")):
        for h in sorted(files):
            rel = os.path.relpath(os.path.join(d, h), root)
            if h.endswith(".h") and rel not in owner:
                owner.setdefault(rel, None)
    edges = scan(root)
    errors = self_test(root, layers, {k: v for k, v in owner.items() if v}, edges)
    errors += check_folders(root, layers)
    errors += check_edges(root, layers, owner, edges)
    errors += check_docs(root, layers)
    env = scan_env(root)
    errors += check_env(env)
    n = sum(len(v) for v in edges.values())
    for e in errors:
        print("FAIL:", e)
    print(f"{len(edges)} files, {n} quoted includes, {sum(len(v) for v in env.values())} getenv calls, "
          f"layers: {' < '.join(layers)}: "
          f"{'%d problems' % len(errors) if errors else 'ok'}")
    return 1 if errors else 0


if __name__ == "__main__":
    sys.exit(main())
