#include <dlfcn.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>
#include "shim.h"

typedef void *CUctx, *CUstr, *CUev;
#define P(h) ((void *)(h))

/* CUDA_MEMCPY2D, as cuda.h lays it out. */
typedef struct {
	size_t srcXInBytes, srcY;
	int srcMemoryType;
	const void *srcHost;
	rcu_dptr srcDevice;
	void *srcArray;
	size_t srcPitch;
	size_t dstXInBytes, dstY;
	int dstMemoryType;
	void *dstHost;
	rcu_dptr dstDevice;
	void *dstArray;
	size_t dstPitch;
	size_t WidthInBytes, Height;
} rcu_memcpy2d_t;

enum { MEM_HOST = 1, MEM_DEVICE = 2 };

static struct {
	rcu_result (*Init)(unsigned);
	rcu_result (*DriverGetVersion)(int *);
	rcu_result (*DeviceGetCount)(int *);
	rcu_result (*DeviceGet)(rcu_device *, int);
	rcu_result (*DeviceGetName)(char *, int, rcu_device);
	rcu_result (*DeviceGetAttribute)(int *, int, rcu_device);
	rcu_result (*DeviceTotalMem)(size_t *, rcu_device);
	rcu_result (*PrimaryCtxRetain)(CUctx *, rcu_device);
	rcu_result (*PrimaryCtxRelease)(rcu_device);
	rcu_result (*CtxSetCurrent)(CUctx);
	rcu_result (*GetErrorName)(rcu_result, const char **);
	rcu_result (*GetErrorString)(rcu_result, const char **);
	rcu_result (*MemAlloc)(rcu_dptr *, size_t);
	rcu_result (*MemFree)(rcu_dptr);
	rcu_result (*MemGetInfo)(size_t *, size_t *);
	rcu_result (*MemHostAlloc)(void **, size_t, unsigned);
	rcu_result (*MemFreeHost)(void *);
	rcu_result (*MemcpyHtoDAsync)(rcu_dptr, const void *, size_t, CUstr);
	rcu_result (*MemcpyDtoHAsync)(void *, rcu_dptr, size_t, CUstr);
	rcu_result (*MemcpyDtoDAsync)(rcu_dptr, rcu_dptr, size_t, CUstr);
	rcu_result (*Memcpy2DAsync)(const rcu_memcpy2d_t *, CUstr);
	rcu_result (*MemsetD8Async)(rcu_dptr, unsigned char, size_t, CUstr);
	rcu_result (*StreamCreate)(CUstr *, unsigned);
	rcu_result (*StreamSynchronize)(CUstr);
	rcu_result (*StreamDestroy)(CUstr);
	rcu_result (*StreamWaitEvent)(CUstr, CUev, unsigned);
	rcu_result (*EventCreate)(CUev *, unsigned);
	rcu_result (*EventRecord)(CUev, CUstr);
	rcu_result (*EventSynchronize)(CUev);
	rcu_result (*EventQuery)(CUev);
	rcu_result (*EventElapsedTime)(float *, CUev, CUev);
	rcu_result (*EventDestroy)(CUev);
	rcu_result (*ModuleLoadData)(void **, const void *);
	rcu_result (*ModuleUnload)(void *);
	rcu_result (*ModuleGetFunction)(void **, void *, const char *);
	rcu_result (*FuncGetParamInfo)(void *, size_t, size_t *, size_t *);
	rcu_result (*FuncSetAttribute)(void *, int, int);
	rcu_result (*LaunchKernel)(void *, unsigned, unsigned, unsigned, unsigned, unsigned, unsigned,
	                           unsigned, CUstr, void **, void **);
	rcu_result (*StreamBeginCapture)(CUstr, int);
	rcu_result (*StreamEndCapture)(CUstr, void **);
	rcu_result (*GraphInstantiateWithFlags)(void **, void *, unsigned long long);
	rcu_result (*GraphLaunch)(void *, CUstr);
	rcu_result (*GraphDestroy)(void *);
	rcu_result (*GraphExecDestroy)(void *);
	rcu_result (*GraphGetNodes)(void *, void **, size_t *);
	rcu_result (*GraphNodeGetType)(void *, int *);
	rcu_result (*GraphKernelNodeGetParams)(void *, void *);
	rcu_result (*GraphExecKernelNodeSetParams)(void *, void *, const void *);
	rcu_result (*LaunchHostFunc)(CUstr, void (*)(void *), void *);
} cu;

/* CUDA_KERNEL_NODE_PARAMS_v2, as cuda.h (12.0 and later) lays it out. */
typedef struct {
	void *func;
	unsigned gridDimX, gridDimY, gridDimZ;
	unsigned blockDimX, blockDimY, blockDimZ;
	unsigned sharedMemBytes;
	void **kernelParams;
	void **extra;
	void *kern;
	void *ctx;
} rcu_kernel_node_params;

static struct {
	rcu_result (*CreateProgram)(void **, const char *, const char *, int, const char *const *, const char *const *);
	rcu_result (*CompileProgram)(void *, int, const char *const *);
	rcu_result (*GetProgramLogSize)(void *, size_t *);
	rcu_result (*GetProgramLog)(void *, char *);
	rcu_result (*GetCUBINSize)(void *, size_t *);
	rcu_result (*GetCUBIN)(void *, char *);
	rcu_result (*DestroyProgram)(void **);
	const char *(*GetErrorString)(rcu_result);
	rcu_result (*Version)(int *, int *);
} nvrtc;

static struct {
	rcu_result (*Create)(void **);
	rcu_result (*Destroy)(void *);
	rcu_result (*SetStream)(void *, CUstr);
	rcu_result (*GetVersion)(void *, int *);
	const char *(*GetStatusName)(rcu_result);
	rcu_result (*GemmEx)(void *, int, int, int, int, int, const void *, const void *, int, int,
	                     const void *, int, int, const void *, void *, int, int, int, int);
	rcu_result (*GemmStridedBatchedEx)(void *, int, int, int, int, int, const void *,
	                                   const void *, int, int, long long, const void *, int, int, long long,
	                                   const void *, void *, int, int, long long, int, int, int);
} blas;

static int sym(void *lib, void **fn, const char *name, char *err, size_t n) {
	*fn = dlsym(lib, name);
	if (!*fn) {
		snprintf(err, n, "symbol %s not found", name);
		return -1;
	}
	return 0;
}

int rcu_load(char *err, size_t n) {
	static int done;
	static char saved[256];
	if (done == 1) return 0;
	if (done == -1) { snprintf(err, n, "%s", saved); return -1; }
	void *lib = dlopen("libcuda.so.1", RTLD_NOW | RTLD_GLOBAL);
	if (!lib) {
		const char *e = dlerror();
		snprintf(err, n, "cannot load libcuda.so.1 (the NVIDIA driver's CUDA library): %s", e ? e : "unknown error");
		snprintf(saved, sizeof saved, "%s", err);
		done = -1;
		return -1;
	}
	int bad = 0;
#define S(field, name) if (!bad && sym(lib, (void **)&cu.field, name, err, n)) bad = 1
	S(Init, "cuInit");
	S(DeviceGetCount, "cuDeviceGetCount");
	S(DeviceGet, "cuDeviceGet");
	S(DeviceGetName, "cuDeviceGetName");
	S(DeviceGetAttribute, "cuDeviceGetAttribute");
	S(DeviceTotalMem, "cuDeviceTotalMem_v2");
	S(PrimaryCtxRetain, "cuDevicePrimaryCtxRetain");
	S(PrimaryCtxRelease, "cuDevicePrimaryCtxRelease_v2");
	S(CtxSetCurrent, "cuCtxSetCurrent");
	S(GetErrorName, "cuGetErrorName");
	S(GetErrorString, "cuGetErrorString");
	S(MemAlloc, "cuMemAlloc_v2");
	S(MemFree, "cuMemFree_v2");
	S(MemHostAlloc, "cuMemHostAlloc");
	S(MemFreeHost, "cuMemFreeHost");
	S(MemcpyHtoDAsync, "cuMemcpyHtoDAsync_v2");
	S(MemcpyDtoHAsync, "cuMemcpyDtoHAsync_v2");
	S(MemcpyDtoDAsync, "cuMemcpyDtoDAsync_v2");
	S(Memcpy2DAsync, "cuMemcpy2DAsync_v2");
	S(MemsetD8Async, "cuMemsetD8Async");
	S(StreamCreate, "cuStreamCreate");
	S(StreamSynchronize, "cuStreamSynchronize");
	S(StreamDestroy, "cuStreamDestroy_v2");
	S(EventCreate, "cuEventCreate");
	S(EventRecord, "cuEventRecord");
	S(EventSynchronize, "cuEventSynchronize");
	S(EventDestroy, "cuEventDestroy_v2");
	S(ModuleLoadData, "cuModuleLoadData");
	S(ModuleUnload, "cuModuleUnload");
	S(ModuleGetFunction, "cuModuleGetFunction");
	S(FuncSetAttribute, "cuFuncSetAttribute");
	S(LaunchKernel, "cuLaunchKernel");
#undef S
	/* Optional: renamed or versioned in some releases; missing ones answer
	   CUDA_ERROR_NOT_SUPPORTED. */
	*(void **)&cu.DriverGetVersion = dlsym(lib, "cuDriverGetVersion");
	*(void **)&cu.MemGetInfo = dlsym(lib, "cuMemGetInfo_v2");
	*(void **)&cu.StreamWaitEvent = dlsym(lib, "cuStreamWaitEvent");
	*(void **)&cu.EventQuery = dlsym(lib, "cuEventQuery");
	*(void **)&cu.EventElapsedTime = dlsym(lib, "cuEventElapsedTime");
	if (!cu.EventElapsedTime) *(void **)&cu.EventElapsedTime = dlsym(lib, "cuEventElapsedTime_v2");
	*(void **)&cu.FuncGetParamInfo = dlsym(lib, "cuFuncGetParamInfo");
	*(void **)&cu.StreamBeginCapture = dlsym(lib, "cuStreamBeginCapture_v2");
	*(void **)&cu.StreamEndCapture = dlsym(lib, "cuStreamEndCapture");
	*(void **)&cu.GraphInstantiateWithFlags = dlsym(lib, "cuGraphInstantiateWithFlags");
	*(void **)&cu.GraphLaunch = dlsym(lib, "cuGraphLaunch");
	*(void **)&cu.GraphDestroy = dlsym(lib, "cuGraphDestroy");
	*(void **)&cu.GraphExecDestroy = dlsym(lib, "cuGraphExecDestroy");
	*(void **)&cu.GraphGetNodes = dlsym(lib, "cuGraphGetNodes");
	*(void **)&cu.GraphNodeGetType = dlsym(lib, "cuGraphNodeGetType");
	*(void **)&cu.GraphKernelNodeGetParams = dlsym(lib, "cuGraphKernelNodeGetParams_v2");
	*(void **)&cu.GraphExecKernelNodeSetParams = dlsym(lib, "cuGraphExecKernelNodeSetParams_v2");
	*(void **)&cu.LaunchHostFunc = dlsym(lib, "cuLaunchHostFunc");
	if (bad) {
		snprintf(saved, sizeof saved, "libcuda.so.1: %s", err);
		snprintf(err, n, "%s", saved);
		done = -1;
		return -1;
	}
	done = 1;
	return 0;
}

int rcu_load_blas(char *err, size_t n) {
	static int done;
	static char saved[512];
	if (done == 1) return 0;
	if (done == -1) { snprintf(err, n, "%s", saved); return -1; }
	static const char *names[] = {"libcublas.so.13", "libcublas.so.12", "libcublas.so",
	                              "/usr/local/cuda/lib64/libcublas.so.13", "/usr/local/cuda/lib64/libcublas.so.12",
	                              "/usr/local/cuda/lib64/libcublas.so"};
	void *lib = NULL;
	for (size_t i = 0; !lib && i < sizeof names / sizeof names[0]; i++)
		lib = dlopen(names[i], RTLD_NOW | RTLD_LOCAL);
	if (!lib) {
		snprintf(saved, sizeof saved, "cannot load cuBLAS (tried libcublas.so.13, .12 and libcublas.so on the loader path and in /usr/local/cuda/lib64): set LD_LIBRARY_PATH to CUDA's lib64");
		snprintf(err, n, "%s", saved);
		done = -1;
		return -1;
	}
	int bad = 0;
#define S(field, name) if (!bad && sym(lib, (void **)&blas.field, name, err, n)) bad = 1
	S(Create, "cublasCreate_v2");
	S(Destroy, "cublasDestroy_v2");
	S(SetStream, "cublasSetStream_v2");
	S(GetVersion, "cublasGetVersion_v2");
	S(GemmEx, "cublasGemmEx");
	S(GemmStridedBatchedEx, "cublasGemmStridedBatchedEx");
#undef S
	*(void **)&blas.GetStatusName = dlsym(lib, "cublasGetStatusName");
	if (bad) {
		snprintf(saved, sizeof saved, "cuBLAS: %s", err);
		snprintf(err, n, "%s", saved);
		done = -1;
		return -1;
	}
	done = 1;
	return 0;
}

int rcu_load_nvrtc(char *err, size_t n) {
	static int done;
	static char saved[512];
	if (done == 1) return 0;
	if (done == -1) { snprintf(err, n, "%s", saved); return -1; }
	static const char *names[] = {"libnvrtc.so.13", "libnvrtc.so.12", "libnvrtc.so",
	                              "/usr/local/cuda/lib64/libnvrtc.so.13", "/usr/local/cuda/lib64/libnvrtc.so.12",
	                              "/usr/local/cuda/lib64/libnvrtc.so"};
	void *lib = NULL;
	for (size_t i = 0; !lib && i < sizeof names / sizeof names[0]; i++)
		lib = dlopen(names[i], RTLD_NOW | RTLD_LOCAL);
	if (!lib) {
		snprintf(saved, sizeof saved, "cannot load NVRTC (tried libnvrtc.so.13, .12 and libnvrtc.so on the loader path and in /usr/local/cuda/lib64): set LD_LIBRARY_PATH to CUDA's lib64");
		snprintf(err, n, "%s", saved);
		done = -1;
		return -1;
	}
	int bad = 0;
#define S(field, name) if (!bad && sym(lib, (void **)&nvrtc.field, name, err, n)) bad = 1
	S(CreateProgram, "nvrtcCreateProgram");
	S(CompileProgram, "nvrtcCompileProgram");
	S(GetProgramLogSize, "nvrtcGetProgramLogSize");
	S(GetProgramLog, "nvrtcGetProgramLog");
	S(GetCUBINSize, "nvrtcGetCUBINSize");
	S(GetCUBIN, "nvrtcGetCUBIN");
	S(DestroyProgram, "nvrtcDestroyProgram");
	S(GetErrorString, "nvrtcGetErrorString");
	S(Version, "nvrtcVersion");
#undef S
	if (bad) {
		snprintf(saved, sizeof saved, "NVRTC: %s", err);
		snprintf(err, n, "%s", saved);
		done = -1;
		return -1;
	}
	done = 1;
	return 0;
}

rcu_result rcu_init(void) { return cu.Init(0); }
#define NOT_SUPPORTED 801 /* CUDA_ERROR_NOT_SUPPORTED */
#define OPT(fn) if (!cu.fn) return NOT_SUPPORTED

rcu_result rcu_driver_version(int *v) { OPT(DriverGetVersion); return cu.DriverGetVersion(v); }
rcu_result rcu_device_count(int *n) { return cu.DeviceGetCount(n); }
rcu_result rcu_device_get(int ordinal, rcu_device *d) { return cu.DeviceGet(d, ordinal); }
rcu_result rcu_device_name(rcu_device d, char *buf, int n) { return cu.DeviceGetName(buf, n, d); }
rcu_result rcu_device_attr(rcu_device d, int attr, int *v) { return cu.DeviceGetAttribute(v, attr, d); }
rcu_result rcu_device_total_mem(rcu_device d, size_t *bytes) { return cu.DeviceTotalMem(bytes, d); }
rcu_result rcu_primary_retain(rcu_device d, rcu_ctx *ctx) {
	CUctx c = NULL;
	rcu_result r = cu.PrimaryCtxRetain(&c, d);
	*ctx = (rcu_ctx)c;
	return r;
}
rcu_result rcu_primary_release(rcu_device d) { return cu.PrimaryCtxRelease(d); }

void rcu_error_text(rcu_result r, char *buf, size_t n) {
	const char *name = NULL, *str = NULL;
	if (!cu.GetErrorName || cu.GetErrorName(r, &name) != 0) name = NULL;
	if (!cu.GetErrorString || cu.GetErrorString(r, &str) != 0) str = NULL;
	snprintf(buf, n, "%s: %s", name ? name : "CUDA error", str ? str : "unknown");
}

#define CUR(ctx) do { rcu_result r_ = cu.CtxSetCurrent(P(ctx)); if (r_) return r_; } while (0)

rcu_result rcu_mem_alloc(rcu_ctx ctx, rcu_dptr *p, size_t n) { CUR(ctx); return cu.MemAlloc(p, n); }
rcu_result rcu_mem_free(rcu_ctx ctx, rcu_dptr p) { CUR(ctx); return cu.MemFree(p); }
rcu_result rcu_mem_info(rcu_ctx ctx, size_t *f, size_t *t) { OPT(MemGetInfo); CUR(ctx); return cu.MemGetInfo(f, t); }
rcu_result rcu_host_alloc(rcu_ctx ctx, void **p, size_t n, unsigned flags) { CUR(ctx); return cu.MemHostAlloc(p, n, flags); }
rcu_result rcu_host_free(rcu_ctx ctx, void *p) { CUR(ctx); return cu.MemFreeHost(p); }
rcu_result rcu_htod(rcu_ctx ctx, rcu_dptr dst, const void *src, size_t n, rcu_stream s) { CUR(ctx); return cu.MemcpyHtoDAsync(dst, src, n, P(s)); }
rcu_result rcu_dtoh(rcu_ctx ctx, void *dst, rcu_dptr src, size_t n, rcu_stream s) { CUR(ctx); return cu.MemcpyDtoHAsync(dst, src, n, P(s)); }
rcu_result rcu_dtod(rcu_ctx ctx, rcu_dptr dst, rcu_dptr src, size_t n, rcu_stream s) { CUR(ctx); return cu.MemcpyDtoDAsync(dst, src, n, P(s)); }

rcu_result rcu_copy2d(rcu_ctx ctx, int kind, rcu_dptr dev, rcu_dptr dev2, void *host,
                      size_t dpitch, size_t spitch, size_t width, size_t height, rcu_stream s) {
	CUR(ctx);
	rcu_memcpy2d_t c;
	memset(&c, 0, sizeof c);
	c.srcPitch = spitch;
	c.dstPitch = dpitch;
	c.WidthInBytes = width;
	c.Height = height;
	switch (kind) {
	case 0: /* host to device: dev is the destination */
		c.srcMemoryType = MEM_HOST; c.srcHost = host;
		c.dstMemoryType = MEM_DEVICE; c.dstDevice = dev;
		break;
	case 1: /* device to host: dev is the source */
		c.srcMemoryType = MEM_DEVICE; c.srcDevice = dev;
		c.dstMemoryType = MEM_HOST; c.dstHost = host;
		break;
	default: /* device to device: dev the destination, dev2 the source */
		c.srcMemoryType = MEM_DEVICE; c.srcDevice = dev2;
		c.dstMemoryType = MEM_DEVICE; c.dstDevice = dev;
	}
	return cu.Memcpy2DAsync(&c, P(s));
}

rcu_result rcu_memset8(rcu_ctx ctx, rcu_dptr dst, unsigned char v, size_t n, rcu_stream s) { CUR(ctx); return cu.MemsetD8Async(dst, v, n, P(s)); }
rcu_result rcu_stream_create(rcu_ctx ctx, rcu_stream *s, unsigned flags) {
	CUR(ctx);
	CUstr x = NULL;
	rcu_result r = cu.StreamCreate(&x, flags);
	*s = (rcu_stream)x;
	return r;
}
rcu_result rcu_stream_sync(rcu_ctx ctx, rcu_stream s) { CUR(ctx); return cu.StreamSynchronize(P(s)); }
rcu_result rcu_stream_destroy(rcu_ctx ctx, rcu_stream s) { CUR(ctx); return cu.StreamDestroy(P(s)); }
rcu_result rcu_stream_wait(rcu_ctx ctx, rcu_stream s, rcu_event e) { OPT(StreamWaitEvent); CUR(ctx); return cu.StreamWaitEvent(P(s), P(e), 0); }
rcu_result rcu_event_create(rcu_ctx ctx, rcu_event *e, unsigned flags) {
	CUR(ctx);
	CUev x = NULL;
	rcu_result r = cu.EventCreate(&x, flags);
	*e = (rcu_event)x;
	return r;
}
rcu_result rcu_event_record(rcu_ctx ctx, rcu_event e, rcu_stream s) { CUR(ctx); return cu.EventRecord(P(e), P(s)); }
rcu_result rcu_event_sync(rcu_ctx ctx, rcu_event e) { CUR(ctx); return cu.EventSynchronize(P(e)); }
rcu_result rcu_event_query(rcu_ctx ctx, rcu_event e) { OPT(EventQuery); CUR(ctx); return cu.EventQuery(P(e)); }
rcu_result rcu_event_elapsed(rcu_ctx ctx, float *ms, rcu_event a, rcu_event b) { OPT(EventElapsedTime); CUR(ctx); return cu.EventElapsedTime(ms, P(a), P(b)); }
rcu_result rcu_event_destroy(rcu_ctx ctx, rcu_event e) { CUR(ctx); return cu.EventDestroy(P(e)); }

rcu_result rcu_blas_create(rcu_ctx ctx, rcu_blas *h) {
	CUR(ctx);
	void *x = NULL;
	rcu_result r = blas.Create(&x);
	*h = (rcu_blas)x;
	return r;
}
rcu_result rcu_blas_destroy(rcu_ctx ctx, rcu_blas h) { CUR(ctx); return blas.Destroy(P(h)); }
rcu_result rcu_blas_set_stream(rcu_ctx ctx, rcu_blas h, rcu_stream s) { CUR(ctx); return blas.SetStream(P(h), P(s)); }
rcu_result rcu_blas_version(rcu_blas h, int *v) { return blas.GetVersion(P(h), v); }

void rcu_blas_status_text(rcu_result r, char *buf, size_t n) {
	const char *name = blas.GetStatusName ? blas.GetStatusName(r) : NULL;
	if (name) snprintf(buf, n, "%s", name);
	else snprintf(buf, n, "cublasStatus %d", r);
}

enum { COMPUTE_64F = 70, COMPUTE_64F_PEDANTIC = 71 };

rcu_result rcu_blas_gemm(rcu_ctx ctx, rcu_blas h, int transa, int transb, int m, int n, int k,
                         rcu_dptr a, int atype, int lda, long long sa,
                         rcu_dptr b, int btype, int ldb, long long sb,
                         rcu_dptr c, int ctype, int ldc, long long sc,
                         int batch, int compute) {
	CUR(ctx);
	/* alpha and beta have the compute type's scalar type. */
	float f1 = 1, f0 = 0;
	double d1 = 1, d0 = 0;
	const void *alpha = &f1, *beta = &f0;
	if (compute == COMPUTE_64F || compute == COMPUTE_64F_PEDANTIC) { alpha = &d1; beta = &d0; }
	if (batch == 1)
		return blas.GemmEx(P(h), transa, transb, m, n, k, alpha, (const void *)(uintptr_t)a, atype, lda,
		                   (const void *)(uintptr_t)b, btype, ldb, beta, (void *)(uintptr_t)c, ctype, ldc,
		                   compute, -1 /* CUBLAS_GEMM_DEFAULT */);
	return blas.GemmStridedBatchedEx(P(h), transa, transb, m, n, k, alpha, (const void *)(uintptr_t)a, atype, lda, sa,
	                                 (const void *)(uintptr_t)b, btype, ldb, sb, beta, (void *)(uintptr_t)c, ctype, ldc, sc,
	                                 batch, compute, -1);
}

rcu_result rcu_module_load(rcu_ctx ctx, rcu_module *m, const void *image) {
	CUR(ctx);
	void *x = NULL;
	rcu_result r = cu.ModuleLoadData(&x, image);
	*m = (rcu_module)x;
	return r;
}
rcu_result rcu_module_unload(rcu_ctx ctx, rcu_module m) { CUR(ctx); return cu.ModuleUnload(P(m)); }
rcu_result rcu_module_function(rcu_ctx ctx, rcu_func *f, rcu_module m, const char *name) {
	CUR(ctx);
	void *x = NULL;
	rcu_result r = cu.ModuleGetFunction(&x, P(m), name);
	*f = (rcu_func)x;
	return r;
}
rcu_result rcu_func_param_info(rcu_ctx ctx, rcu_func f, size_t i, size_t *off, size_t *size) {
	OPT(FuncGetParamInfo);
	CUR(ctx);
	return cu.FuncGetParamInfo(P(f), i, off, size);
}
rcu_result rcu_func_set_attr(rcu_ctx ctx, rcu_func f, int attr, int v) { CUR(ctx); return cu.FuncSetAttribute(P(f), attr, v); }

enum { MAX_PARAMS = 512 };

rcu_result rcu_launch(rcu_ctx ctx, rcu_func f, unsigned gx, unsigned gy, unsigned gz,
                      unsigned bx, unsigned by, unsigned bz, unsigned shared, rcu_stream s,
                      void *blob, const int *offs, int n) {
	if (n < 0 || n > MAX_PARAMS) return 1; /* CUDA_ERROR_INVALID_VALUE */
	void *params[MAX_PARAMS + 1];
	for (int i = 0; i < n; i++) params[i] = (char *)blob + offs[i];
	CUR(ctx);
	return cu.LaunchKernel(P(f), gx, gy, gz, bx, by, bz, shared, P(s), n ? params : NULL, NULL);
}

rcu_result rcu_capture_begin(rcu_ctx ctx, rcu_stream s, int mode) { OPT(StreamBeginCapture); CUR(ctx); return cu.StreamBeginCapture(P(s), mode); }
rcu_result rcu_capture_end(rcu_ctx ctx, rcu_stream s, rcu_graph *g) {
	OPT(StreamEndCapture);
	CUR(ctx);
	void *x = NULL;
	rcu_result r = cu.StreamEndCapture(P(s), &x);
	*g = (rcu_graph)x;
	return r;
}
rcu_result rcu_graph_instantiate(rcu_ctx ctx, rcu_exec *e, rcu_graph g) {
	OPT(GraphInstantiateWithFlags);
	CUR(ctx);
	void *x = NULL;
	rcu_result r = cu.GraphInstantiateWithFlags(&x, P(g), 0);
	*e = (rcu_exec)x;
	return r;
}
rcu_result rcu_graph_launch(rcu_ctx ctx, rcu_exec e, rcu_stream s) { OPT(GraphLaunch); CUR(ctx); return cu.GraphLaunch(P(e), P(s)); }
rcu_result rcu_graph_destroy(rcu_ctx ctx, rcu_graph g) { OPT(GraphDestroy); CUR(ctx); return cu.GraphDestroy(P(g)); }
rcu_result rcu_graph_exec_destroy(rcu_ctx ctx, rcu_exec e) { OPT(GraphExecDestroy); CUR(ctx); return cu.GraphExecDestroy(P(e)); }

enum { NODE_KERNEL = 0 };

rcu_result rcu_graph_kernels(rcu_ctx ctx, rcu_graph g, rcu_node *nodes, rcu_func *funcs, int max, int *n) {
	OPT(GraphGetNodes); OPT(GraphNodeGetType); OPT(GraphKernelNodeGetParams);
	CUR(ctx);
	size_t total = 0;
	rcu_result r = cu.GraphGetNodes(P(g), NULL, &total);
	*n = 0;
	/* An empty graph: the driver refuses a second call with no room. */
	if (r || total == 0) return r;
	void **all = calloc(total ? total : 1, sizeof *all);
	if (!all) return 2; /* CUDA_ERROR_OUT_OF_MEMORY */
	r = cu.GraphGetNodes(P(g), all, &total);
	int k = 0;
	for (size_t i = 0; !r && i < total; i++) {
		int t = -1;
		if ((r = cu.GraphNodeGetType(all[i], &t)) || t != NODE_KERNEL) continue;
		rcu_kernel_node_params p;
		memset(&p, 0, sizeof p);
		if ((r = cu.GraphKernelNodeGetParams(all[i], &p))) break;
		if (k < max) { nodes[k] = (rcu_node)all[i]; funcs[k] = (rcu_func)p.func; }
		k++;
	}
	free(all);
	*n = k;
	return r;
}

rcu_result rcu_graph_kernel_params(rcu_ctx ctx, rcu_node node, void *blob, const int *offs, const int *lens, int n) {
	OPT(GraphKernelNodeGetParams);
	CUR(ctx);
	rcu_kernel_node_params p;
	memset(&p, 0, sizeof p);
	rcu_result r = cu.GraphKernelNodeGetParams(P(node), &p);
	if (r) return r;
	if (n > 0 && !p.kernelParams) return 801; /* CUDA_ERROR_NOT_SUPPORTED: parameters in extra */
	for (int i = 0; i < n; i++) {
		if (!p.kernelParams[i]) return 801;
		memcpy((char *)blob + offs[i], p.kernelParams[i], lens[i]);
	}
	return 0;
}

rcu_result rcu_graph_exec_set_params(rcu_ctx ctx, rcu_exec e, rcu_node node, void *blob, const int *offs, int n) {
	OPT(GraphKernelNodeGetParams); OPT(GraphExecKernelNodeSetParams);
	if (n < 0 || n > MAX_PARAMS) return 1;
	CUR(ctx);
	rcu_kernel_node_params p;
	memset(&p, 0, sizeof p);
	rcu_result r = cu.GraphKernelNodeGetParams(P(node), &p);
	if (r) return r;
	void *params[MAX_PARAMS + 1];
	for (int i = 0; i < n; i++) params[i] = (char *)blob + offs[i];
	p.kernelParams = n ? params : NULL;
	p.extra = NULL;
	return cu.GraphExecKernelNodeSetParams(P(e), P(node), &p);
}

typedef struct {
	char *dst;
	const char *src;
	size_t n;
	size_t rows[]; /* offset, length; n pairs */
} rcu_host_copy_t;

rcu_hcopy rcu_host_copy_new(void *dst, const void *src, const size_t *rows, size_t n) {
	rcu_host_copy_t *c = malloc(sizeof *c + 2 * n * sizeof c->rows[0]);
	if (!c) return 0;
	c->dst = dst;
	c->src = src;
	c->n = n;
	if (n) memcpy(c->rows, rows, 2 * n * sizeof c->rows[0]);
	return (rcu_hcopy)c;
}
void rcu_host_copy_free(rcu_hcopy job) { free(P(job)); }

/* The host function: runs on a driver thread, so it calls no CUDA. */
static void rcu_host_copy(void *p) {
	rcu_host_copy_t *c = p;
	for (size_t i = 0; i < c->n; i++) memcpy(c->dst + c->rows[2 * i], c->src + c->rows[2 * i], c->rows[2 * i + 1]);
}

rcu_result rcu_launch_host_copy(rcu_ctx ctx, rcu_stream s, rcu_hcopy job) {
	OPT(LaunchHostFunc);
	if (!job) return 1; /* CUDA_ERROR_INVALID_VALUE */
	CUR(ctx);
	return cu.LaunchHostFunc(P(s), rcu_host_copy, P(job));
}

rcu_result rcu_nvrtc_compile(const char *src, const char *name, const char *opts, int n,
                             char **image, size_t *image_n, char **log, size_t *log_n) {
	*image = NULL; *image_n = 0; *log = NULL; *log_n = 0;
	if (n < 0 || n > 64) return 3; /* NVRTC_ERROR_INVALID_INPUT */
	const char *o[65];
	for (int i = 0; i < n; i++) { o[i] = opts; opts += strlen(opts) + 1; }
	void *prog = NULL;
	rcu_result r = nvrtc.CreateProgram(&prog, src, name, 0, NULL, NULL);
	if (r) return r;
	r = nvrtc.CompileProgram(prog, n, o);
	size_t ln = 0;
	if (nvrtc.GetProgramLogSize(prog, &ln) == 0 && ln > 1 && (*log = malloc(ln))) {
		if (nvrtc.GetProgramLog(prog, *log) == 0) *log_n = ln - 1;
		else { free(*log); *log = NULL; }
	}
	if (r == 0) {
		size_t in = 0;
		r = nvrtc.GetCUBINSize(prog, &in);
		if (r == 0 && !(*image = malloc(in ? in : 1))) r = 1; /* NVRTC_ERROR_OUT_OF_MEMORY */
		if (r == 0) r = nvrtc.GetCUBIN(prog, *image);
		if (r == 0) *image_n = in;
		else { free(*image); *image = NULL; }
	}
	nvrtc.DestroyProgram(&prog);
	return r;
}

void rcu_nvrtc_error_text(rcu_result r, char *buf, size_t n) {
	const char *s = nvrtc.GetErrorString ? nvrtc.GetErrorString(r) : NULL;
	snprintf(buf, n, "%s", s ? s : "NVRTC error");
}
rcu_result rcu_nvrtc_version(int *major, int *minor) { return nvrtc.Version(major, minor); }
void rcu_free(void *p) { free(p); }

/* rcu_read_back reads n bytes at device address src into dst after the
   work queued on stream a1 of context a0: the source of a page fill
   (internal/uffd), called from that package's C thread. */
int rcu_read_back(uintptr_t a0, uintptr_t a1, uintptr_t src, void *dst, uintptr_t n) {
	if (!cu.CtxSetCurrent || cu.CtxSetCurrent(P(a0)) || cu.MemcpyDtoHAsync(dst, (rcu_dptr)src, n, P(a1)) || cu.StreamSynchronize(P(a1)))
		return -5; /* EIO */
	return 0;
}
