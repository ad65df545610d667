/* SPDX-License-Identifier: MIT */
/* A small protocol-buffers encoder, enough for pprof's profile.proto: varints (wire type 0)
 * and length-delimited fields (type 2: strings, bytes, packed repeated varints, nested
 * messages). A message is built in its own buffer and appended to its parent with its
 * length, as the wire format wants the length first.
 * Wire format: https://protobuf.dev/programming-guides/encoding/ */
#ifndef PROSPECT_REPORT_PBWIRE_H
#define PROSPECT_REPORT_PBWIRE_H
#include <stddef.h>
#include <stdint.h>

struct pbuf {
    uint8_t *p;
    size_t n, cap;
    int err;                  /* the first -ENOMEM; later writes do nothing */
};

void pb_reset(struct pbuf *b);            /* empty, keeping the memory */
void pb_release(struct pbuf *b);
void pb_varint(struct pbuf *b, uint64_t v);
/* Field `field` as a varint; 0 is left out (proto3's default). */
void pb_uint(struct pbuf *b, uint32_t field, uint64_t v);
void pb_bytes(struct pbuf *b, uint32_t field, const void *p, size_t n);
void pb_string(struct pbuf *b, uint32_t field, const char *s);
/* Appends message m as field `field` of b. */
void pb_message(struct pbuf *b, uint32_t field, const struct pbuf *m);
#endif
