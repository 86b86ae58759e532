#!/usr/bin/python3
"""The layer rule, checked on every #include in src/ and include/.

The one layer table is src/layers (lowest first; CMakeLists.txt builds libcuzk
from it). A file of layer L may include only headers of L and of the layers
before it; a src/<M>/*_internal.h (or .cuh) header is M's alone. A public
header's folder is its layer: include/cuzk/<layer>/<name>.h, none flat in
include/cuzk/, and an include of it is spelled "cuzk/<layer>/<name>.h", so
every include line says the layer it reaches into. Every folder of src/ is a
layer. README's layout table and docs/architecture.md name the layers in the
table's order; docs/architecture.md's header table lists each layer's folder.
No file of src/ reads the environment (getenv) outside src/util and the
command line's documented variables: a daemon's behaviour comes from its
config (the command line passes the variables that are keys' defaults to
the config loader), a test's switches from the hooks its program sets.

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
    """src/layers -> the layers, lowest first."""
    layers = []
    with open(os.path.join(root, "src", "layers")) as f:
        for n, line in enumerate(f, 1):
            words = line.split("#", 1)[0].split()
            if not words:
                continue
            if len(words) != 2 or words[0] in layers:
                sys.exit(f"src/layers:{n}: want 'layer part', each layer once")
            layers.append(words[0])
    return layers


def layer_of(path, layers):
    """The layer a tree path belongs to, or None: a public header's is its
    folder (include/cuzk/<layer>/<name>.h), a source file's its src/ folder."""
    parts = path.split("/")
    if parts[:2] == ["include", "cuzk"]:
        return parts[2] if len(parts) == 4 and parts[2] in layers else None
    if parts[0] == "src" and len(parts) > 2:
        return parts[1]
    return None


def public_misplaced(path, layers):
    """Why a file under include/ sits outside include/cuzk/<layer>/, or None."""
    parts = path.split("/")
    if parts[:2] != ["include", "cuzk"]:
        return "outside include/cuzk/ (move it to include/cuzk/<layer>/)"
    if len(parts) == 3:
        return "a flat public header (move it to include/cuzk/<layer>/, the layer of src/ that implements it)"
    if parts[2] not in layers:
        return f"in include/cuzk/{parts[2]}/, which is no layer of src/layers"
    return "nested below its layer's folder (include/cuzk/<layer>/<name>.h)" if len(parts) > 4 else None


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


def check_edges(root, layers, edges):
    errors = []
    rank = {name: i for i, name in enumerate(layers)}
    for path in sorted(edges):
        me = layer_of(path, layers)
        if me is None:
            where = public_misplaced(path, layers) if path.startswith("include/") \
                else "a folder of src/ that is no layer (add it to src/layers)"
            errors.append(f"{path}: {where}")
            continue
        for line, name in edges[path]:
            target = resolve(root, path, name)
            if target is None:
                if not GENERATED.search(name):
                    errors.append(f"{path}:{line}: includes \"{name}\", which is not in the tree")
                continue
            them = layer_of(target, layers)
            if them is None:
                errors.append(f"{path}:{line}: includes {target}, which no layer owns")
            elif target.startswith("include/") and name != os.path.relpath(target, "include"):
                errors.append(f"{path}:{line}: includes \"{name}\"; spell it \"{os.path.relpath(target, 'include')}\" "
                              "(the layer in the include line)")
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


def check_header_table(root, layers, edges):
    """docs/architecture.md's "Public headers" table: one row a layer with
    headers, lowest first, `include/cuzk/<layer>/` then the folder's headers."""
    tree = {}
    for p in sorted(edges):
        if p.startswith("include/") and layer_of(p, layers):
            tree.setdefault(p.split("/")[2], []).append(os.path.basename(p))
    want = [(l, sorted(tree[l])) for l in layers if l in tree]
    with open(os.path.join(root, "docs", "architecture.md")) as f:
        text = f.read()
    rows = re.findall(r"^\| `include/cuzk/([a-z0-9_]+)/` \|([^|]*)\|", text, re.M)
    have = [(l, sorted(re.findall(r"[a-z0-9_]+\.h", names))) for l, names in rows]
    if have == want:
        return []
    diff = [f"{l}: {' '.join(h)}" for l, h in want if (l, h) not in have]
    return ["docs/architecture.md (Public headers) does not list include/cuzk/<layer>/ as the tree has it, "
            "lowest layer first; the tree's rows that differ: " + "; ".join(diff or ["(order, or extra rows)"])]


def check_folders(root, layers):
    have = sorted(d for d in os.listdir(os.path.join(root, "src")) if os.path.isdir(os.path.join(root, "src", d)))
    return [f"src/{d}: a folder that is no layer (add it to src/layers)" for d in have if d not in layers] + \
           [f"src/layers: {d} has no folder src/{d}" for d in layers if d not in have]


# The environment a process of cuzk reads: src/util any (CUZK_SEED), the command
# line its documented variables, two of them shared by the daemon with the tools
# around it, each the default of a [section] key that names it
# (docs/configuration.md), which the command line passes to the config loader.
# No other layer reads any: the daemon's behaviour comes from its config.
GETENV = re.compile(r"\b(?:secure_)?getenv\s*\(\s*([^)]*?)\s*\)")
ENV_ALLOWED = {
    ("cli", '"CUZK_THREADS"'): "the command line's threads (README)",
    ("cli", '"CUZK_TOKEN"'): "cuzk bench's bearer token (README)",
    ("cli", '"STATE_DIRECTORY"'): "systemd's StateDirectory=, [daemon] state_dir's default",
    ("cli", "CUZK_FIL_PARAM_CACHE_ENV"): "rust-fil-proofs' parameter cache, --param-cache's and [srs] "
                                         "param_cache's default",
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


def public_header(edges, layer):
    """One public header of the layer, as an include names it (a name not in
    the tree when the layer's folder is empty: its self-test case then fails)."""
    return next((os.path.relpath(p, "include") for p in sorted(edges) if p.startswith(f"include/cuzk/{layer}/")),
                f"cuzk/{layer}/(no public header in the tree).h")


def self_test(root, layers, edges):
    """The checker must see an upward edge (from a source file and from a public
    header), an internal header across layers, an engine-core edge, a daemon edge
    to the test inputs, a flat public header, one in no layer's folder and a
    public header spelled without its layer when one is added: each injected
    alone into the real tree."""
    lowest, top = layers[0], layers[-1]
    internal = next(p for p in sorted(edges) if re.search(r"^src/[a-z0-9_]+/[a-z0-9_]+_internal\.h$", p))
    fr = public_header(edges, "ff")
    cases = (
        (f"src/{lowest}/injected.c", public_header(edges, "engine"), "upward"),
        ("include/cuzk/ff/injected.h", public_header(edges, "ec"), "upward"),
        (f"src/{top}/injected.c", os.path.relpath(internal, "src"), "internal to"),
        ("src/engine/injected.c", public_header(edges, "gpu"), "engine core"),
        ("src/server/injected.c", public_header(edges, TEST_INPUTS), "test inputs"),
        ("include/cuzk/injected.h", fr, "flat public header"),
        ("include/cuzk/nolayer/injected.h", fr, "no layer of src/layers"),
        ("src/ec/injected.c", "../../include/" + fr, "the layer in the include line"),
    )
    failed = []
    for path, arg in (("src/gpu/injected.cu", '"CUZK_GPU_X"'), ("src/cli/injected.c", '"CUZK_OTHER"'),
                      ("src/server/injected.c", "name"), ("src/server/injected.c", '"STATE_DIRECTORY"'),
                      ("src/filecoin/injected.c", "CUZK_FIL_PARAM_CACHE_ENV")):
        text = f'static int f(void) {{ /* getenv("IN_A_COMMENT") */ return getenv({arg}) != 0; }}'
        found = [(1, m.group(1)) for m in GETENV.finditer(strip_comments(text))]
        if len(check_env({path: found})) != 1:
            failed.append(f"self-test: getenv({arg}) in {path} was not reported exactly once")
    if check_env({"src/util/injected.c": [(1, '"CUZK_SEED"')], "src/cli/injected.c": [(1, '"CUZK_TOKEN"')],
                  "src/cli/injected2.c": [(1, '"STATE_DIRECTORY"'), (2, "CUZK_FIL_PARAM_CACHE_ENV")]}):
        failed.append("self-test: src/util's getenv or the command line's documented variables were reported")
    for path, name, want in cases:
        trial = dict(edges)
        trial[path] = [(1, name)]
        errs = check_edges(root, layers, trial)
        if not any(path in e and want in e for e in errs):
            failed.append(f"self-test: {path} including \"{name}\" was not reported as '{want}'")
    return failed


def main():
    root = os.path.abspath(sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(__file__), ".."))
    layers = read_table(root)
    edges = scan(root)
    errors = self_test(root, layers, edges)
    errors += check_folders(root, layers)
    errors += check_edges(root, layers, edges)
    errors += check_docs(root, layers)
    errors += check_header_table(root, layers, edges)
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
