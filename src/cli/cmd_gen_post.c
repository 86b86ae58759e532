/* cuzk gen-vanilla post: placeholder until its generator lands (issue #11). */
#include "cli.h"

int cmd_gen_post(int argc, char **argv)
{
    (void)argc;
    cli_errorf("gen-vanilla %s: not built yet", argv[0]);
    return 1;
}
