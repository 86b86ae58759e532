/* Fuzz the configuration loader (toml++ through the C adapter, then the key
 * table): any bytes are loaded or rejected with a message, never crash. */
#include <stdlib.h>
#include <string.h>

#include "server/config.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    cuzk_config c;
    cfg_defaults(&c);
    char err[384];
    err[0] = '\0';
    if (cfg_apply_toml(&c, (const char *)data, size, err, sizeof err) != 0 && !err[0]) abort();
    return 0;
}
