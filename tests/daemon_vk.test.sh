#!/usr/bin/env bash
# A .params and a .vk of two setups of one circuit under the real names (the
# 2KiB WindowPoSt, TEST parameters made by the test): the daemon must refuse
# the kind at load, naming both files, and never answer a job COMPLETED; once
# the files match, it proves and says that the keys are not the ceremony's
# (GetStatus, /status, the metric, the log); without a .vk it says so once.
# Skips (77) without the daemon or the Python packages.
set -euo pipefail
. "$(dirname "$0")/daemon_py.sh" "$@"
exec $py "$here/daemon_vk_test.py" "$build/cuzk" "$here/../proto" "$here/../src/filecoin/parameters.json"
