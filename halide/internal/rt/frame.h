// Device handles of a call frame's buffers (frame.c).
#ifndef RESIDENT_HALIDE_FRAME_H
#define RESIDENT_HALIDE_FRAME_H

#include "shim.h"

int gohl_bufs_drop_crops(gohl_ctx *ctx, gohl_buf **bufs, int n);
void gohl_fbufs_free(gohl_buf **bufs, int n);

#endif
