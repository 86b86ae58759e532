/* cuzk gen-vanilla porep: placeholder until its generator lands (issue #11). */
#include "cli.h"

int cmd_gen_porep(int argc, char **argv)
{
    (void)argc;
    cli_errorf("gen-vanilla %s: not built yet", argv[0]);
    return 1;
}
