/* SPDX-License-Identifier: MIT */
/* Internal to src/symbol/: separate debug info from debuginfod servers, by build-id, through
 * elfutils' libdebuginfod (the servers of $DEBUGINFOD_URLS), when the local lookups found
 * nothing. Downloads go to $DEBUGINFOD_CACHE_PATH, else a private directory of Prospect's
 * (~/.cache/prospect/debuginfod, 0700). After a server cannot be reached, no more queries are
 * sent in this process: one note, not a wait per file. */
#ifndef PROSPECT_SYMBOL_DEBUGINFOD_CLIENT_H
#define PROSPECT_SYMBOL_DEBUGINFOD_CLIENT_H
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Fetches (or finds in the cache) the debug file of this build-id: 0 with its malloc'd path,
 * -ENOSYS when $DEBUGINFOD_URLS is unset or empty, -ENOENT when no server has it, another
 * -errno when the servers could not be asked (unreachable, timeout), -ENOMEM. */
int symbol_debuginfod_fetch(const uint8_t *bid, size_t len, char **path);
/* Sets the environment the first fetch would set ($DEBUGINFOD_CACHE_PATH, the timeout), for
 * a caller about to fetch from several threads: setenv must not run while others getenv. */
void symbol_debuginfod_prepare(void);
#endif
