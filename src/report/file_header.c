/* SPDX-License-Identifier: MIT */
#include <inttypes.h>
#include <string.h>
#include "report/csv.h"
#include "report/file_header.h"
#include "util/strutil.h"
#include "report/json.h"

void sample_type_str(uint64_t st, char *buf, size_t len)
{
    static const char *const names[] = {
        "IP", "TID", "TIME", "ADDR", "READ", "CALLCHAIN", "ID", "CPU", "PERIOD", "STREAM_ID",
        "RAW", "BRANCH_STACK", "REGS_USER", "STACK_USER", "WEIGHT", "DATA_SRC", "IDENTIFIER",
        "TRANSACTION", "REGS_INTR", "PHYS_ADDR", "AUX", "CGROUP", "DATA_PAGE_SIZE",
        "CODE_PAGE_SIZE", "WEIGHT_STRUCT",
    };
    size_t n = 0;

    buf[0] = '\0';
    for (unsigned bit = 0; bit < 64 && n < len; bit++) {
        if (!(st & (1ULL << bit)))
            continue;
        if (bit < sizeof(names) / sizeof(*names))
            n += (size_t)snprintf(buf + n, len - n, "%s%s", n ? "|" : "", names[bit]);
        else
            n += (size_t)snprintf(buf + n, len - n, "%sbit%u", n ? "|" : "", bit);
    }
}

static void build_id_hex(const struct perfdata_build_id_entry *b, char *out, size_t len)
{
    size_t n = 0;
    out[0] = '\0';
    for (unsigned i = 0; i < b->size && n + 3 <= len; i++)
        n += (size_t)snprintf(out + n, len - n, "%02x", b->id[i]);
}

static const char *cpumode_str(uint16_t m)
{
    switch (m) {
    case PERF_RECORD_MISC_KERNEL: return "kernel";
    case PERF_RECORD_MISC_USER: return "user";
    case PERF_RECORD_MISC_GUEST_KERNEL: return "guest-kernel";
    case PERF_RECORD_MISC_GUEST_USER: return "guest-user";
    case PERF_RECORD_MISC_HYPERVISOR: return "hypervisor";
    default: return "unknown";
    }
}

static void join_cmdline(const struct perfdata_info *in, char *buf, size_t len)
{
    size_t n = 0;
    buf[0] = '\0';
    for (size_t i = 0; i < in->nr_cmdline && n < len; i++)
        n += (size_t)snprintf(buf + n, len - n, "%s%s", i ? " " : "", in->cmdline[i]);
}

/* Key/value emission for CSV and JSON; text is laid out by hand. */
struct kv {
    FILE *f;
    enum report_format fmt;
    struct json j;
};

static void kv_str(struct kv *kv, const char *key, const char *v)
{
    if (kv->fmt == REPORT_JSON) {
        json_str(&kv->j, key, v);
    } else {
        csv_field(kv->f, key, false);
        csv_field(kv->f, v ? v : "", true);
    }
}

static void kv_u64(struct kv *kv, const char *key, uint64_t v)
{
    if (kv->fmt == REPORT_JSON) {
        json_u64(&kv->j, key, v);
    } else {
        csv_field(kv->f, key, false);
        csv_u64(kv->f, v, true);
    }
}

static void header_machine(struct kv *kv, const struct perfdata *pd)
{
    const struct perfdata_info *in = perfdata_info(pd);
    const struct perfdata_stats *st = perfdata_stats(pd);
    const struct perf_file_header *h = perfdata_header(pd);

    kv_u64(kv, "file_size", perfdata_file_size(pd));
    kv_u64(kv, "data_offset", h->data.offset);
    kv_u64(kv, "data_size", h->data.size);
    kv_str(kv, "version", in->version);
    kv_str(kv, "hostname", in->hostname);
    kv_str(kv, "osrelease", in->osrelease);
    kv_str(kv, "arch", in->arch);
    if (in->has_nrcpus) {
        kv_u64(kv, "nr_cpus_online", in->nr_cpus_online);
        kv_u64(kv, "nr_cpus_avail", in->nr_cpus_avail);
    }
    kv_str(kv, "cpudesc", in->cpudesc);
    kv_str(kv, "cpuid", in->cpuid);
    if (in->total_mem_kb)
        kv_u64(kv, "total_mem_kb", in->total_mem_kb);
    kv_u64(kv, "samples", st->nr_samples);
    if (st->nr_samples) {
        kv_u64(kv, "first_sample_time_ns", st->first_sample_time);
        kv_u64(kv, "last_sample_time_ns", st->last_sample_time);
    }
    kv_u64(kv, "lost", st->lost);
    kv_u64(kv, "lost_samples", st->lost_samples);
    kv_u64(kv, "throttle", st->throttle);
    kv_u64(kv, "unthrottle", st->unthrottle);
    kv_u64(kv, "records", st->nr_records);
    kv_u64(kv, "records_unknown", st->unknown);
    kv_u64(kv, "records_bad", st->bad);
    kv_u64(kv, "records_compressed", st->compressed);
    kv_u64(kv, "truncated", st->truncated);
    kv_u64(kv, "bytes_unread", st->bytes_unread);
}

/* Strings from the file made printable (control characters, malformed UTF-8 as \\xNN), in
 * rotating buffers so a line can hold several. */
struct safe_bufs {
    char b[4][1024];
    unsigned next;
};

static const char *safe_str(struct safe_bufs *sb, const char *s)
{
    return s ? str_printable(s, sb->b[sb->next++ % 4], sizeof(sb->b[0])) : "";
}

static void header_text(FILE *f, const struct perfdata *pd)
{
    const struct perfdata_info *in = perfdata_info(pd);
    const struct perfdata_stats *st = perfdata_stats(pd);
    const struct perf_file_header *h = perfdata_header(pd);
    const struct evlist *evl = perfdata_evlist(pd);
    char buf[4096];
    struct safe_bufs sb;
#define safe(s) safe_str(&sb, s)

    sb.next = 0;
    fprintf(f, "file          %" PRIu64 " bytes; data section %" PRIu64 " bytes at %#" PRIx64 "\n",
            perfdata_file_size(pd), (uint64_t)h->data.size, (uint64_t)h->data.offset);
    if (in->version)
        fprintf(f, "written by    %s%s\n",
                strncmp(in->version, "prospect", 8) ? "perf " : "", safe(in->version));
    if (in->hostname)
        fprintf(f, "host          %s\n", safe(in->hostname));
    if (in->osrelease)
        fprintf(f, "kernel        %s%s%s\n", safe(in->osrelease), in->arch ? " " : "",
                safe(in->arch));
    if (in->has_nrcpus)
        fprintf(f, "cpus          %u online, %u available\n", in->nr_cpus_online,
                in->nr_cpus_avail);
    if (in->cpudesc)
        fprintf(f, "cpu           %s%s%s%s\n", safe(in->cpudesc), in->cpuid ? " (" : "",
                safe(in->cpuid), in->cpuid ? ")" : "");
    if (in->total_mem_kb)
        fprintf(f, "memory        %" PRIu64 " kB\n", in->total_mem_kb);
    if (in->nr_cmdline) {
        join_cmdline(in, buf, sizeof(buf));
        fprintf(f, "cmdline       %s\n", safe(buf));
    }
    fprintf(f, "samples       %" PRIu64 "\n", st->nr_samples);
    if (st->nr_samples > 1)
        fprintf(f, "time          %.6f .. %.6f s (%.3f ms)\n", st->first_sample_time / 1e9,
                st->last_sample_time / 1e9,
                (st->last_sample_time - st->first_sample_time) / 1e6);
    fprintf(f, "lost          %" PRIu64 " events (LOST), %" PRIu64 " samples (LOST_SAMPLES); "
            "throttled %" PRIu64 " times\n", st->lost, st->lost_samples, st->throttle);
    fprintf(f, "records       %" PRIu64 " (%" PRIu64 " unknown, %" PRIu64 " undecodable, %"
            PRIu64 " decompressed from zstd)%s\n", st->nr_records, st->unknown, st->bad,
            st->compressed, st->truncated ? "; stopped early at damage" : "");
    fprintf(f, "events        %zu\n", evl->nr);
    for (size_t i = 0; i < evl->nr; i++) {
        const struct evsel *s = &evl->sel[i];
        sample_type_str(s->attr.sample_type, buf, sizeof(buf));
        fprintf(f, "  %-20s type %u config %#llx %s %llu  sample_type %s  ids %zu  samples %"
                PRIu64 "\n", safe(s->name), s->attr.type, (unsigned long long)s->attr.config,
                s->attr.freq ? "freq" : "period", (unsigned long long)s->attr.sample_period,
                buf, s->nr_ids, st->evsel_samples[i]);
    }
    if (in->nr_build_ids) {
        fprintf(f, "build ids     %zu\n", in->nr_build_ids);
        for (size_t i = 0; i < in->nr_build_ids; i++) {
            build_id_hex(&in->build_ids[i], buf, sizeof(buf));
            fprintf(f, "  %-40s %s\n", buf, safe(in->build_ids[i].path));
        }
    }
    fprintf(f, "features     ");
    for (unsigned bit = 0; bit < PERFDATA_FEAT_BITS; bit++)
        if (in->features[bit / 64] & (1ULL << (bit % 64))) {
            const char *n = perfdata_feature_name(bit);
            if (n)
                fprintf(f, " %s", n);
            else
                fprintf(f, " unknown(bit %u)", bit);
        }
    fputc('\n', f);
#undef safe
}

void report_file_header(FILE *f, const struct perfdata *pd, enum report_format fmt)
{
    const struct perfdata_info *in = perfdata_info(pd);
    const struct perfdata_stats *st = perfdata_stats(pd);
    const struct evlist *evl = perfdata_evlist(pd);
    struct kv kv = { .f = f, .fmt = fmt };
    char buf[4096], key[64];

    if (fmt == REPORT_TEXT) {
        header_text(f, pd);
        return;
    }
    if (fmt == REPORT_JSON) {
        json_init(&kv.j, f);
        json_begin_object(&kv.j, NULL);
    } else {
        csv_field(f, "field", false);
        csv_field(f, "value", true);
    }
    header_machine(&kv, pd);
    if (fmt == REPORT_JSON) {
        json_begin_array(&kv.j, "cmdline");
        for (size_t i = 0; i < in->nr_cmdline; i++)
            json_str(&kv.j, NULL, in->cmdline[i]);
        json_end_array(&kv.j);
        json_begin_array(&kv.j, "events");
    } else {
        join_cmdline(in, buf, sizeof(buf));
        kv_str(&kv, "cmdline", buf);
    }
    for (size_t i = 0; i < evl->nr; i++) {
        const struct evsel *s = &evl->sel[i];
        struct { const char *k; uint64_t v; } nums[] = {
            { "type", s->attr.type }, { "config", s->attr.config },
            { "freq", s->attr.freq }, { "sample_period", s->attr.sample_period },
            { "ids", s->nr_ids }, { "samples", st->evsel_samples[i] },
        };
        sample_type_str(s->attr.sample_type, buf, sizeof(buf));
        if (fmt == REPORT_JSON) {
            json_begin_object(&kv.j, NULL);
            json_str(&kv.j, "name", s->name);
            json_str(&kv.j, "sample_type", buf);
            for (size_t k = 0; k < sizeof(nums) / sizeof(*nums); k++)
                json_u64(&kv.j, nums[k].k, nums[k].v);
            json_end_object(&kv.j);
            continue;
        }
        snprintf(key, sizeof(key), "event.%zu.name", i);
        kv_str(&kv, key, s->name);
        snprintf(key, sizeof(key), "event.%zu.sample_type", i);
        kv_str(&kv, key, buf);
        for (size_t k = 0; k < sizeof(nums) / sizeof(*nums); k++) {
            snprintf(key, sizeof(key), "event.%zu.%s", i, nums[k].k);
            kv_u64(&kv, key, nums[k].v);
        }
    }
    if (fmt == REPORT_JSON) {
        json_end_array(&kv.j);
        json_begin_array(&kv.j, "build_ids");
    }
    for (size_t i = 0; i < in->nr_build_ids; i++) {
        const struct perfdata_build_id_entry *b = &in->build_ids[i];
        build_id_hex(b, buf, sizeof(buf));
        if (fmt == REPORT_JSON) {
            json_begin_object(&kv.j, NULL);
            json_str(&kv.j, "build_id", buf);
            json_str(&kv.j, "path", b->path);
            json_i64(&kv.j, "pid", b->pid);
            json_str(&kv.j, "cpumode", cpumode_str(b->cpumode));
            json_end_object(&kv.j);
            continue;
        }
        snprintf(key, sizeof(key), "build_id.%zu.build_id", i);
        kv_str(&kv, key, buf);
        snprintf(key, sizeof(key), "build_id.%zu.path", i);
        kv_str(&kv, key, b->path);
    }
    if (fmt == REPORT_JSON) {
        json_end_array(&kv.j);
        json_begin_array(&kv.j, "features");
    }
    for (unsigned bit = 0; bit < PERFDATA_FEAT_BITS; bit++) {
        const char *n = perfdata_feature_name(bit);
        if (!(in->features[bit / 64] & (1ULL << (bit % 64))))
            continue;
        if (!n) {
            snprintf(key, sizeof(key), "unknown_bit_%u", bit);
            n = key;
        }
        if (fmt == REPORT_JSON)
            json_str(&kv.j, NULL, n);
        else
            kv_str(&kv, "feature", n);
    }
    if (fmt == REPORT_JSON) {
        json_end_array(&kv.j);
        json_end_object(&kv.j);
        json_finish(&kv.j);
    }
}

void report_record_stats(FILE *f, const struct perfdata *pd, enum report_format fmt)
{
    const struct perfdata_stats *st = perfdata_stats(pd);
    struct json j;

    if (fmt == REPORT_JSON) {
        json_init(&j, f);
        json_begin_object(&j, NULL);
        json_u64(&j, "total", st->nr_records);
        json_begin_array(&j, "records");
    } else if (fmt == REPORT_CSV) {
        fputs("type,name,count\n", f);
    } else {
        fprintf(f, "%20s  %10" PRIu64 "\n", "TOTAL", st->nr_records);
    }
    for (unsigned t = 0; t < PERFDATA_NR_TYPES; t++) {
        const char *name = perfdata_record_name(t);
        if (!st->by_type[t])
            continue;
        if (fmt == REPORT_JSON) {
            json_begin_object(&j, NULL);
            json_u64(&j, "type", t);
            json_str(&j, "name", name);
            json_u64(&j, "count", st->by_type[t]);
            json_end_object(&j);
        } else if (fmt == REPORT_CSV) {
            fprintf(f, "%u,%s,%" PRIu64 "\n", t, name, st->by_type[t]);
        } else {
            fprintf(f, "%20s  %10" PRIu64 "  (%5.1f%%)\n", name, st->by_type[t],
                    100.0 * (double)st->by_type[t] / (double)st->nr_records);
        }
    }
    if (fmt == REPORT_JSON) {
        json_end_array(&j);
        json_end_object(&j);
        json_finish(&j);
    }
}
