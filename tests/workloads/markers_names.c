/* Region names as programs really pass them: built at run time in one reused buffer (100
 * regions "a", then 50 "b"), one name from two different arrays (re-entered inside itself:
 * 2 calls, 1 crossing), and a name with a newline (the channel is line-based). */
#include <stdio.h>
#include <string.h>
#include <prospect/region.h>

int main(void)
{
    char buf[16], other[16];

    for (int i = 0; i < 150; i++) {
        snprintf(buf, sizeof(buf), "%s", i < 100 ? "a" : "b");
        prospect_region_begin(buf);
        prospect_region_end(buf);
    }
    strcpy(buf, "outer");
    strcpy(other, "outer");
    prospect_region_begin(buf);
    prospect_region_begin(other);
    prospect_region_end(other);
    prospect_region_end(buf);
    prospect_region_begin("new\nline");
    prospect_region_end("new\nline");
    return 0;
}
/* SPDX-License-Identifier: MIT */
