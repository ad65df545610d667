/* SPDX-License-Identifier: MIT */
/* prospect check: is this machine quiet enough to measure? Options -> syscheck_run() ->
 * one line per item (or JSON). Exit 0 when nothing warns, 1 when something does, 2 on usage. */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "cmd/cmd.h"
#include "cmd/options.h"
#include "system/syscheck.h"
#include "util/cpu_pin.h"

static const struct optdecl check_opts[] = {
    { 'c', "cpu", "N",
        "the CPU to assess (default: the first isolated CPU, else the highest\n"
        "online CPU, leaving CPU 0 to the system as seed 004 does)", 0, NULL, 0 },
    { 'r', "root", "DIR", "read /proc and /sys under DIR instead of / (for fixtures and chroots)",
        OPTD_COMPLETE_DIR, NULL, 0 },
    OPTD_FORMAT('f', "FORMAT", "text json", "text (default) or json"),
    { 'u', "user", NULL, "assess for an unprivileged user even when run as root", 0, NULL, 0 },
    { 'm', "move-irqs", NULL,
        "first move every IRQ that may be delivered to the CPU to the other\n"
        "(non-isolated) CPUs, saying which ones the kernel refuses and why;\n"
        "then assess (needs root; irqbalance, if running, moves them back)",
        OPTD_COMPLETE_NONE, NULL, OPTD_LONG_ONLY },
    OPTD_HELP,
    { 0 },
};

const struct cmd_decl cmd_check_decl = {
    .name = "check",
    .synopsis = "[--cpu N] [--root DIR] [--format text|json] [--user] [--move-irqs]",
    .intro =
    "\n"
    "Says whether this machine is quiet enough to time small pieces of code: CPU isolation\n"
    "(isolcpus, nohz_full, rcu_nocbs), IRQs that may hit the CPU, frequency governor, min/max,\n"
    "boost, SMT, ASLR, perf_event_paranoid, kptr_restrict, hardware PMU, TSC and clocksource,\n"
    "hypervisor, load and runnable tasks. One line per item: ok, warn or n/a, what was found and\n"
    "what to do.\n"
    "\n",
    .outro =
    "\n"
    "Exit status: 0 when no item warns, 1 when at least one warns, 2 on a usage error,\n"
    "3 when the machine (or --root) could not be assessed at all.\n",
    .opts = check_opts,
    .flags = OPTD_STOP_AT_COMMAND,
};

static void json_string(FILE *f, const char *s)
{
    fputc('"', f);
    for (; *s; s++) {
        unsigned char ch = (unsigned char)*s;
        if (ch == '"' || ch == '\\')
            fprintf(f, "\\%c", ch);
        else if (ch == '\n')
            fputs("\\n", f);
        else if (ch == '\t')
            fputs("\\t", f);
        else if (ch < 0x20)
            fprintf(f, "\\u%04x", ch);
        else
            fputc(ch, f);
    }
    fputc('"', f);
}

static void print_moves_json(const struct syscheck *sc, const int *err);

static void print_json(const struct syscheck *sc, const char *root, const struct syscheck *before,
                       const int *moves)
{
    printf("{\n  \"cpu\": %d,\n  \"cpu_chosen\": %s,\n  \"root\": ", sc->cpu,
           sc->cpu_chosen ? "true" : "false");
    json_string(stdout, root);
    printf(",\n");
    if (moves)
        print_moves_json(before, moves);
    printf("  \"items\": [\n");
    for (size_t i = 0; i < sc->n; i++) {
        const struct check_item *it = &sc->items[i];
        printf("    {\"name\": ");
        json_string(stdout, it->name);
        printf(", \"status\": ");
        json_string(stdout, check_status_name(it->status));
        printf(", \"value\": ");
        json_string(stdout, it->value);
        printf(", \"advice\": ");
        json_string(stdout, it->advice);
        printf("}%s\n", i + 1 < sc->n ? "," : "");
    }
    printf("  ],\n  \"summary\": {\"ok\": %zu, \"warn\": %zu, \"na\": %zu}\n}\n",
           syscheck_count(sc, CHECK_OK), syscheck_count(sc, CHECK_WARN),
           syscheck_count(sc, CHECK_NA));
}

static void refusal(const struct syscheck *sc, const int *err, size_t i, char *buf, size_t len)
{
    const char *why = syscheck_irq_refusal(err[i]);
    if (sc->irqs[i].fixed)
        snprintf(buf, len, "%s IRQ (debugfs); not tried", sc->irqs[i].fixed);
    else
        snprintf(buf, len, "%s%s%s", strerror(-err[i]), why ? ": " : "", why ? why : "");
}

/* The IRQs moved (as ranges), then each refusal with its reason. */
static void print_moves_text(const struct syscheck *sc, const int *err)
{
    struct syscheck_irq *moved = calloc(sc->nirqs + 1, sizeof(*moved));
    size_t nm = 0;
    char list[300], why[200];

    if (!moved)
        return;
    if (!sc->nirqs)
        printf("No IRQ may be delivered to CPU %d: nothing to move\n", sc->cpu);
    for (size_t i = 0; i < sc->nirqs; i++)
        if (!err[i])
            moved[nm++] = sc->irqs[i];
    syscheck_irq_ranges(moved, nm, list, sizeof(list));
    if (sc->nirqs)
        printf("Moved %zu of %zu IRQs off CPU %d to CPU %s%s%s\n", nm, sc->nirqs, sc->cpu,
               sc->irq_target, nm ? ": " : "", list);
    free(moved);
    for (size_t i = 0; i < sc->nirqs; i++) {
        if (!err[i])
            continue;
        refusal(sc, err, i, why, sizeof(why));
        printf("  IRQ %u not moved: %s\n", sc->irqs[i].irq, why);
    }
}

static void print_moves_json(const struct syscheck *sc, const int *err)
{
    char why[200];

    printf("  \"irq_moves\": [");
    for (size_t i = 0; i < sc->nirqs; i++) {
        printf("%s\n    {\"irq\": %u, \"moved\": %s", i ? "," : "", sc->irqs[i].irq,
               err[i] ? "false" : "true");
        if (err[i]) {
            refusal(sc, err, i, why, sizeof(why));
            printf(", \"reason\": ");
            json_string(stdout, why);
        }
        printf("}");
    }
    printf("%s],\n", sc->nirqs ? "\n  " : "");
}

static void print_text(const struct syscheck *sc)
{
    printf("Measuring on CPU %d%s.\n", sc->cpu,
           sc->cpu_chosen ? " (chosen: first isolated, else highest online CPU; use --cpu N)"
                          : "");
    for (size_t i = 0; i < sc->n; i++) {
        const struct check_item *it = &sc->items[i];
        printf("%-4s  %-19s %s", check_status_name(it->status), it->name, it->value);
        if (it->advice[0] && it->status != CHECK_OK)
            printf(" -- %s", it->advice);
        putchar('\n');
    }
    printf("%zu ok, %zu warn, %zu n/a\n", syscheck_count(sc, CHECK_OK),
           syscheck_count(sc, CHECK_WARN), syscheck_count(sc, CHECK_NA));
}

/* syscheck_run failed: the message and the exit status. */
static int report_failure(int err, const struct syscheck_opts *o, const struct syscheck *sc)
{
    if (err == -ENODEV)
        return cmd_usage_error("check", "CPU %d is not online (online CPUs: %s)", o->cpu,
                               sc->online);
    if (err == -ENOENT)
        cmd_error("check", "cannot read or parse the online CPU list %s/sys/devices/system/cpu/online",
                  strcmp(o->root, "/") ? o->root : "");
    else
        cmd_error("check", "%s", strerror(-err));
    return 3;
}

int cmd_check(int argc, char **argv)
{
    struct syscheck_opts o = { "/", -1, geteuid() == 0 };
    struct syscheck sc;
    struct syscheck before = { 0 };
    int json = 0, move = 0, ch, err, *moves = NULL;

    optind = 1;
    opterr = 0;
    while ((ch = cmd_getopt(&cmd_check_decl, argc, argv)) != -1) {
        switch (ch) {
        case 'c':
            if (cpu_parse(optarg, &o.cpu))
                return cmd_usage_error("check", "--cpu wants a CPU number, not '%s'", optarg);
            break;
        case 'r':
            o.root = optarg;
            break;
        case 'f':
            if (!strcmp(optarg, "json"))
                json = 1;
            else if (strcmp(optarg, "text"))
                return cmd_usage_error("check", "unknown format '%s' (text or json)", optarg);
            break;
        case 'u':
            o.privileged = false;
            break;
        case 'm':
            move = 1;
            break;
        case 'h':
            return cmd_help("check");
        default:
            return cmd_bad_option("check", argv, optind, optopt, ch);
        }
    }
    if (optind < argc)
        return cmd_usage_error("check", "unexpected argument '%s'", argv[optind]);

    err = syscheck_run(&o, &sc);
    if (!err && move) {
        /* Move, then assess again: the report shows the state after the move. */
        before = sc;
        moves = calloc(before.nirqs + 1, sizeof(*moves));
        if (!moves) {
            syscheck_release(&before);
            cmd_error("check", "%s", strerror(ENOMEM));
            return 3;
        }
        if (before.nirqs && syscheck_move_irqs(&before, o.root, moves)) {
            cmd_error("check", "CPU %d is the only online CPU: its IRQs cannot move", before.cpu);
            free(moves);
            syscheck_release(&before);
            return 1;
        }
        if (!json)
            print_moves_text(&before, moves);
        o.cpu = before.cpu;
        err = syscheck_run(&o, &sc);
        sc.cpu_chosen = before.cpu_chosen;
    }
    if (err)
        err = report_failure(err, &o, &sc);
    else if (json)
        print_json(&sc, o.root, &before, moves);
    else
        print_text(&sc);
    if (!err)
        err = syscheck_count(&sc, CHECK_WARN) ? 1 : 0;
    syscheck_release(&sc);
    syscheck_release(&before);
    free(moves);
    return err;
}
