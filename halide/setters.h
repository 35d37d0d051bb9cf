// Halide's runtime setters honoured beside the library's overrides
// (setters.c, setters.go).
#ifndef RESIDENT_HALIDE_SETTERS_H
#define RESIDENT_HALIDE_SETTERS_H

#include <stdio.h>
#include "HalideRuntime.h"
#include "shim.h"

halide_error_handler_t gohl_c_error_handler(void);
void gohl_c_print(void *uc, const char *msg);
int32_t gohl_c_trace(void *uc, const struct halide_trace_event_t *e);
void gohl_refuse_features(int word, uint64_t bits);
int gohl_cl_set_opts(gohl_cl *cl, const char *opts);
const char *gohl_build_options(gohl_cl *cl);

#endif
