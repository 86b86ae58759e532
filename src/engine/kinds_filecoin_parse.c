/* Parsing Filecoin requests into witnesses and public inputs (kinds_filecoin.h). */
#include <stdio.h>

#include "cuzk/error.h"
#include "engine/kinds_filecoin.h"

int fil_parse(const fil_kind *fk, const cuzk_fil_request *req, fil_job *j, char *err, size_t err_len)
{
    (void)req, (void)j;
    snprintf(err, err_len, "%s: vanilla proof parsing is not wired yet", fk->name);
    return CUZK_ERR_UNSUPPORTED;
}
