/* SPDX-License-Identifier: MIT */
/* prospect replay's text table (cmd/replay_out.c): the header names the floor that was
 * subtracted from each allocator's figures. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "test.h"
#include "cmd/cmd.h"
#include "cmd/replay_out.h"

const struct command prospect_commands[] = { { 0 } };   /* cmd/commands.c's table: unused here */

/* The table of n allocators (floors[i] ticks, one malloc of 100 ticks each), as printed. */
static char *table(const uint64_t *floors, size_t n)
{
    struct alloc_out aos[4];
    struct replay_opts o;
    FILE *tmp = tmpfile();
    int saved = dup(STDOUT_FILENO);
    static char buf[4096];
    size_t len;

    memset(aos, 0, sizeof(aos));
    memset(&o, 0, sizeof(o));
    for (size_t i = 0; i < n; i++) {
        snprintf(aos[i].a.name, sizeof(aos[i].a.name), "alloc%zu", i);
        aos[i].ran = true;
        aos[i].res.hdr.floor = floors[i];
        aos[i].res.hdr.hz = 2.5e9;
        aos[i].step = 26;
        for (unsigned k = 0; k < RP_NKINDS; k++)
            aos[i].h[k] = prospect_hist_new(aos[i].a.name);
        prospect_hist_add(aos[i].h[0], 100, 0);
    }
    fflush(stdout);
    dup2(fileno(tmp), STDOUT_FILENO);
    replay_print_table(aos, n, &o);
    fflush(stdout);
    dup2(saved, STDOUT_FILENO);
    close(saved);
    rewind(tmp);
    len = fread(buf, 1, sizeof(buf) - 1, tmp);
    buf[len] = 0;
    fclose(tmp);
    for (size_t i = 0; i < n; i++)
        for (unsigned k = 0; k < RP_NKINDS; k++)
            prospect_hist_free(aos[i].h[k]);
    return buf;
}

TEST(one_floor_for_all)
{
    const uint64_t f[] = { 26, 26 };
    const char *t = table(f, 2);
    CHECK(strstr(t, "net of the 26-tick floor of the lfence reads") != NULL);
}

TEST(floors_that_differ_are_each_named)
{
    const uint64_t f[] = { 26, 52, 26 };
    const char *t = table(f, 3);
    CHECK(strstr(t, "net of the 26-tick floor") == NULL);   /* not alloc1's */
    CHECK(strstr(t, "floors: alloc0 26, alloc1 52, alloc2 26 ticks\n") != NULL);
}

int main(void)
{
    RUN(one_floor_for_all);
    RUN(floors_that_differ_are_each_named);
    return 0;
}
