#!/usr/bin/env python3
"""The cluster's indexes as the migrations in src/cluster/db.c leave them:
every index that serves an order or a range names its first column's order
(ASC or DESC). YugabyteDB shards an index by the hash of its first column
unless that column names an order, and a hash-sharded index serves neither
ORDER BY ... LIMIT nor a range; PostgreSQL reads both forms the same, so
only the statements' text can say it. Equality-only indexes are listed in
EQUALITY with why. It first checks that it reports an index without an
order when one is added (the check can fail)."""
import re
import sys

# index -> why equality alone is asked of it
EQUALITY = {
    "cuzk_partitions_held": "a host's claims, by claimed_by = $1",
}


def final_indexes(text):
    """name -> first column's text, for the indexes the migrations leave
    (C's adjacent string literals joined first, statements read in order)."""
    joined = re.sub(r'"\s*"', "", text)
    live = {}
    for m in re.finditer(r"CREATE INDEX IF NOT EXISTS (\w+) ON \w+\s*\(\s*([^,)]+)|DROP INDEX IF EXISTS (\w+)", joined):
        if m.group(1):
            live[m.group(1)] = m.group(2).strip()
        else:
            live.pop(m.group(3), None)
    return live


def problems(text):
    out = []
    for name, first in sorted(final_indexes(text).items()):
        if name in EQUALITY:
            continue
        if not re.search(r"\b(ASC|DESC)$", first):
            out.append(f"{name}: its first column '{first}' names no order (YugabyteDB would shard it by hash)")
    return out


def main(root):
    text = open(f"{root}/src/cluster/db.c").read()
    live = final_indexes(text)
    if len(live) < 4:
        print(f"cluster_indexes: found {len(live)} indexes in db.c's migrations: the parser no longer reads them")
        return 1
    planted = text + '\n"CREATE INDEX IF NOT EXISTS planted ON t (x, y DESC)"\n'
    if not any(p.startswith("planted:") for p in problems(planted)):
        print("cluster_indexes: an index without an order, planted, was not reported")
        return 1
    found = problems(text)
    for p in found:
        print(p)
    print(f"cluster_indexes: {len(live)} indexes after the migrations, {len(found)} without an order")
    return 1 if found else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1] if len(sys.argv) > 1 else "."))
