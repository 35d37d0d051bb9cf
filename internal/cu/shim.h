// Our own declarations of the few CUDA driver API and cuBLAS entry points
// package cu calls, resolved at run time with dlopen/dlsym (no CUDA headers
// or libraries at build time). Numbers and layouts are those of cuda.h and
// cublas_api.h; names keep the driver's versioned symbols (_v2).
#ifndef RESIDENT_CU_SHIM_H
#define RESIDENT_CU_SHIM_H

#include <stddef.h>
#include <stdint.h>

typedef int rcu_result;                /* CUresult; cublasStatus_t for rcu_blas_* */
typedef int rcu_device;                /* CUdevice */
typedef unsigned long long rcu_dptr;   /* CUdeviceptr */
/* Handles cross into Go as integers (Go code never holds C pointers as
   pointers); the shim casts them back. */
typedef uintptr_t rcu_ctx;             /* CUcontext */
typedef uintptr_t rcu_stream;          /* CUstream */
typedef uintptr_t rcu_event;           /* CUevent */
typedef uintptr_t rcu_blas;            /* cublasHandle_t */
typedef uintptr_t rcu_module;          /* CUmodule */
typedef uintptr_t rcu_func;            /* CUfunction */

/* Loading: 0 on success, else a message in err. */
int rcu_load(char *err, size_t n);
int rcu_load_blas(char *err, size_t n);
int rcu_load_nvrtc(char *err, size_t n);

rcu_result rcu_init(void);
rcu_result rcu_driver_version(int *v);
rcu_result rcu_device_count(int *n);
rcu_result rcu_device_get(int ordinal, rcu_device *d);
rcu_result rcu_device_name(rcu_device d, char *buf, int n);
rcu_result rcu_device_attr(rcu_device d, int attr, int *v);
rcu_result rcu_device_total_mem(rcu_device d, size_t *bytes);
rcu_result rcu_primary_retain(rcu_device d, rcu_ctx *ctx);
rcu_result rcu_primary_release(rcu_device d);
void rcu_error_text(rcu_result r, char *buf, size_t n);

/* Every call below makes ctx current on the calling thread first: a
   goroutine may change threads between two cgo calls. */
rcu_result rcu_mem_alloc(rcu_ctx ctx, rcu_dptr *p, size_t n);
rcu_result rcu_mem_free(rcu_ctx ctx, rcu_dptr p);
rcu_result rcu_mem_info(rcu_ctx ctx, size_t *free, size_t *total);
rcu_result rcu_host_alloc(rcu_ctx ctx, void **p, size_t n, unsigned flags);
rcu_result rcu_host_free(rcu_ctx ctx, void *p);
rcu_result rcu_htod(rcu_ctx ctx, rcu_dptr dst, const void *src, size_t n, rcu_stream s);
rcu_result rcu_dtoh(rcu_ctx ctx, void *dst, rcu_dptr src, size_t n, rcu_stream s);
rcu_result rcu_dtod(rcu_ctx ctx, rcu_dptr dst, rcu_dptr src, size_t n, rcu_stream s);
/* kind: 0 host to device, 1 device to host, 2 device to device. */
rcu_result rcu_copy2d(rcu_ctx ctx, int kind, rcu_dptr dev, rcu_dptr dev2, void *host,
                      size_t dpitch, size_t spitch, size_t width, size_t height, rcu_stream s);
rcu_result rcu_memset8(rcu_ctx ctx, rcu_dptr dst, unsigned char v, size_t n, rcu_stream s);
rcu_result rcu_stream_create(rcu_ctx ctx, rcu_stream *s, unsigned flags);
rcu_result rcu_stream_sync(rcu_ctx ctx, rcu_stream s);
rcu_result rcu_stream_destroy(rcu_ctx ctx, rcu_stream s);
rcu_result rcu_stream_wait(rcu_ctx ctx, rcu_stream s, rcu_event e);
rcu_result rcu_event_create(rcu_ctx ctx, rcu_event *e, unsigned flags);
rcu_result rcu_event_record(rcu_ctx ctx, rcu_event e, rcu_stream s);
rcu_result rcu_event_sync(rcu_ctx ctx, rcu_event e);
rcu_result rcu_event_query(rcu_ctx ctx, rcu_event e);
rcu_result rcu_event_elapsed(rcu_ctx ctx, float *ms, rcu_event a, rcu_event b);
rcu_result rcu_event_destroy(rcu_ctx ctx, rcu_event e);

/* cuBLAS (status codes, not CUresults). */
rcu_result rcu_blas_create(rcu_ctx ctx, rcu_blas *h);
rcu_result rcu_blas_destroy(rcu_ctx ctx, rcu_blas h);
rcu_result rcu_blas_set_stream(rcu_ctx ctx, rcu_blas h, rcu_stream s);
rcu_result rcu_blas_version(rcu_blas h, int *v);
void rcu_blas_status_text(rcu_result r, char *buf, size_t n);
/* C = op(A)·op(B) column-major, batch > 1 with element strides between
   matrices; alpha 1, beta 0 in the compute type's scalar type. */
rcu_result rcu_blas_gemm(rcu_ctx ctx, rcu_blas h, int transa, int transb, int m, int n, int k,
                         rcu_dptr a, int atype, int lda, long long sa,
                         rcu_dptr b, int btype, int ldb, long long sb,
                         rcu_dptr c, int ctype, int ldc, long long sc,
                         int batch, int compute);

/* Modules and launches. */
rcu_result rcu_module_load(rcu_ctx ctx, rcu_module *m, const void *image);
rcu_result rcu_module_unload(rcu_ctx ctx, rcu_module m);
rcu_result rcu_module_function(rcu_ctx ctx, rcu_func *f, rcu_module m, const char *name);
/* Not every driver has cuFuncGetParamInfo (12.4 and later): then
   CUDA_ERROR_NOT_SUPPORTED. */
rcu_result rcu_func_param_info(rcu_ctx ctx, rcu_func f, size_t i, size_t *off, size_t *size);
rcu_result rcu_func_set_attr(rcu_ctx ctx, rcu_func f, int attr, int v);
/* Parameter i's value is at blob + offs[i] (n parameters); the driver
   copies them before it returns. */
rcu_result rcu_launch(rcu_ctx ctx, rcu_func f, unsigned gx, unsigned gy, unsigned gz,
                      unsigned bx, unsigned by, unsigned bz, unsigned shared, rcu_stream s,
                      void *blob, const int *offs, int n);

/* Stream capture and graphs (optional entry points: CUDA_ERROR_NOT_SUPPORTED
   where the driver lacks them). mode: CUstreamCaptureMode. */
typedef uintptr_t rcu_graph;           /* CUgraph */
typedef uintptr_t rcu_exec;            /* CUgraphExec */
typedef uintptr_t rcu_node;            /* CUgraphNode */
rcu_result rcu_capture_begin(rcu_ctx ctx, rcu_stream s, int mode);
rcu_result rcu_capture_end(rcu_ctx ctx, rcu_stream s, rcu_graph *g);
rcu_result rcu_graph_instantiate(rcu_ctx ctx, rcu_exec *e, rcu_graph g);
rcu_result rcu_graph_launch(rcu_ctx ctx, rcu_exec e, rcu_stream s);
rcu_result rcu_graph_destroy(rcu_ctx ctx, rcu_graph g);
rcu_result rcu_graph_exec_destroy(rcu_ctx ctx, rcu_exec e);
/* The graph's kernel nodes and their functions: *n of them (at most max
   written; *n is the count). */
rcu_result rcu_graph_kernels(rcu_ctx ctx, rcu_graph g, rcu_node *nodes, rcu_func *funcs, int max, int *n);
/* Whether kernel node's n parameters are the bytes at blob + offs[i],
   lens[i] long: *same 1 or 0. */
/* Sets kernel node's parameters in e to the n values at blob + offs[i]. */
rcu_result rcu_graph_kernel_params(rcu_ctx ctx, rcu_node node, void *blob, const int *offs, const int *lens, int n);
rcu_result rcu_graph_exec_set_params(rcu_ctx ctx, rcu_exec e, rcu_node node, void *blob, const int *offs, int n);

/* Host copies: a job (malloc'd, an integer to Go) copying n rows from src
   to dst, row i the rows[2i+1] bytes at byte offset rows[2i] of both;
   0 when out of memory. The job keeps dst and src: Go memory among them
   must stay pinned (runtime.Pinner) until rcu_host_copy_free. */
typedef uintptr_t rcu_hcopy;
rcu_hcopy rcu_host_copy_new(void *dst, const void *src, const size_t *rows, size_t n);
void rcu_host_copy_free(rcu_hcopy job);
/* Queues job's copy on s, in stream order (cuLaunchHostFunc; optional:
   CUDA_ERROR_NOT_SUPPORTED without it); a capture records it as a host
   node that copies at each launch of the graph. */
rcu_result rcu_launch_host_copy(rcu_ctx ctx, rcu_stream s, rcu_hcopy job);

/* NVRTC (nvrtcResult codes): compiles src with the n options (each
   NUL-terminated, one after another in opts) to a CUBIN. On return *image
   and *log are malloc'd (free them with rcu_free), or NULL; the program is
   destroyed whatever happens. */
rcu_result rcu_nvrtc_compile(const char *src, const char *name, const char *opts, int n,
                             char **image, size_t *image_n, char **log, size_t *log_n);
void rcu_nvrtc_error_text(rcu_result r, char *buf, size_t n);
rcu_result rcu_nvrtc_version(int *major, int *minor);
void rcu_free(void *p);
int rcu_read_back(uintptr_t a0, uintptr_t a1, uintptr_t src, void *dst, uintptr_t n);

#endif
