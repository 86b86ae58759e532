#!/usr/bin/python3
"""The code and the docs say what is, not how the work went.

Two checks on the source tree:
  1. No file in src/, include/ or docs/ (docs/perf-log.md, the dated history,
     excepted) counts rounds of work ("the seventh session", "this session",
     "second attempt"), cites a tracker number ("issue 21", "issue #6"), dates
     a change in prose ("since 5 Dec"), and no file in src/ or include/ sends
     the reader to perf-log. A phrase broken over two lines counts.
  2. docs/perf.md holds one row per figure: the first cell of every table row
     names its figure, and no two rows in the file name the same one; an area
     (a `## ` section) fits a screen (SCREEN_LINES).

It first proves to itself, on made-up text, that it reports each kind of line
and a second row for a figure, and passes Poseidon's rounds and a timestamp.

Usage: history.py [SOURCE_DIR]   (default: the parent of this file's folder)
Exit 0 when the tree passes, 1 with one line per finding.
"""
import os
import re
import sys

SCREEN_LINES = 45
TEXT_EXT = (".c", ".h", ".cu", ".cuh", ".cpp", ".md", ".txt", ".toml", ".proto", "")
ORDINAL = (r"(?:first|second|third|fourth|fifth|sixth|seventh|eighth|ninth|tenth|eleventh|"
           r"twelfth|thirteenth|fourteenth|fifteenth|sixteenth|seventeenth|eighteenth|"
           r"nineteenth|twentieth|\d+(?:st|nd|rd|th))")
MONTH = r"(?:Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Oct|Nov|Dec)[a-z]*"
HISTORY = [
    ("a tracker number", re.compile(r"\bissues?\s+#?\d+", re.I)),
    ("a round of work", re.compile(
        r"\b(?:this|that|same|next|previous|last|earlier|later|" + ORDINAL + r")\s+session\b", re.I)),
    ("a round of work", re.compile(
        r"\b(?:first|second|third|earlier|previous)\s+(?:attempt|try)\b(?!\s+(?:of|at)\s+(?:a|the|its|each)\b)", re.I)),
    ("a round of work", re.compile(
        r"\b(?:" + ORDINAL + r"|next|previous|last)\s+round\s+of\s+(?:work|tuning|measurements?)\b", re.I)),
    ("a date in prose", re.compile(r"(?<![\d:T-])\b\d{1,2}\s+" + MONTH + r"\b(?!\s*\d{4}\s*\d)")),
]
PERF_LOG = ("a pointer to perf-log", re.compile(r"perf-log", re.I))
COMMENT_LEAD = re.compile(r"^\s*(?:/\*+|\*+|//+|#+|>)?\s*")

# Lines under src/gpu and src/engine that another change rewrites: tolerated
# while they stand, word for word; each gone one is printed as a note, to be
# deleted here. Everything else in those folders is checked like the rest.
PENDING = {}


def history_findings(path, text):
    """[(line number, what, the line)] for one file's text."""
    checks = list(HISTORY)
    if path.startswith(("src/", "include/")):
        checks.append(PERF_LOG)
    lines = text.split("\n")
    out = []
    for i, line in enumerate(lines):
        nxt = COMMENT_LEAD.sub("", lines[i + 1]) if i + 1 < len(lines) else ""
        joined = line + " " + nxt
        for what, rx in checks:
            # a match in this line, or one that starts here and ends on the next
            hit = rx.search(line) or next((m for m in rx.finditer(joined) if m.start() < len(line) < m.end()), None)
            if hit:
                out.append((i + 1, what, line))
                break
    return out


def figure_key(row):
    cell = row.strip().strip("|").split("|")[0]
    return re.sub(r"\s+", " ", cell.replace("*", "").replace("`", "")).strip().lower()


def perf_findings(text):
    """[(line number, message)]: second rows of a figure, areas over a screen."""
    lines = text.split("\n")
    out, seen, rows = [], {}, 0
    for i, line in enumerate(lines):
        if not line.startswith("|") or re.match(r"^\|\s*-", line):
            continue
        if i + 1 < len(lines) and re.match(r"^\|\s*-", lines[i + 1]):
            continue  # a header row
        rows += 1
        key = figure_key(line)
        if key in seen:
            out.append((i + 1, f"a second row for '{key}' (first at line {seen[key]})"))
        else:
            seen[key] = i + 1
    if rows == 0:
        out.append((1, "no table rows: nothing to check"))
    start = None
    for i, line in enumerate(lines + ["## end"]):
        if line.startswith("## "):
            if start is not None and i - start > SCREEN_LINES:
                out.append((start + 1, f"area '{lines[start][3:]}' is {i - start} lines (a screen: {SCREEN_LINES})"))
            start = i
    return out


def tree_files(root):
    for top in ("src", "include", "docs"):
        for d, _, names in os.walk(os.path.join(root, top)):
            for n in sorted(names):
                rel = os.path.relpath(os.path.join(d, n), root)
                if rel == "docs/perf-log.md" or os.path.splitext(n)[1] not in TEXT_EXT:
                    continue
                yield rel


def self_test():
    bad = {
        "src/a.c": "/* measured in the seventh session */",
        "src/b.c": "/* see issue 21 for the goal */",
        "src/c.c": "/* the default since 5 Dec */",
        "src/d.c": "/* the batch (perf-log, fourteenth\n * session). */",
        "docs/e.md": "This session moved it; issue #6 asked.",
        "docs/f.md": "Our first attempt was slower.",
        "include/g.h": "/* figures: docs/perf-log.md */",
    }
    for path, text in bad.items():
        if not history_findings(path, text):
            sys.exit(f"history.py self-test: '{text}' in {path} not reported")
    good = {
        "src/h.c": 'cuzk_cs_push_ns(cs, "first round"); /* round 4 + RP; a session key */',
        "docs/i.md": "error at 2026-12-04T19:28:18Z; the perf-log has the history",
        "src/j.c": "/* whose last attempt failed; the first attempt of a partition */",
    }
    for path, text in good.items():
        if history_findings(path, text):
            sys.exit(f"history.py self-test: '{text}' in {path} reported")
    table = "## A\n\n| figure | value |\n| --- | --- |\n| G1 MSM 2^26 | 409 ms |\n| **G1 MSM 2^26** | 441 ms |\n"
    if not any("second row" in m for _, m in perf_findings(table)):
        sys.exit("history.py self-test: a second row for a figure not reported")
    if perf_findings(table.replace("**G1 MSM 2^26**", "G1 MSM 2^24")):
        sys.exit("history.py self-test: distinct figures reported")
    if not perf_findings("## A\n" + "text\n" * (SCREEN_LINES + 1) + "| f | v |\n| - | - |\n| x | 1 |\n"):
        sys.exit("history.py self-test: an area longer than a screen not reported")


def main():
    root = sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(__file__), "..")
    self_test()
    failures, notes = [], []
    for rel in tree_files(root):
        with open(os.path.join(root, rel), encoding="utf-8", errors="replace") as f:
            text = f.read()
        pending = list(PENDING.get(rel, []))
        for n, what, line in history_findings(rel, text):
            if line in pending:
                pending.remove(line)
                continue
            failures.append(f"{rel}:{n}: {what}: {line.strip()}")
        notes += [f"note: {rel}: pending line gone, delete it from PENDING: {p.strip()}" for p in pending]
    for rel in PENDING:
        if not os.path.exists(os.path.join(root, rel)):
            notes.append(f"note: {rel} is gone, delete it from PENDING")
    with open(os.path.join(root, "docs", "perf.md"), encoding="utf-8") as f:
        failures += [f"docs/perf.md:{n}: {m}" for n, m in perf_findings(f.read())]
    print("\n".join(notes + failures))
    if failures:
        sys.exit(1)
    print(f"history: src, include, docs say what is; docs/perf.md one row per figure "
          f"({sum(len(v) for v in PENDING.values())} pending lines in src/gpu tolerated)")


if __name__ == "__main__":
    main()
