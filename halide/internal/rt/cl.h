// OpenCL glue of package halide (cl.c, opencl.go).
#ifndef RESIDENT_HALIDE_CL_H
#define RESIDENT_HALIDE_CL_H

#include <pthread.h>
#include <stdint.h>
#include "shim.h"

// gohl_cl is one OpenCL device as the Halide runtime sees it: its context
// and in-order queue, and the lock halide_acquire_cl_context holds.
typedef struct gohl_cl {
    void *ctx, *queue;
    pthread_mutex_t mu;
    int64_t acquires;
    int64_t gen;  // bumped when the device closes (atomic): its calls' acquires fail
    char opts[512];       // the device's OpenCL build options (setters.c)
    char opts_all[1024];  // the process-wide ones, then opts
    struct gohl_cl *next;  // the list of live devices (the fallback is the head)
} gohl_cl;

gohl_cl *gohl_cl_open(uintptr_t ctx, uintptr_t queue);
int gohl_cl_close(gohl_cl *cl);
int64_t gohl_cl_acquires(gohl_cl *cl);  // NULL: all devices
int gohl_cl_texture_probe(uintptr_t argv, gohl_frame *f);
int gohl_cl_release_mem(uintptr_t mem);

void gohl_runtime_transfers(int64_t *reads, int64_t *writes);
int gohl_cl_set_opts(gohl_cl *cl, const char *opts);
const char *gohl_build_options(gohl_cl *cl);

#endif
