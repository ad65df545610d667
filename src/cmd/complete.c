/* SPDX-License-Identifier: MIT */
/* Shell completion from the command tables: the bash and zsh scripts (scripts/completion/) call
 * `prospect __complete INDEX WORDS...` (WORDS from "prospect" on, INDEX the word being
 * completed) and offer the lines it prints; a line "__files__" asks the shell for file names. */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "cmd/cmd.h"
#include "cmd/options.h"
#include "perf/event.h"
#include "symbol/elf_code.h"
#include "util/launch.h"

static void put_if_prefix(const char *word, const char *cur)
{
    if (!strncmp(word, cur, strlen(cur)))
        printf("%s\n", word);
}

static int put_event(void *arg, const char *name, const struct perf_event_attr *attr)
{
    (void)attr;
    put_if_prefix(name, arg);
    return 0;
}

/* Generic names always; tracepoints (thousands) once the word names a subsystem, and only
 * when tracefs is mounted: completion looks, it never mounts. */
static void complete_events(const char *cur)
{
    static const char *const kinds[] = { "hardware", "software", "cache" };
    const char *colon = strchr(cur, ':'), *dir;
    char path[1024];
    DIR *d;
    struct dirent *e;

    for (size_t i = 0; i < 3; i++)
        event_foreach_generic(kinds[i], put_event, (void *)cur);
    if (!colon || !(dir = event_tracefs_dir_mounted()))
        return;
    snprintf(path, sizeof(path), "%s/%.*s", dir, (int)(colon - cur), cur);
    if (!(d = opendir(path)))
        return;
    while ((e = readdir(d)))
        if (e->d_name[0] != '.' && strcmp(e->d_name, "enable") && strcmp(e->d_name, "filter")) {
            char name[512];
            snprintf(name, sizeof(name), "%.*s:%s", (int)(colon - cur), cur, e->d_name);
            put_if_prefix(name, cur);
        }
    closedir(d);
}

static void put_function(void *arg, const char *name)
{
    put_if_prefix(name, arg);
}

/* The functions of the program named after "--" (words[from..n)), from its symbol table only:
 * nothing when there is no such program yet. */
static void complete_functions(char **words, long from, long n, const char *cur)
{
    char exe[4096];

    for (long k = from; k + 1 < n; k++)
        if (!strcmp(words[k], "--")) {
            if (!launch_resolve(words[k + 1], exe, sizeof(exe)))
                (void)elf_function_names(exe, put_function, (void *)cur);
            return;
        }
}

static void complete_value(const struct optdecl *o, const char *cur, char **words, long i,
                           long n)
{
    switch (o->complete) {
    case OPTD_COMPLETE_FILE:
    case OPTD_COMPLETE_DIR:
        printf("__files__\n");
        break;
    case OPTD_COMPLETE_EVENT:
        complete_events(cur);
        break;
    case OPTD_COMPLETE_FUNC:
        complete_functions(words, i + 1, n, cur);
        break;
    case OPTD_COMPLETE_CHOICE: {
        char buf[256], *save, *w;
        snprintf(buf, sizeof(buf), "%s", o->choices);
        for (w = strtok_r(buf, " ", &save); w; w = strtok_r(NULL, " ", &save))
            put_if_prefix(w, cur);
        break;
    }
    default:
        break;
    }
}

/* The option a word names ("--event", "-e"), if it takes a value given as the next word. */
static const struct optdecl *option_wanting_value(const struct cmd_decl *d, const char *w)
{
    for (const struct optdecl *o = d->opts; o->key; o++) {
        if (!o->arg || o->arg[0] == '[')
            continue;
        if (w[0] == '-' && w[1] == '-' && o->name && !strcmp(w + 2, o->name))
            return o;
        if (w[0] == '-' && w[1] == o->key && !w[2] && o->key < 256 &&
            !(o->flags & OPTD_LONG_ONLY))
            return o;
    }
    return NULL;
}

static void complete_options(const struct cmd_decl *d, const char *cur)
{
    char buf[128];

    for (const struct optdecl *o = d->opts; o->key; o++) {
        if (o->name) {
            snprintf(buf, sizeof(buf), "--%s", o->name);
            put_if_prefix(buf, cur);
        }
        if (o->key < 256 && !(o->flags & OPTD_LONG_ONLY) && cur[1] != '-') {
            snprintf(buf, sizeof(buf), "-%c", o->key);
            put_if_prefix(buf, cur);
        }
    }
}

static void complete_commands(const char *cur)
{
    for (const struct command *c = prospect_commands; c->name; c++)
        put_if_prefix(c->name, cur);
    put_if_prefix("help", cur);
}

int cmd_complete(int argc, char **argv)
{
    const struct command *c;
    const struct optdecl *o;
    long i;

    /* argv: INDEX WORD0 WORD1 ...; WORD0 is "prospect". */
    if (argc < 2 || (i = strtol(argv[0], NULL, 10)) < 1 || i >= argc)
        return 0;
    char **words = argv + 1;
    const char *cur = i < argc - 1 ? words[i] : "";
    if (i == 1) {
        complete_commands(cur);
        return 0;
    }
    if (!strcmp(words[1], "help")) {
        if (i == 2)
            complete_commands(cur);
        return 0;
    }
    if (!(c = command_find(words[1])))
        return 0;
    for (long k = 2; k < i; k++)
        if (!strcmp(words[k], "--"))
            return printf("__files__\n") < 0;
    if ((o = option_wanting_value(c->decl, words[i - 1]))) {
        complete_value(o, cur, words, i, argc - 1);
        return 0;
    }
    if (cur[0] == '-')
        complete_options(c->decl, cur);
    else
        printf("__files__\n");
    return 0;
}
