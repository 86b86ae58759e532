/* Fuzz the parameters.json and .meta parsers (cuzk/filecoin/fil_params.h): any bytes
 * are parsed or rejected with a message, never crash; a parsed manifest's
 * entries are well-formed (32 lowercase hex digest, plain name, findable). */
#include <stdlib.h>
#include <string.h>

#include "cuzk/filecoin/fil_params.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char err[300];
    err[0] = 0;
    cuzk_fil_manifest m;
    if (cuzk_fil_manifest_parse(&m, (const char *)data, size, err, sizeof err) != 0) {
        if (!err[0]) abort();
    } else {
        for (size_t i = 0; i < m.n; i++) {
            const cuzk_fil_manifest_entry *e = &m.e[i];
            if (strlen(e->digest) != CUZK_FIL_DIGEST_HEX || strspn(e->digest, "0123456789abcdef") != CUZK_FIL_DIGEST_HEX ||
                !*e->name || strchr(e->name, '/') || !*e->cid || cuzk_fil_manifest_find(&m, e->name) != e)
                abort();
        }
        cuzk_fil_manifest_free(&m);
    }
    err[0] = 0;
    uint64_t ss;
    if (cuzk_fil_param_meta_parse((const char *)data, size, &ss, err, sizeof err) != 0 && !err[0]) abort();
    return 0;
}
