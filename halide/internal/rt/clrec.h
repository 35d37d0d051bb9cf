// The kernels an OpenCL pipeline call queues while its device records a
// capture (clrec.c), for package device/capture to replay.
#ifndef RESIDENT_HALIDE_CLREC_H
#define RESIDENT_HALIDE_CLREC_H

#include <stddef.h>
#include <stdint.h>

#define GOHL_CLREC_ARGS 64

// gohl_cllaunch is one clEnqueueNDRangeKernel of the runtime: the kernel
// (a reference the record owns), its grid, and its arguments: size, and
// the value where it is at most 8 bytes (has set; not for local memory).
typedef struct gohl_cllaunch {
    void *kernel;
    uint32_t dims, has_local;
    uint64_t global[3], local[3];
    int32_t nargs;
    uint32_t size[GOHL_CLREC_ARGS];
    uint8_t has[GOHL_CLREC_ARGS];
    uint64_t val[GOHL_CLREC_ARGS];
} gohl_cllaunch;

// gohl_clrec is what one call recorded. mems are cl_mems the runtime made
// (its device temporaries, the sub-buffers of crops) that a launch used:
// the record owns one reference to each. err is nonzero when the call did
// something a replay would not redo (a transfer of its own), with why.
typedef struct gohl_clrec {
    int32_t n, cap;
    gohl_cllaunch *l;
    int32_t nmems, capmems;
    void **mems;
    int32_t err;
    char why[160];
} gohl_clrec;

gohl_clrec *gohl_clrec_new(void);
// gohl_clrec_reset forgets r's launches and mems: their references are the
// caller's now. gohl_clrec_free releases what r still owns, then r.
void gohl_clrec_reset(gohl_clrec *r);
void gohl_clrec_free(gohl_clrec *r);
// gohl_clrec_release drops a reference a record handed over (a kernel's,
// else a cl_mem's). Replays queue the kernels through device/opencl.
int gohl_clrec_release(uintptr_t h, int kernel);
// gohl_clrec_owned is the number of kernel and cl_mem references records
// have taken and nobody has released yet (tests: nothing leaks).
int64_t gohl_clrec_owned(void);

#endif
