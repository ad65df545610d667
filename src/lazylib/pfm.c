/* SPDX-License-Identifier: MIT */
/* libpfm4, loaded with dlopen at the first pfm_initialize (an event name to encode, `list`)
 * rather than at every startup: its event tables are ~41k relocations (2.1 MB of RSS, 1 MB of
 * it private). These definitions stand in for the library's own (same names and prototypes,
 * from its header), so the callers are unchanged; without the library every call reports
 * PFM_ERR_NOINIT, as libpfm4 does before a successful pfm_initialize. */
#define LOG_PREFIX "libpfm4"
#include <perfmon/pfmlib.h>
#include "lazylib/lazylib.h"
#include "util/dlib.h"
#include "util/log.h"

static const char *const names[] = {
    "pfm_initialize", "pfm_terminate", "pfm_strerror", "pfm_get_pmu_info", "pfm_get_event_next",
    "pfm_get_event_info", "pfm_get_event_attr_info", "pfm_get_os_event_encoding",
};
static struct {
    __typeof__(pfm_initialize) *initialize;
    __typeof__(pfm_terminate) *terminate;
    __typeof__(pfm_strerror) *strerror;
    __typeof__(pfm_get_pmu_info) *get_pmu_info;
    __typeof__(pfm_get_event_next) *get_event_next;
    __typeof__(pfm_get_event_info) *get_event_info;
    __typeof__(pfm_get_event_attr_info) *get_event_attr_info;
    __typeof__(pfm_get_os_event_encoding) *get_os_event_encoding;
} fn;
static struct dlib lib = DLIB_INIT("libpfm.so.4", names, &fn);

pfm_err_t pfm_initialize(void)
{
    if (dlib_open(&lib)) {
        pr_debug("%s", lib.why);
        return PFM_ERR_NOINIT;
    }
    return fn.initialize();
}

void pfm_terminate(void)
{
    if (fn.terminate)
        fn.terminate();
}

const char *pfm_strerror(int code)
{
    return fn.strerror ? fn.strerror(code) : "libpfm4 (libpfm.so.4) cannot be loaded";
}

pfm_err_t pfm_get_pmu_info(pfm_pmu_t pmu, pfm_pmu_info_t *output)
{
    return fn.get_pmu_info ? fn.get_pmu_info(pmu, output) : PFM_ERR_NOINIT;
}

int pfm_get_event_next(int idx)
{
    return fn.get_event_next ? fn.get_event_next(idx) : -1;
}

pfm_err_t pfm_get_event_info(int idx, pfm_os_t os, pfm_event_info_t *output)
{
    return fn.get_event_info ? fn.get_event_info(idx, os, output) : PFM_ERR_NOINIT;
}

pfm_err_t pfm_get_event_attr_info(int eidx, int aidx, pfm_os_t os,
                                  pfm_event_attr_info_t *output)
{
    return fn.get_event_attr_info ? fn.get_event_attr_info(eidx, aidx, os, output)
                                  : PFM_ERR_NOINIT;
}

pfm_err_t pfm_get_os_event_encoding(const char *str, int dfl_plm, pfm_os_t os, void *args)
{
    return fn.get_os_event_encoding ? fn.get_os_event_encoding(str, dfl_plm, os, args)
                                    : PFM_ERR_NOINIT;
}

const char *lazylib_pfm_missing(void)
{
    return lib.state < 0 ? lib.why : NULL;
}
