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
// The call this thread's runtime holds its device for, and that device's
// queue (NULL outside an acquire); an OpenCL entry point by name.
gohl_ctx *gohl_cl_acquired_ctx(void);
void *gohl_cl_acquired_queue(void);
void *gohl_cl_symbol(const char *name);
// gohl_cl_set_hooks lets a layer above wrap the entry points the runtime
// resolves (wrap returns what the runtime gets for sym) and hear of the
// runtime's own transfers (note).
typedef void *(*gohl_cl_wrap_fn)(const char *name, void *sym);
typedef void (*gohl_cl_note_fn)(const char *what);
void gohl_cl_set_hooks(gohl_cl_wrap_fn wrap, gohl_cl_note_fn note);
int gohl_cl_set_opts(gohl_cl *cl, const char *opts);
const char *gohl_build_options(gohl_cl *cl);

#endif
