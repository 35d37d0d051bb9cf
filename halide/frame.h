// Per-call device handles of a call frame's buffers (frame.c).
#ifndef RESIDENT_HALIDE_FRAME_H
#define RESIDENT_HALIDE_FRAME_H

#include "shim.h"

int gohl_fbuf_set_device(gohl_ctx *ctx, gohl_buf *b, uint64_t mem, int64_t off);
int gohl_bufs_detach(gohl_ctx *ctx, gohl_buf **bufs, int n);

#endif
