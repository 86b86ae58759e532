/* Prints the engine's JSON status after one job of a kind whose name and
 * circuit id need escaping (quote, backslash, control characters, UTF-8);
 * engine_status.test.sh parses it with node's JSON.parse. */
#include <stdio.h>
#include <stdlib.h>

#include "cuzk/kinds/kinds.h"
#include "cuzk/engine/engine.h"
#include "cuzk/util/error.h"

#define ODD_NAME "k\"q\\b/\n\t\x01\x1f-\xc3\xa9"

int main(void)
{
    cuzk_engine_config cfg = {.synthesis_workers = 2, .num_devices = 2, .workers_per_device = 1};
    cuzk_engine *e;
    if (cuzk_engine_create(&e, &cfg) != CUZK_OK) return 1;
    cuzk_engine_synthetic_kind k = {ODD_NAME, ODD_NAME "-c", 2, CUZK_PRIORITY_HIGH, 64, 2, NULL, 0};
    if (cuzk_engine_register_synthetic(e, &k, 1) != CUZK_OK) return 1;
    uint64_t seed = 5;
    cuzk_job_request rq = {.request_id = "id\"1", .kind = ODD_NAME, .inputs = &seed, .inputs_len = 8,
                           .priority = CUZK_PRIORITY_DEFAULT};
    cuzk_job *j;
    if (cuzk_engine_submit(e, &rq, &j, NULL) != CUZK_OK || cuzk_job_await(j, -1) != CUZK_OK) return 1;
    cuzk_job_release(j);
    if (cuzk_engine_wait_idle(e, -1) != CUZK_OK) return 1;
    char *js = cuzk_engine_status_json(e);
    if (!js) return 1;
    puts(js);
    free(js);
    cuzk_engine_destroy(e);
    return 0;
}
