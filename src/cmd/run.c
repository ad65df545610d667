#include <stdio.h>
#include "cmd/cmd.h"

const char cmd_run_usage[] = "usage: prospect run [options] -- COMMAND [ARGS]\n";

int cmd_run(int argc, char **argv)
{
    cmd_error("run", "not implemented yet");
    return 1;
}
