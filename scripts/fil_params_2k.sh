#!/usr/bin/env bash
# TEST Groth16 parameters for the 2KiB Filecoin circuits the daemon serves
# (PoRep, WindowPoSt, WinningPoSt, SnapDeals), under their v28 names in DIR.
# Made once: a kind whose files (listed in DIR/.done-KIND) are all there is
# skipped. PoRep (2.7M constraints, a 2^22 domain) takes minutes on 2 cores.
# FIL_KINDS (space separated) limits the kinds, e.g. the sanitizer build
# makes only the PoSt ones (PoRep setup under ASan would take an hour).
#   usage: fil_params_2k.sh BUILD_DIR DIR
set -euo pipefail
build=$(cd "${1:?usage: fil_params_2k.sh BUILD_DIR DIR}" && pwd)
dir=${2:?usage: fil_params_2k.sh BUILD_DIR DIR}
mkdir -p "$dir"
for kind in ${FIL_KINDS:-window-post winning-post snap porep}; do
    stamp="$dir/.done-$kind-2KiB"
    if [ -s "$stamp" ]; then
        ok=1
        while read -r f; do [ -s "$dir/$f" ] || ok=0; done < "$stamp"
        if [ $ok = 1 ]; then echo "fil_params_2k: $kind: present"; continue; fi
    fi
    start=$(date +%s)
    log="$dir/.setup-$kind.log"
    if ! "$build/cuzk" setup --kind "$kind" --sector-size 2KiB --out "$dir" > "$log" 2>&1; then
        cat "$log" >&2
        echo "fil_params_2k: $kind: setup failed" >&2
        exit 1
    fi
    # the names setup wrote (they carry the circuit's cache id)
    grep '^setup: wrote' "$log" | grep -oE 'v28-[A-Za-z0-9_-]+\.(params|vk|meta)' > "$stamp.tmp"
    [ "$(wc -l < "$stamp.tmp")" -eq 3 ] || { cat "$log" >&2; echo "fil_params_2k: $kind: no file names in the setup log" >&2; exit 1; }
    mv "$stamp.tmp" "$stamp"
    echo "fil_params_2k: $kind: made in $(( $(date +%s) - start )) s"
done
