#!/usr/bin/python3
"""Functions that fit a screen, checked in src/engine, src/gpu and src/server.

Every function definition in the C, C++ and CUDA files of those folders
(*.c, *.h, *.cu, *.cuh, *.cpp) is at most LIMIT lines long, counted from the
first line of its definition (a template line, the return type) to its
closing brace, unless the comment block right above the definition says why
with `long:` followed by the reason, as in

    /* The upload of a parameter set ...
     * long: one lock held over the lookup, the stale-copy check and the
     * upload; split, each piece would re-take it. */

A definition is a top-level `name(...)` followed by a body `{ ... }`, with
its head over any number of lines; `extern "C"` and `namespace` blocks are
looked into, templates, `static inline`, attributes and CUDA's qualifiers are
part of the head. Struct, union, enum and class bodies (their inline methods
too), initialisers (`... = { ... };`) and macros (#define, over however many
continued lines) are not functions. Comments, strings and preprocessor lines
are blanked before the braces are counted; a file whose braces do not pair
fails the check rather than being skipped.

Usage: function_length.py [ROOT]   (default: the parent of this file's folder)
The check first proves itself on made-up sources (a 90-line function reported,
the same with `long:` not, an initialiser, a macro, a struct and an
extern "C" block not counted as long functions), then reads ROOT/src/engine,
ROOT/src/gpu and ROOT/src/server (a folder that is missing is an error),
prints the five longest functions and exits 1 with `file:line name N lines`
for each over the limit without a reason, else 0. WAIVED (below) lists the
long functions of files under a rewrite not yet merged, each until it lands;
an entry no longer needed fails the check.
"""
import bisect
import os
import re
import sys

LIMIT = 80
FOLDERS = ("src/engine", "src/gpu", "src/server")
EXTENSIONS = (".c", ".h", ".cu", ".cuh", ".cpp")
REASON = re.compile(r"\blong:\s*\w+\W+\w+")  # `long:` and at least two words of reason
# Names before a parenthesis in a head that are not the function's.
NOT_NAMES = {"__attribute__", "__launch_bounds__", "__declspec", "alignas", "__align__", "decltype",
             "noexcept", "sizeof", "_Alignas"}
TRAILING_WORD = re.compile(r"(?:\b(?:const|volatile|noexcept|override|final)|&)$")
SCOPE = re.compile(r'\s*(?:extern\s*"[^"]*"|(?:inline\s+)?namespace(?:\s+[A-Za-z_][\w:]*)?)\s*')


# What blank() wipes: a preprocessor line with its continuations (and a comment
# in it that spans lines), a comment, a string or character literal.
WIPED = re.compile(r"""
    ^[ \t]*\#(?:\\\n|/\*.*?\*/|[^\n])*
  | //[^\n]*
  | /\*.*?(?:\*/|\Z)
  | "(?:\\.|[^"\\\n])*"?
  | '(?:\\.|[^'\\\n])*'?
""", re.M | re.S | re.X)


def spaces(s):
    """s with every character but a newline a space."""
    return "\n".join(" " * len(part) for part in s.split("\n"))


def wipe(m):
    t = m.group(0)
    if t[0] in "\"'":  # a literal keeps its quotes: `extern "C"` stays recognisable
        return t[0] + spaces(t[1:-1]) + t[-1] if len(t) > 1 else t
    return spaces(t)


def blank(text):
    """Comments, string and character literals (their contents) and
    preprocessor lines replaced by spaces, each newline kept, so that offsets
    and line numbers are the source's."""
    return WIPED.sub(wipe, text)


def strip_template(head):
    """The head less a leading `template <...>` (its default arguments may
    hold a `=`)."""
    m = re.match(r"\s*template\s*<", head)
    if not m:
        return head
    depth, i = 1, m.end()
    while i < len(head) and depth:
        depth += {"<": 1, ">": -1}.get(head[i], 0)
        i += 1
    return strip_template(head[i:])


def open_of(h, close):
    """Where the parenthesis closed at h[close] opens, or -1."""
    depth = 0
    for i in range(close, -1, -1):
        depth += {")": 1, "(": -1}.get(h[i], 0)
        if depth == 0:
            return i
    return -1


def strip_tail(h):
    """The head less what may follow a parameter list: const, noexcept, & and
    the like, __attribute__((...))."""
    while True:
        h = h.rstrip()
        m = TRAILING_WORD.search(h, max(0, len(h) - 10))
        if m:
            h = h[:m.start()]
            continue
        if h.endswith(")"):
            at = open_of(h, len(h) - 1)
            if at > 0 and h[:at].rstrip().endswith("__attribute__"):
                h = h[:at].rstrip()[:-len("__attribute__")]
                continue
        return h


def function_name(head):
    """The name a function's head defines, or None when the head is no
    function's (an initialiser, a struct, a namespace)."""
    h = strip_tail(strip_template(head))
    if not h.endswith(")"):
        return None
    depth, groups, start = 0, [], None  # top-level parenthesised groups: (open, close)
    for i, ch in enumerate(h):
        if ch in "([":
            if depth == 0:
                start = i
            depth += 1
        elif ch in ")]":
            depth -= 1
            if depth == 0 and ch == ")":
                groups.append((start, i))
            if depth < 0:
                return None
        elif ch == "=" and depth == 0:
            return None  # `x = (...)`, a lambda's `= [](...)`: no definition of a function
    for open_at, _ in reversed(groups):
        m = re.search(r"([A-Za-z_~][A-Za-z_0-9]*(?:\s*::\s*~?[A-Za-z_][A-Za-z_0-9]*)*)\s*$", h[:open_at])
        if m and m.group(1) not in NOT_NAMES:
            return re.sub(r"\s+", "", m.group(1))
    return None


def definitions(text):
    """[(first line, name, lines)] of the top-level function definitions of a
    source file; raises ValueError when its braces do not pair."""
    b = blank(text)
    starts = [0] + [m.end() for m in re.finditer("\n", b)]

    def line_of(at):
        return bisect.bisect_right(starts, at)

    found = []
    head_at = 0  # where the current top-level head starts
    stack = []   # "scope" (extern "C", namespace), ("body", head, name), "inner" or "in head"
    depth = 0    # the entries of stack that are no scope
    for m in re.finditer(r"[{};]", b):
        ch, i = m.group(0), m.start()
        if ch == ";":
            if not depth:
                head_at = i + 1
        elif ch == "{":
            head = b[head_at:i]
            if depth:
                stack.append("inner")
            elif head.count("(") > head.count(")"):  # `p = pre{0, 0}` in a parameter list: the head goes on
                stack.append("in head")
            elif SCOPE.fullmatch(head):
                stack.append("scope")
                head_at = i + 1
                continue
            else:
                stack.append(("body", head_at + len(head) - len(head.lstrip()), function_name(head)))
            depth += 1
        else:
            if not stack:
                raise ValueError(f"line {line_of(i)}: a '}}' closes nothing")
            top = stack.pop()
            if top != "scope":
                depth -= 1
            if isinstance(top, tuple) and top[2]:
                first = line_of(top[1])
                found.append((first, top[2], line_of(i) - first + 1))
            if not depth and top != "in head":
                head_at = i + 1
    if stack:
        raise ValueError(f"{len(stack)} '{{' never closed (an #if branch with its own braces?)")
    return found


def has_reason(lines, first):
    """Whether the comment block right above line `first` (1-based) holds
    `long:` and a reason."""
    block = []
    k = first - 2
    in_block = False  # walking up through a /* ... */ comment
    while k >= 0:
        s = lines[k].strip()
        if in_block or s.startswith(("//", "/*", "*")) or s.endswith("*/"):
            block.append(s)
            if s.endswith("*/") and "/*" not in s:
                in_block = True
            if s.startswith("/*"):
                in_block = False
            k -= 1
            continue
        break
    return bool(REASON.search(" ".join(reversed(block))))


def check_text(path, text):
    """([(path, first line, name, lines, reasoned)], [errors]) for one file."""
    try:
        defs = definitions(text)
    except ValueError as e:
        return [], [f"{path}: cannot read its functions: {e}"]
    lines = text.split("\n")
    return [(path, first, name, count, count > LIMIT and has_reason(lines, first))
            for first, name, count in defs], []


def scan(root):
    found, errors = [], []
    for folder in FOLDERS:
        top = os.path.join(root, folder)
        if not os.path.isdir(top):
            errors.append(f"{folder}: no such folder under {root}")
            continue
        for d, _, files in os.walk(top):
            for fn in sorted(files):
                if not fn.endswith(EXTENSIONS):
                    continue
                full = os.path.join(d, fn)
                with open(full, errors="replace") as f:
                    f_found, f_errors = check_text(os.path.relpath(full, root), f.read())
                found += f_found
                errors += f_errors
    return found, errors


# Long functions of files under a rewrite not yet merged, each waived until
# the rewrite lands and marks its reason. A waiver whose function is no
# longer over the limit fails the check, so that the list empties as the
# rewrites land (delete the entry then).
WAIVED = {}


def too_long(found, waived=None):
    return [f"{p}:{line} {name} {count} lines (over {LIMIT}; shorten it, or say why after `long:` in the "
            "comment above it)" for p, line, name, count, reasoned in found
            if count > LIMIT and not reasoned and (p, name) not in (waived or {})]


def stale_waivers(found):
    """The waivers whose function is gone or no longer over the limit."""
    over = {(p, name) for p, _, name, count, reasoned in found if count > LIMIT and not reasoned}
    return [f"{p} {name}: waived in WAIVED (tests/function_length.py) but not over {LIMIT} lines without "
            "a reason any more: delete the entry" for p, name in sorted(WAIVED) if (p, name) not in over]


def self_test():
    """The checker must report a 90-line function, in each form a head takes,
    excuse it when `long:` and a reason are in the comment right above, and
    count no other long construct of made-up sources as a function."""
    body = "".join(f"    x += {k}; /* {{ not a brace */ s = \"}}\";\n" for k in range(87))
    heads = {
        "plain": "static int plain(int x)\n",
        "multi": "static inline int\nmulti(int x,\n      const char *s)\n",
        "templ": "template <class F, int N = 3>\n__device__ __forceinline__ F templ(F x)\n",
        "cppdefault": "static int cppdefault(int x, pre p = pre{nullptr, 0},\n                      int y = int{3})\n",
        "cextern": 'extern "C" int cextern(int x) __attribute__((noinline))\n',
    }
    prefix = '#include "x.h"\n#define M(a) \\\n    { a; \\\n    }\n'
    failed = []
    for name, head in heads.items():
        for why in ("", "/* Why it is long.\n * long: one lock over the whole upload, as a test. */\n",
                    "// long: one lock over the whole upload, as a test\n"):
            src = prefix + why + head + "{\n" + body + "}\n"
            if name == "cextern":
                src = 'extern "C" {\nnamespace k {\n' + src + "}\n}\n"
            found, errors = check_text("t.c", src)
            flagged = too_long(found)
            want = 89 + head.count("\n")
            if errors or len(found) != 1:
                failed.append(f"self-test: {name}: {errors or found}")
            elif why and flagged:
                failed.append(f"self-test: `long:` above {name} did not excuse it: {flagged}")
            elif not why and (len(flagged) != 1 or f" {name} {want} lines" not in flagged[0]):
                failed.append(f"self-test: a {want}-line function ({name}) gave {flagged or found}")
    bare = "/* long: */\nstatic int f(int x)\n{\n" + body + "}\n"
    if len(too_long(check_text("t.c", bare)[0])) != 1:
        failed.append("self-test: `long:` with no reason excused a function")
    rows = "".join(f"    {{{k}, \"}}\"}},\n" for k in range(100))
    not_functions = (
        "static const struct row table[] = {\n" + rows + "};\n",
        "struct s {\n" + "".join(f"    int f{k}(void) {{ return {k}; }}\n" for k in range(100)) + "};\n",
        "#define LONG_MACRO(x) \\\n" + "".join("    do { x; } while (0); \\\n" for _ in range(100)) + "\n",
        "static int (*const ops[])(int) = {\n" + "".join("    f,\n" for _ in range(100)) + "};\n",
    )
    for src in not_functions:
        found, errors = check_text("t.c", src)
        if errors or found:
            failed.append(f"self-test: a non-function was counted: {src[:40]!r}: {found or errors}")
    for src in ("static int f(void)\n{\n#if A\n{\n#endif\n}\n", "static int f(void)\n{\n", "}\n"):
        if not check_text("t.c", src)[1]:
            failed.append(f"self-test: unpaired braces were not reported: {src!r}")
    return failed


def main():
    root = os.path.abspath(sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(__file__), ".."))
    errors = self_test()
    found, scan_errors = scan(root)
    errors += scan_errors + too_long(found, WAIVED) + stale_waivers(found)
    print(f"the longest functions of {', '.join(FOLDERS)} (limit {LIMIT} lines):")
    print(f"  {'lines':>5}  where  function")
    for p, line, name, count, reasoned in sorted(found, key=lambda f: (-f[3], f[0], f[1]))[:5]:
        note = ""
        if count > LIMIT:
            note = "  (long: reason given)" if reasoned else \
                "  (waived: WAIVED below)" if (p, name) in WAIVED else "  OVER"
        print(f"  {count:5d}  {p}:{line}  {name}{note}")
    for (p, name), why in sorted(WAIVED.items()):
        print(f"waived: {p} {name}: {why}")
    for e in errors:
        print("FAIL:", e)
    print(f"{len(found)} functions: {'%d problems' % len(errors) if errors else 'ok'}")
    return 1 if errors else 0


if __name__ == "__main__":
    sys.exit(main())
