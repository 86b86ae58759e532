#!/usr/bin/env bash
# The engine's JSON status snapshot parses with an independent parser (node's
# JSON.parse) and names round-trip through the string escaping.
# Usage: engine_status.test.sh BUILD_DIR
set -euo pipefail
build=${1:?usage: engine_status.test.sh BUILD_DIR}
fail() { echo "engine_status: FAIL: $*" >&2; exit 1; }
command -v node >/dev/null || fail "node not found (install nodejs, or run scripts/deps.sh test)"
out=$("$build/tool_engine_status") || fail "tool_engine_status failed"
printf '%s\n' "$out" | node -e '
const s = JSON.parse(require("fs").readFileSync(0, "utf8"));
const odd = "k\"q\\b/\n\t\x01\x1f-\u00e9";
const ok = (c, m) => { if (!c) { console.error("engine_status: FAIL: " + m); process.exit(1); } };
ok(s.circuits.length === 1 && s.circuits[0].circuit_id === odd + "-c", "circuit id round trip");
ok(s.circuits[0].srs === "hot" && s.circuits[0].refs === 0, "SRS hot and idle");
ok(s.counters.jobs_done === 1 && s.counters.partitions_verified === 2, "counters");
ok(s.memory.reserved === s.circuits[0].srs_bytes && s.memory.peak <= s.memory.budget, "memory");
ok(s.workers.length === 4 && s.devices.length === 2, "workers and devices");
ok(Array.isArray(s.jobs) && s.jobs.length === 0, "no active jobs");
ok(s.config.workers_per_device === 1 && s.config.prover === "cpu", "config");
'
echo "engine_status: OK"
