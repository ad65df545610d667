/* SPDX-License-Identifier: MIT */
/* Several perf.data files read as one (`report -i A -i B`, the parts of `record
 * --switch-output`): the first file leads, the others follow it in a chain. They must have
 * been recorded with the same events (the parts of one recording are); each event gets the ids
 * of every file, so that records of any of them decode through the first file's evlist, and
 * the first file's info gets every file's build ids and the whole time span. The walk reads
 * the files one after the other, each in its own time order, and sums their stats. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "perf/perfdata_internal.h"

static bool same_events(const struct evlist *a, const struct evlist *b)
{
    if (a->nr != b->nr)
        return false;
    for (size_t i = 0; i < a->nr; i++) {
        const struct perf_event_attr *x = &a->sel[i].attr, *y = &b->sel[i].attr;
        if (x->type != y->type || x->config != y->config || x->sample_type != y->sample_type ||
            x->read_format != y->read_format || x->sample_id_all != y->sample_id_all ||
            x->sample_regs_user != y->sample_regs_user)
            return false;
    }
    return true;
}

static int merge_ids(struct evlist *to, const struct evlist *from)
{
    for (size_t i = 0; i < to->nr; i++)
        for (size_t j = 0; j < from->sel[i].nr_ids; j++) {
            uint64_t id = from->sel[i].ids[j];
            bool have = false;
            for (size_t k = 0; k < to->sel[i].nr_ids && !have; k++)
                have = to->sel[i].ids[k] == id;
            if (!have && evsel_add_id(&to->sel[i], id))
                return -ENOMEM;
        }
    to->cache_sel = NULL;
    return 0;
}

static bool have_build_id(const struct perfdata_info *in, const struct perfdata_build_id_entry *b)
{
    for (size_t i = 0; i < in->nr_build_ids; i++) {
        const struct perfdata_build_id_entry *a = &in->build_ids[i];
        if (a->size == b->size && !memcmp(a->id, b->id, a->size) && a->pid == b->pid &&
            !strcmp(a->path, b->path))
            return true;
    }
    return false;
}

static int merge_info(struct perfdata_info *to, const struct perfdata_info *from)
{
    for (size_t i = 0; i < from->nr_build_ids; i++) {
        struct perfdata_build_id_entry *n, e = from->build_ids[i];
        if (have_build_id(to, &e))
            continue;
        if (!(e.path = strdup(e.path)))
            return -ENOMEM;
        if (!(n = realloc(to->build_ids, (to->nr_build_ids + 1) * sizeof(*n)))) {
            free(e.path);
            return -ENOMEM;
        }
        to->build_ids = n;
        to->build_ids[to->nr_build_ids++] = e;
    }
    if (from->has_sample_time) {
        if (!to->has_sample_time || from->first_sample_time < to->first_sample_time)
            to->first_sample_time = from->first_sample_time;
        if (!to->has_sample_time || from->last_sample_time > to->last_sample_time)
            to->last_sample_time = from->last_sample_time;
        to->has_sample_time = true;
    }
    return 0;
}

void perfdata_stats_add(struct perfdata_stats *to, const struct perfdata_stats *from, size_t nr)
{
    bool had = to->nr_samples != 0;

    to->nr_records += from->nr_records;
    for (size_t i = 0; i < PERFDATA_NR_TYPES; i++)
        to->by_type[i] += from->by_type[i];
    for (size_t i = 0; i < nr; i++)
        to->evsel_samples[i] += from->evsel_samples[i];
    if (from->nr_samples) {
        if (!had || from->first_sample_time < to->first_sample_time)
            to->first_sample_time = from->first_sample_time;
        if (!had || from->last_sample_time > to->last_sample_time)
            to->last_sample_time = from->last_sample_time;
    }
    to->nr_samples += from->nr_samples;
    to->lost += from->lost;
    to->lost_samples += from->lost_samples;
    to->throttle += from->throttle;
    to->unthrottle += from->unthrottle;
    to->unknown += from->unknown;
    if (!to->bad && from->bad)
        to->first_bad = from->first_bad;
    to->bad += from->bad;
    to->compressed += from->compressed;
    to->late += from->late;
    if (!to->truncated && from->truncated) {
        to->truncated = true;
        to->damage = from->damage;
    }
    to->bytes_unread += from->bytes_unread;
    to->data_size_missing |= from->data_size_missing;
}

int perfdata_open_many(const char *const *paths, size_t n, struct perfdata **out,
                       struct perfdata_error *err)
{
    struct perfdata *head = NULL, **tail = &head;
    int ret = 0;

    *out = NULL;
    if (n == 0)
        return perfdata_set_error(err, "", -EINVAL, false, 0, "no input");
    for (size_t i = 0; i < n && !ret; i++) {
        struct perfdata *pd;
        if (n > 1 && !strcmp(paths[i], "-")) {
            ret = perfdata_set_error(err, "-", -EINVAL, false, 0, "standard input cannot be "
                                     "one of several inputs");
            break;
        }
        if ((ret = perfdata_open(paths[i], &pd, err)))
            break;
        *tail = pd;
        tail = &pd->next;
        if (pd == head)
            continue;
        if (!same_events(&head->evl, &pd->evl))
            ret = perfdata_set_error(err, pd->path, -EINVAL, false, 0, "recorded with other "
                                     "events than %s: inputs read as one must have the same "
                                     "events", head->path);
        else if (merge_ids(&head->evl, &pd->evl) || merge_info(&head->info, &pd->info))
            ret = perfdata_set_error(err, pd->path, -ENOMEM, false, 0, "out of memory");
    }
    if (ret) {
        perfdata_close(head);
        return ret;
    }
    *out = head;
    return 0;
}
