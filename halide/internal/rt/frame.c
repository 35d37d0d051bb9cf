#include <stdlib.h>

#include "frame.h"

// A call frame's buffer gets its device handle in prepare
// (gohl_buf_set_device, skipped by the Go side when the cl_mem and offset
// are those of the frame's previous call) and is used by one call at a
// time. What keeps the cl_mem valid during a call is not a reference held
// here but the call's use of its Arrays (an allocation let go under a use
// is freed when the use ends) and its device's gate (a closing device
// waits for the calls inside before it releases memory): see opencl.go.
//
// A wrapped handle ({cl_mem}, offset 0) is a value: it owns nothing, so
// it stays in the frame between calls, even after its cl_mem is freed
// (a later call with another cl_mem re-wraps). A crop handle (an offset)
// is a runtime allocation holding a reference on its cl_mem: it is
// dropped at the end of every call (gohl_bufs_drop_crops), so a pooled
// frame never keeps device memory alive.

int gohl_bufs_drop_crops(gohl_ctx *ctx, gohl_buf **bufs, int n) {
    int first = 0;
    for (int i = 0; i < n; i++) {
        if (bufs[i]->kind != GOHL_DEV_CROP) continue;
        int r = gohl_buf_detach(ctx, bufs[i]);
        if (r && !first) first = r;
    }
    return first;
}

// gohl_fbufs_free detaches and frees a dropped frame's buffers.
void gohl_fbufs_free(gohl_buf **bufs, int n) {
    gohl_ctx ctx;
    gohl_ctx_init(&ctx);
    for (int i = 0; i < n; i++) {
        if (!bufs[i]) continue;
        gohl_buf_detach(&ctx, bufs[i]);
        gohl_buf_free(bufs[i]);
    }
}
