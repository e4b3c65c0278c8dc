/* SPDX-License-Identifier: MIT */
/* The CUDA emulation (cuda_runtime.h beside this file) launches every block
 * of a cooperative launch at once; the interpreter uses nothing else of the
 * cooperative groups API. */
#ifndef GH_EMU_COOPERATIVE_GROUPS_H
#define GH_EMU_COOPERATIVE_GROUPS_H
#include "cuda_runtime.h"
#endif
