/* SPDX-License-Identifier: MIT */
/* The diff page: the table as escaped text, the SVG inline after its XML declaration. */
#include <errno.h>
#include <stdint.h>
#include <string.h>
#include "flame/escape.h"
#include "html/diffpage.h"

static const char head[] =
    "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\n"
    "<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; "
    "script-src 'unsafe-inline'; style-src 'unsafe-inline'\">\n"
    "<meta name=\"generator\" content=\"prospect\">\n<style>\n"
    "body { margin: 10px; font: 13px system-ui, sans-serif; background: #fafaf5; }\n"
    "pre { font: 12px monospace; background: #fff; border: 1px solid #ddd; padding: 6px;\n"
    "      overflow: auto; max-height: 40vh; }\n"
    "h1 { font-size: 17px; } h2 { font-size: 15px; }\n"
    "</style>\n<title>";

int html_diff_page(FILE *f, const char *title, const char *table, const char *svg,
                   const char *why_no_svg)
{
    fputs(head, f);
    xml_put(f, title, SIZE_MAX);
    fputs("</title></head>\n<body>\n<h1>", f);
    xml_put(f, title, SIZE_MAX);
    fputs("</h1>\n<h2>Per symbol</h2>\n<pre id=\"table\">", f);
    for (const char *line = table; *line;) {    /* line by line: xml_put writes "\n" as "?" */
        size_t n = strcspn(line, "\n");
        xml_put(f, line, n);
        fputc('\n', f);
        line += n + (line[n] == '\n');
    }
    fputs("</pre>\n<h2>Differential flame graph</h2>\n", f);
    if (svg) {
        const char *root = strstr(svg, "<svg");
        fputs(root ? root : "", f);
    } else {
        fputs("<p id=\"no-graph\">", f);
        xml_put(f, why_no_svg ? why_no_svg : "no call stacks", SIZE_MAX);
        fputs("</p>\n", f);
    }
    fputs("</body></html>\n", f);
    return fflush(f) || ferror(f) ? -EIO : 0;
}
