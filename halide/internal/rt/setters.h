// Halide's runtime setters honoured beside the library's overrides
// (setters.c, setters.go).
#ifndef RESIDENT_HALIDE_SETTERS_H
#define RESIDENT_HALIDE_SETTERS_H

#include <stdint.h>
#include "HalideRuntime.h"
#include "ctx.h"

void gohl_c_print(void *uc, const char *msg);
int32_t gohl_c_trace(void *uc, const struct halide_trace_event_t *e);

#endif
