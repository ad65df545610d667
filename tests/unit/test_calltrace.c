/* SPDX-License-Identifier: MIT */
/* Library-call tracing (src/calltrace/): ltrace-like formatting, -e specs, the summary, and the
 * collector against rings a traced program could have damaged. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <unistd.h>
#include "calltrace/callfmt.h"
#include "calltrace/collect.h"
#include "calltrace/funcsel.h"
#include "calltrace/nest.h"
#include "calltrace/protoconf.h"
#include "calltrace/summary.h"
#include "intarget/calltrace_abi.h"
#include "test.h"

static struct ct_call call(unsigned f, uint64_t a0, uint64_t a1, uint64_t a2, uint64_t ret)
{
    struct ct_call k;
    memset(&k, 0, sizeof(k));
    k.func = f;
    k.args[0] = a0;
    k.args[1] = a1;
    k.args[2] = a2;
    k.ret = ret;
    return k;
}

static void set_str(struct ct_call *k, unsigned i, const char *s, int cut)
{
    size_t n = strlen(s);
    k->str[i][0] = (uint8_t)(n | (cut ? 0x80 : 0));
    memcpy(k->str[i] + 1, s, n);
    if (k->nstr < i + 1)
        k->nstr = i + 1;
    k->strarg |= (uint8_t)(1u << i);    /* here the i-th string is the i-th argument's */
}

static void set_rstr(struct ct_call *k, const char *s)
{
    k->rstr[0] = (uint8_t)strlen(s);
    memcpy(k->rstr + 1, s, strlen(s));
    k->has_rstr = true;
}

TEST(format_like_ltrace)
{
    char a[256], r[64];
    struct ct_call k = call(CT_F_calloc, 5, 8, 0, 0x5627cc530340);
    ct_format_args(&k, a, sizeof(a));
    ct_format_ret(&k, r, sizeof(r));
    CHECK_STR(a, "5, 8");
    CHECK_STR(r, "0x5627cc530340");
    k = call(CT_F_free, 0, 0, 0, 0);
    ct_format_args(&k, a, sizeof(a));
    ct_format_ret(&k, r, sizeof(r));
    CHECK_STR(a, "0");
    CHECK_STR(r, "<void>");
    k = call(CT_F_memset, 0x7ffc, 0, 10, 0x7ffc);
    ct_format_args(&k, a, sizeof(a));
    CHECK_STR(a, "0x7ffc, '\\0', 10");
    k = call(CT_F_open, 1, 65, 0644, 3);
    set_str(&k, 0, "/tmp/x", 0);
    ct_format_args(&k, a, sizeof(a));
    CHECK_STR(a, "\"/tmp/x\", 65, 0644");
    k = call(CT_F_strchr, 1, 'z', 0, 0);
    set_str(&k, 0, "aaa\naaaa", 1);
    ct_format_args(&k, a, sizeof(a));
    ct_format_ret(&k, r, sizeof(r));
    CHECK_STR(a, "\"aaa\\naaaa\"..., 'z'");
    CHECK_STR(r, "nil");
    k = call(CT_F_read, (uint64_t)-1, 0x10, 4, (uint64_t)-1);
    ct_format_args(&k, a, sizeof(a));
    ct_format_ret(&k, r, sizeof(r));
    CHECK_STR(a, "-1, 0x10, 4");
    CHECK_STR(r, "-1");
}

/* Returned strings as text (strdup's copy, strchr's match), NULL as nil, and a string the
 * engine did not keep as its address. */
TEST(format_returned_strings)
{
    char a[256], r[64];
    struct ct_call k = call(CT_F_strdup, 0x1000, 0, 0, 0x2000);
    set_str(&k, 0, "x", 0);
    set_rstr(&k, "x");
    ct_format_args(&k, a, sizeof(a));
    ct_format_ret(&k, r, sizeof(r));
    CHECK_STR(a, "\"x\"");
    CHECK_STR(r, "\"x\"");
    k.has_rstr = false;
    k.strarg = 0;
    ct_format_args(&k, a, sizeof(a));
    ct_format_ret(&k, r, sizeof(r));
    CHECK_STR(a, "0x1000");
    CHECK_STR(r, "0x2000");
    k = call(CT_F_strchr, 0x1000, '/', 0, 0x1004);
    set_str(&k, 0, "/etc/passwd", 0);
    set_rstr(&k, "/passwd");
    ct_format_ret(&k, r, sizeof(r));
    CHECK_STR(r, "\"/passwd\"");
}

/* -F declarations replace a built-in's prototype (as ltrace's later files do); the strings
 * the engine kept still go to their own arguments. */
TEST(format_builtins_by_declared_prototypes)
{
    char a[256], r[64], err[256];
    ct_protoconf_reset();
    CHECK(!ct_protoconf_builtin(err, sizeof(err)));
    CHECK(!ct_protoconf_add("hex strlen(addr);\nint strcmp(addr, string);\n", "u.conf", err,
                            sizeof(err)));
    struct ct_call k = call(CT_F_strlen, 0x1000, 0, 0, 3);
    set_str(&k, 0, "abc", 0);
    ct_format_args(&k, a, sizeof(a));
    ct_format_ret(&k, r, sizeof(r));
    CHECK_STR(a, "0x1000");
    CHECK_STR(r, "0x3");
    k = call(CT_F_strcmp, 0x1000, 0x2000, 0, 0);
    set_str(&k, 0, "a", 0);
    set_str(&k, 1, "b", 0);
    ct_format_args(&k, a, sizeof(a));
    CHECK_STR(a, "0x1000, \"b\"");
    ct_protoconf_reset();
    k = call(CT_F_strlen, 0x1000, 0, 0, 3);
    set_str(&k, 0, "abc", 0);
    ct_format_args(&k, a, sizeof(a));
    ct_format_ret(&k, r, sizeof(r));
    CHECK_STR(a, "\"abc\"");
    CHECK_STR(r, "3");
}

TEST(format_never_trusts_lengths)
{
    char a[256];
    struct ct_call k = call(CT_F_strlen, 1, 0, 0, 3);
    memset(k.str[0], 'x', sizeof(k.str[0]));
    k.str[0][0] = 0x7f;            /* a length past the field: cut at CT_STR_MAX */
    k.nstr = 1;
    k.strarg = 1;
    ct_format_args(&k, a, sizeof(a));
    CHECK_EQ_U64(strlen(a), CT_STR_MAX + 2);
    k.str[0][0] = 0xff;            /* NULL */
    ct_format_args(&k, a, sizeof(a));
    CHECK_STR(a, "nil");
    char e[64];
    const uint8_t raw[] = { 'a', '"', '\\', 0x01, 0xe9 };
    ct_escape(raw, sizeof(raw), e, sizeof(e));
    CHECK_STR(e, "a\"\\\\\\001\\351");
}

TEST(filter_specs)
{
    uint64_t m = 0;
    char err[256];
    CHECK(!ct_funcsel_parse("malloc+free", &m, err, sizeof(err)));
    CHECK_EQ_U64(m, (1ull << CT_F_malloc) | (1ull << CT_F_free));
    m = 0;
    CHECK(!ct_funcsel_parse("libc:mem*", &m, err, sizeof(err)));
    CHECK_EQ_U64(m, (1ull << CT_F_memcpy) | (1ull << CT_F_memmove) | (1ull << CT_F_memset) |
                 (1ull << CT_F_memcmp) | (1ull << CT_F_memalign));
    m = 0;
    CHECK(!ct_funcsel_parse("pthread_mutex_*@libc.so.6", &m, err, sizeof(err)));
    CHECK_EQ_U64(m, (1ull << CT_F_pthread_mutex_lock) | (1ull << CT_F_pthread_mutex_trylock) |
                 (1ull << CT_F_pthread_mutex_unlock));
    CHECK(ct_funcsel_parse("libfoo.so:bar", &m, err, sizeof(err)) == -EINVAL);
    CHECK(strstr(err, "only libc's built-in functions") != NULL);
    CHECK(ct_funcsel_parse("nosuch", &m, err, sizeof(err)) == -EINVAL);
    CHECK(ct_funcsel_parse("malloc++", &m, err, sizeof(err)) == 0);
    CHECK(ct_funcsel_parse("", &m, err, sizeof(err)) == -EINVAL);
}

TEST(summary_sizes)
{
    struct ct_summary *s = ct_summary_new();
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    CHECK(s && f);
    for (int i = 0; i < 30; i++) {
        struct ct_call k = call(CT_F_malloc, 144, 0, 0, 1);
        CHECK(!ct_summary_add(s, &k, 10));
    }
    struct ct_call k = call(CT_F_calloc, 5, 8, 0, 1);
    CHECK(!ct_summary_add(s, &k, 40));
    ct_summary_print(s, f, 10);
    fclose(f);
    CHECK(strstr(buf, "malloc                             30          0.300         10.0") != NULL);
    CHECK(strstr(buf, "                   144           30  96.77%") != NULL);
    CHECK(strstr(buf, "                    40            1   3.23%") != NULL);
    CHECK(strstr(buf, "               128-255           30") != NULL);
    free(buf);
    ct_summary_free(s);
}

/* ---- the collector against hand-made rings ---- */
struct got {
    struct ct_call k[8];
    size_t n;
};

static int on_batch(void *arg, const struct ct_call *calls, size_t n)
{
    struct got *g = arg;
    for (size_t i = 0; i < n && g->n < 8; i++)
        g->k[g->n++] = calls[i];
    return 0;
}

/* Sends a ring of nslots (made here) as process pid, thread tid; returns its mapping. */
static struct ct_ring_hdr *send_ring(int sock, uint32_t tid, uint32_t nslots, uint32_t hello_n)
{
    size_t size = CT_HDR_SIZE + (size_t)nslots * CT_SLOT_SIZE;
    int fd = memfd_create("t", MFD_CLOEXEC);
    if (fd < 0 || ftruncate(fd, (off_t)size))
        return NULL;
    struct ct_ring_hdr *r = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    if (r == MAP_FAILED)
        return NULL;
    r->magic = CT_MAGIC;
    r->nslots = nslots;
    r->pid = 1;
    r->tid = tid;
    struct ct_hello h = { CT_MAGIC, 1, tid, hello_n, 0 };
    char cbuf[CMSG_SPACE(sizeof(int))] __attribute__((aligned(8)));
    struct iovec iov = { &h, sizeof(h) };
    struct msghdr msg = { .msg_iov = &iov, .msg_iovlen = 1, .msg_control = cbuf,
                          .msg_controllen = sizeof(cbuf) };
    struct cmsghdr *c = CMSG_FIRSTHDR(&msg);
    c->cmsg_level = SOL_SOCKET;
    c->cmsg_type = SCM_RIGHTS;
    c->cmsg_len = CMSG_LEN(sizeof(int));
    memcpy(CMSG_DATA(c), &fd, sizeof(int));
    if (sendmsg(sock, &msg, 0) != sizeof(h))
        return NULL;
    close(fd);
    return r;
}

static int command_end(struct ct_collect *c)
{
    /* "PROSPECT_CALLTRACE=1,<fd>,..." */
    return atoi(strchr(ct_collect_env(c), ',') + 1);
}

TEST(collector_merges_threads_in_time_order)
{
    struct ct_collect *c = ct_collect_new(~0ull, false);
    struct got g = { .n = 0 };
    bool eof;
    CHECK(c);
    ct_collect_set_fns(c, NULL, on_batch, &g);
    int sock = command_end(c);
    struct ct_ring_hdr *a = send_ring(sock, 10, 16, 16), *b = send_ring(sock, 11, 16, 16);
    CHECK(a && b);
    struct ct_slot *sa = (void *)((char *)a + CT_HDR_SIZE), *sb = (void *)((char *)b + CT_HDR_SIZE);
    sa[0] = (struct ct_slot){ .t0 = 100, .t1 = 110, .func = CT_F_malloc, .args = { 144 } };
    sa[1] = (struct ct_slot){ .t0 = 300, .t1 = 310, .func = CT_F_strlen, .flags = 1 };
    memcpy(&sa[2], "\003abc", 4);
    a->head = 3;
    sb[0] = (struct ct_slot){ .t0 = 200, .t1 = 210, .func = CT_F_free, .args = { 7 } };
    /* strdup: its argument's string, then the returned one */
    sb[1] = (struct ct_slot){ .t0 = 400, .t1 = 410, .func = CT_F_strdup,
                              .flags = 2 | CT_SF_RETSTR };
    memcpy(&sb[2], "\001x", 2);
    memcpy(&sb[3], "\001y", 2);
    b->head = 4;
    CHECK(!ct_collect_poll(c, 0, -1, &eof));
    CHECK_EQ_U64(g.n, 4);
    CHECK_EQ_U64(g.k[3].func, CT_F_strdup);
    CHECK_EQ_U64(g.k[3].nstr, 1);
    CHECK_EQ_U64(g.k[3].strarg, 1);
    CHECK(!memcmp(g.k[3].str[0], "\001x", 2));
    CHECK(g.k[3].has_rstr && !memcmp(g.k[3].rstr, "\001y", 2));
    CHECK_EQ_U64(g.k[0].t0, 100);
    CHECK_EQ_U64(g.k[0].tid, 10);
    CHECK_EQ_U64(g.k[1].t0, 200);
    CHECK_EQ_U64(g.k[1].tid, 11);
    CHECK_EQ_U64(g.k[2].func, CT_F_strlen);
    CHECK_EQ_U64(g.k[2].nstr, 1);
    CHECK_EQ_U64(g.k[2].strarg, 1);
    CHECK(!memcmp(g.k[2].str[0], "\003abc", 4));
    CHECK(!g.k[2].has_rstr);
    CHECK_EQ_U64(a->tail, 3);       /* room given back */
    CHECK_EQ_U64(a->acked, 1);      /* the thread may go on */
    CHECK_EQ_U64(ct_collect_lost(c), 0);
    CHECK_EQ_U64(ct_collect_nbad(c), 0);
    ct_collect_free(c);
}

TEST(collector_drops_damaged_rings)
{
    struct ct_collect *c = ct_collect_new(~0ull, false);
    struct got g = { .n = 0 };
    bool eof;
    CHECK(c);
    ct_collect_set_fns(c, NULL, on_batch, &g);
    int sock = command_end(c);
    /* head beyond the ring; a call whose string slot is not published; a size that lies;
     * a function id out of range (lost, not shown); a returned string without its slot. */
    struct ct_ring_hdr *a = send_ring(sock, 1, 16, 16), *b = send_ring(sock, 2, 16, 16);
    struct ct_ring_hdr *d = send_ring(sock, 3, 16, 16), *r = send_ring(sock, 5, 16, 16);
    CHECK(a && b && d && r && send_ring(sock, 4, 16, 32));
    struct ct_slot *sr = (void *)((char *)r + CT_HDR_SIZE);
    sr[0] = (struct ct_slot){ .t0 = 1, .func = CT_F_strdup, .flags = CT_SF_RETSTR };
    r->head = 2;
    a->head = 1000;
    struct ct_slot *sb = (void *)((char *)b + CT_HDR_SIZE), *sd = (void *)((char *)d + CT_HDR_SIZE);
    sb[0] = (struct ct_slot){ .t0 = 1, .func = CT_F_strlen, .flags = 2 };
    b->head = 1;
    sd[0] = (struct ct_slot){ .t0 = 1, .func = 9999 };
    sd[1] = (struct ct_slot){ .t0 = 2, .func = CT_F_malloc };
    d->head = 2;
    CHECK(!ct_collect_poll(c, 0, -1, &eof));
    CHECK_EQ_U64(g.n, 1);
    CHECK_EQ_U64(g.k[0].func, CT_F_malloc);
    CHECK_EQ_U64(ct_collect_nbad(c), 4);
    CHECK_EQ_U64(ct_collect_lost(c), 4);   /* b's published call, d's bad id, r's two slots */
    ct_collect_free(c);
}

/* -n's depth: a call inside another of the same thread is one deeper; a call after the
 * outer one returned is back at 0; threads do not nest in each other. */
TEST(nesting_depth_per_thread)
{
    struct ct_nest *n = ct_nest_new();
    CHECK(n);
    CHECK_EQ_U64(ct_nest_depth(n, 7, 100, 200), 0);      /* fopen */
    CHECK_EQ_U64(ct_nest_depth(n, 7, 110, 120), 1);      /*   malloc */
    CHECK_EQ_U64(ct_nest_depth(n, 7, 121, 150), 1);      /*   malloc */
    CHECK_EQ_U64(ct_nest_depth(n, 7, 130, 140), 2);      /*     inside that one */
    CHECK_EQ_U64(ct_nest_depth(n, 8, 130, 140), 0);      /* another thread meanwhile */
    CHECK_EQ_U64(ct_nest_depth(n, 7, 200, 210), 0);      /* after fopen returned */
    for (uint32_t tid = 1; tid < 100; tid++)             /* many threads: the table grows */
        CHECK_EQ_U64(ct_nest_depth(n, tid, 1000, 2000), 0);
    CHECK_EQ_U64(ct_nest_depth(n, 7, 1500, 1600), 1);
    ct_nest_free(n);
}

int main(void)
{
    RUN(format_like_ltrace);
    RUN(format_returned_strings);
    RUN(format_builtins_by_declared_prototypes);
    RUN(format_never_trusts_lengths);
    RUN(filter_specs);
    RUN(summary_sizes);
    RUN(nesting_depth_per_thread);
    RUN(collector_merges_threads_in_time_order);
    RUN(collector_drops_damaged_rings);
    return 0;
}
