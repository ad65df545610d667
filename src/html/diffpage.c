/* SPDX-License-Identifier: MIT */
/* The diff page: the table as escaped text, the SVG inline after its XML declaration. */
#include <errno.h>
#include <stdint.h>
#include <string.h>
#include "flame/escape.h"
#include "html/assets.h"
#include "html/diffpage.h"
#include "html/jsonw.h"

static const char head[] =
    "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\n"
    "<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; "
    "script-src 'unsafe-inline'; style-src 'unsafe-inline'\">\n"
    "<meta name=\"generator\" content=\"prospect\">\n<style>\n"
    "body { margin: 10px; font: 13px system-ui, sans-serif; background: #fafaf5; }\n"
    "pre { font: 12px monospace; background: #fff; border: 1px solid #ddd; padding: 6px;\n"
    "      overflow: auto; max-height: 40vh; }\n"
    "h1 { font-size: 17px; } h2 { font-size: 15px; }\n"
    "#diff-table { max-height: 45vh; overflow: auto; display: inline-block; }\n"
    "#rows { border-collapse: collapse; background: #fff; }\n"
    "#rows th { text-align: left; cursor: pointer; background: #e8e8e0; padding: 2px 8px; }\n"
    "#rows td { padding: 1px 8px; border-bottom: 1px solid #eee; white-space: pre;\n"
    "           font-family: monospace; }\n"
    "#rows .num { text-align: right; }\n"
    "#rows .up { color: #b02020; } #rows .down { color: #2040b0; }\n"
    "#dq { width: 300px; font: inherit; }\n"
    "</style>\n<title>";

/* The rows as CSV text in a JSON string, script-safe, and the script that makes the table. */
static int put_rows(FILE *f, const char *csv)
{
    static const char script[] = "</script>\n<script>\n", end[] = "</script>\n";
    struct obuf *ob = obuf_new(f);

    if (!ob)
        return -ENOMEM;
    fputs("<script type=\"application/json\" id=\"diff-rows\">", f);
    fflush(f);
    jsonw_str(ob, csv);
    obuf_put(ob, script, sizeof(script) - 1);
    obuf_put(ob, prospect_diff_js, strlen(prospect_diff_js));
    obuf_put(ob, end, sizeof(end) - 1);
    return obuf_close(ob) ? 0 : -EIO;
}

int html_diff_page(FILE *f, const char *title, const char *table, const char *csv,
                   const char *svg, const char *why_no_svg)
{
    int err;

    fputs(head, f);
    xml_put(f, title, SIZE_MAX);
    fputs("</title></head>\n<body>\n<h1>", f);
    xml_put(f, title, SIZE_MAX);
    fputs("</h1>\n<h2>Per symbol</h2>\n<p><input id=\"dq\" placeholder=\"search (regex): the "
          "table and the graph\" spellcheck=\"false\"> <span id=\"dq-note\"></span></p>\n"
          "<div id=\"diff-table\"></div>\n<details><summary>As text</summary>"
          "<pre id=\"table\">", f);
    for (const char *line = table; *line;) {    /* line by line: xml_put writes "\n" as "?" */
        size_t n = strcspn(line, "\n");
        xml_put(f, line, n);
        fputc('\n', f);
        line += n + (line[n] == '\n');
    }
    fputs("</pre></details>\n<h2>Differential flame graph</h2>\n", f);
    if (svg) {
        const char *root = strstr(svg, "<svg");
        fputs(root ? root : "", f);
    } else {
        fputs("<p id=\"no-graph\">", f);
        xml_put(f, why_no_svg ? why_no_svg : "no call stacks", SIZE_MAX);
        fputs("</p>\n", f);
    }
    if ((err = put_rows(f, csv)))
        return err;
    fputs("</body></html>\n", f);
    return fflush(f) || ferror(f) ? -EIO : 0;
}
