// C side of package halide's CUDA pipelines (cuda.go): Halide's CUDA
// runtime runs a call on the call's CUDA Device, its primary context and
// its stream, and counts the copies it makes by itself.
#ifndef RESIDENT_HALIDE_CUDA_H
#define RESIDENT_HALIDE_CUDA_H

#include <stdint.h>
#include "shim.h"

// gohl_cu is one CUDA Device as the Halide runtime sees it: its CUcontext
// and CUstream. Retired ones are kept and reused, so a late acquire never
// reads freed memory; gen tells a reused one from the one a call chose.
typedef struct gohl_cu {
    void *ctx, *stream;  // atomic
    int64_t gen;         // bumped when the device closes (atomic)
    int64_t acquires;    // the runtime's acquires for it (atomic)
    struct gohl_cu *next;
} gohl_cu;

gohl_cu *gohl_cu_open(uintptr_t ctx, uintptr_t stream);
void gohl_cu_close(gohl_cu *cu);
int64_t gohl_cu_acquires(gohl_cu *cu);  // NULL: all devices
void gohl_cu_bind(gohl_ctx *c, gohl_cu *cu);
void gohl_cu_runtime_transfers(int64_t *reads, int64_t *writes);

// gohl_cu_buf_set_device points b at the CUdeviceptr ptr (a root plus the
// view's byte offset: CUDA device pointers take offsets as they are).
int gohl_cu_buf_set_device(gohl_ctx *ctx, gohl_buf *b, uint64_t ptr);

#endif
