/* SPDX-License-Identifier: MIT */
/* gc_status: names of the status codes. */
#include "gc_status.h"

const char *gc_status_str(gc_status st)
{
	switch (st) {
	case GC_OK: return "ok";
	case GC_ERR_INTERNAL: return "internal error";
	case GC_ERR_INPUT: return "input error";
	case GC_ERR_NODEV: return "no device";
	case GC_ERR_IO: return "i/o error";
	case GC_ERR_UNSUPPORTED: return "unsupported";
	case GC_ERR_DEADLOCK: return "deadlock";
	case GC_ERR_NOMEM: return "out of memory";
	}
	return "unknown status";
}
