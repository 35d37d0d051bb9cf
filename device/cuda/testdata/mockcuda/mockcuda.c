/* A stand-in for libcuda.so.1, libcublas.so.13 and libnvrtc.so.13 over host memory, for
   testing package cuda where there is no GPU (TestMockCUDA builds it and
   runs the package's tests against it). Device pointers are host
   addresses; everything "asynchronous" runs at once. It checks what the
   real driver and cuBLAS would refuse: a wrong or missing context, a NULL
   stream, unbalanced retains, frees of unknown pointers, cuBLAS leading
   dimensions, alpha/beta of the wrong type, type/compute mismatches,
   launches past CUDA's limits, unknown modules and kernels. Kernels run
   nothing, except mock_store (see cuLaunchKernel). */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

typedef int CUresult;
typedef unsigned long long CUdeviceptr;
enum { OK = 0, INVALID_VALUE = 1, OUT_OF_MEMORY = 2, INVALID_DEVICE = 101, INVALID_CONTEXT = 201, INVALID_HANDLE = 400 };

static char ctx_token;
static void *const CTX = &ctx_token;
static int retains;
static __thread void *current;
static long long live_bytes;
static const long long total_bytes = 1LL << 32;

/* Fault injection: MOCKCUDA_FAIL="name:n,…" makes the n-th call of entry
   point name fail ("name:n+": that call and every later one). */
static int fail(const char *name, int code) {
	static struct { char name[48]; int calls; } seen[32];
	const char *env = getenv("MOCKCUDA_FAIL");
	if (!env) return 0;
	int i = 0;
	for (; i < 32 && seen[i].name[0] && strcmp(seen[i].name, name); i++) {}
	if (i == 32) return 0;
	if (!seen[i].name[0]) strncpy(seen[i].name, name, sizeof seen[i].name - 1);
	int call = ++seen[i].calls;
	size_t n = strlen(name);
	for (const char *p = env; (p = strstr(p, name)); p += n) {
		if ((p != env && p[-1] != ',') || p[n] != ':') continue;
		char *end;
		long at = strtol(p + n + 1, &end, 10);
		if (call == at || (*end == '+' && call >= at)) return code;
	}
	return 0;
}
#define FAIL(name, code) do { int f_ = fail(name, code); if (f_) return f_; } while (0)

#define NEED_CTX() do { if (current != CTX || retains <= 0) return INVALID_CONTEXT; } while (0)
#define NEED_STREAM(s) do { if (!(s)) return INVALID_HANDLE; } while (0)

CUresult cuInit(unsigned flags) { return flags ? INVALID_VALUE : OK; }
CUresult cuDriverGetVersion(int *v) { *v = 13000; return OK; }
CUresult cuDeviceGetCount(int *n) { *n = 1; return OK; }
CUresult cuDeviceGet(int *d, int ordinal) { if (ordinal != 0) return INVALID_DEVICE; *d = 0; return OK; }
CUresult cuDeviceGetName(char *buf, int n, int d) { (void)d; strncpy(buf, "Mock CUDA", n); return OK; }
CUresult cuDeviceGetAttribute(int *v, int attr, int d) {
	(void)d;
	switch (attr) {
	case 1: *v = 1024; break;      /* max threads per block */
	case 8: *v = 49152; break;     /* shared memory per block */
	case 11: *v = 4096; break;     /* max pitch: small, so pitches above it are exercised */
	case 16: *v = 4; break;        /* SMs */
	case 75: *v = 9; break;
	case 76: *v = 0; break;
	default: *v = 0;
	}
	return OK;
}
CUresult cuDeviceTotalMem_v2(size_t *b, int d) { (void)d; *b = total_bytes; return OK; }
CUresult cuDevicePrimaryCtxRetain(void **ctx, int d) { (void)d; retains++; *ctx = CTX; return OK; }
/* As the driver does, the last release destroys the primary context and
   the events made in it, their bytes with it. Events keep the generation
   they were made in; destroying one of a dead generation aborts. */
static int ctx_gen;
static long long gen_event_bytes;
void mock_account(long long n);
CUresult cuDevicePrimaryCtxRelease_v2(int d) {
	(void)d;
	if (retains <= 0) return INVALID_CONTEXT;
	if (--retains == 0) {
		mock_account(-__atomic_exchange_n(&gen_event_bytes, 0, __ATOMIC_SEQ_CST));
		__atomic_add_fetch(&ctx_gen, 1, __ATOMIC_SEQ_CST);
	}
	return OK;
}
CUresult cuCtxSetCurrent(void *ctx) { if (ctx != CTX) return INVALID_CONTEXT; current = ctx; return OK; }
CUresult cuGetErrorName(CUresult r, const char **s) { *s = r == OK ? "CUDA_SUCCESS" : "CUDA_ERROR_MOCK"; return OK; }
CUresult cuGetErrorString(CUresult r, const char **s) { (void)r; *s = "mock driver error"; return OK; }

/* Allocations carry their size in a header, so frees are checked. */
#define MAGIC 0x5eedfeedULL
CUresult cuMemAlloc_v2(CUdeviceptr *p, size_t n) {
	NEED_CTX();
	FAIL("cuMemAlloc_v2", OUT_OF_MEMORY);
	if (n == 0) return INVALID_VALUE;
	if (live_bytes + (long long)n > total_bytes) return OUT_OF_MEMORY;
	unsigned long long *h = aligned_alloc(256, 256 + ((n + 255) / 256) * 256);
	if (!h) return OUT_OF_MEMORY;
	h[0] = MAGIC;
	h[1] = n;
	memset((char *)h + 256, 0xA5, n);
	__atomic_add_fetch(&live_bytes, (long long)n, __ATOMIC_SEQ_CST);
	*p = (CUdeviceptr)(uintptr_t)((char *)h + 256);
	return OK;
}
CUresult cuMemFree_v2(CUdeviceptr p) {
	NEED_CTX();
	unsigned long long *h = (unsigned long long *)((char *)(uintptr_t)p - 256);
	if (!p || h[0] != MAGIC) return INVALID_VALUE;
	h[0] = 0;
	__atomic_sub_fetch(&live_bytes, (long long)h[1], __ATOMIC_SEQ_CST);
	free(h);
	return OK;
}
CUresult cuMemGetInfo_v2(size_t *f, size_t *t) { NEED_CTX(); *f = total_bytes - live_bytes; *t = total_bytes; return OK; }
/* Streams, events, graphs and pinned blocks hold HANDLE_BYTES of "device
   memory" each while they live, so one never released shows as a leak in
   cuMemGetInfo. */
#define HANDLE_BYTES 256
CUresult cuMemHostAlloc(void **p, size_t n, unsigned flags) {
	NEED_CTX();
	FAIL("cuMemHostAlloc", OUT_OF_MEMORY);
	(void)flags;
	*p = aligned_alloc(4096, (n + 4095) / 4096 * 4096);
	if (!*p) return OUT_OF_MEMORY;
	mock_account(HANDLE_BYTES);
	return OK;
}
CUresult cuMemFreeHost(void *p) {
	NEED_CTX();
	if (!p) return INVALID_VALUE;
	free(p);
	mock_account(-HANDLE_BYTES);
	return OK;
}

typedef struct {
	size_t srcXInBytes, srcY;
	int srcMemoryType;
	const void *srcHost;
	CUdeviceptr srcDevice;
	void *srcArray;
	size_t srcPitch;
	size_t dstXInBytes, dstY;
	int dstMemoryType;
	void *dstHost;
	CUdeviceptr dstDevice;
	void *dstArray;
	size_t dstPitch;
	size_t WidthInBytes, Height;
} copy2d_t;

/* Stream capture (below): work queued on a capturing stream is recorded
   as graph nodes instead of run. */
static int capture_copy(void *s, const copy2d_t *c);
static int capture_memset(void *s, CUdeviceptr d, unsigned char v, size_t n);

static void run_copy(const copy2d_t *c) {
	const char *src = c->srcMemoryType == 1 ? c->srcHost : (const char *)(uintptr_t)c->srcDevice;
	char *dst = c->dstMemoryType == 1 ? c->dstHost : (char *)(uintptr_t)c->dstDevice;
	for (size_t y = 0; y < c->Height; y++)
		memmove(dst + c->dstXInBytes + (y + c->dstY) * c->dstPitch, src + c->srcXInBytes + (y + c->srcY) * c->srcPitch, c->WidthInBytes);
}
/* A 1-D copy as a 2-D one: types 1 host, 2 device. */
static copy2d_t copy1d(int dt, void *dst, int st, const void *src, size_t n) {
	copy2d_t c;
	memset(&c, 0, sizeof c);
	c.srcMemoryType = st; c.dstMemoryType = dt;
	if (st == 1) c.srcHost = src; else c.srcDevice = (CUdeviceptr)(uintptr_t)src;
	if (dt == 1) c.dstHost = dst; else c.dstDevice = (CUdeviceptr)(uintptr_t)dst;
	c.srcPitch = c.dstPitch = c.WidthInBytes = n;
	c.Height = 1;
	return c;
}
#define CAPTURED(s, c) do { int r_ = capture_copy(s, c); if (r_ >= 0) return r_; } while (0)

CUresult cuMemcpyHtoDAsync_v2(CUdeviceptr d, const void *h, size_t n, void *s) {
	NEED_CTX(); NEED_STREAM(s); FAIL("cuMemcpyHtoDAsync_v2", INVALID_VALUE);
	copy2d_t c = copy1d(2, (void *)(uintptr_t)d, 1, h, n);
	CAPTURED(s, &c);
	run_copy(&c);
	return OK;
}
CUresult cuMemcpyDtoHAsync_v2(void *h, CUdeviceptr d, size_t n, void *s) {
	NEED_CTX(); NEED_STREAM(s);
	copy2d_t c = copy1d(1, h, 2, (void *)(uintptr_t)d, n);
	CAPTURED(s, &c);
	run_copy(&c);
	return OK;
}
CUresult cuMemcpyDtoDAsync_v2(CUdeviceptr d, CUdeviceptr src, size_t n, void *s) {
	NEED_CTX(); NEED_STREAM(s);
	copy2d_t c = copy1d(2, (void *)(uintptr_t)d, 2, (void *)(uintptr_t)src, n);
	CAPTURED(s, &c);
	run_copy(&c);
	return OK;
}
CUresult cuMemsetD8Async(CUdeviceptr d, unsigned char v, size_t n, void *s) {
	NEED_CTX(); NEED_STREAM(s);
	int r = capture_memset(s, d, v, n);
	if (r >= 0) return r;
	memset((void *)(uintptr_t)d, v, n);
	return OK;
}

CUresult cuMemcpy2DAsync_v2(const copy2d_t *c, void *s) {
	NEED_CTX();
	FAIL("cuMemcpy2DAsync_v2", INVALID_VALUE);
	NEED_STREAM(s);
	if (c->WidthInBytes > c->srcPitch || c->WidthInBytes > c->dstPitch || c->srcPitch > 4096 || c->dstPitch > 4096)
		return INVALID_VALUE; /* the real driver: pitches ≥ width, ≤ CU_DEVICE_ATTRIBUTE_MAX_PITCH */
	if ((c->srcMemoryType != 1 && c->srcMemoryType != 2) || (c->dstMemoryType != 1 && c->dstMemoryType != 2)) return INVALID_VALUE;
	CAPTURED(s, c);
	run_copy(c);
	return OK;
}

/* Live streams, so a launch can check it got one (not the NULL stream). */
static void *streams[64];
static int stream_live(void *s) {
	for (int i = 0; s && i < 64; i++)
		if (__atomic_load_n(&streams[i], __ATOMIC_SEQ_CST) == s) return 1;
	return 0;
}
typedef struct graph graph_t;
typedef struct { graph_t *cap; int bad; } stream_t; /* a capture under way, and whether it was invalidated */
static void graph_free(graph_t *g);
CUresult cuStreamCreate(void **s, unsigned flags) {
	NEED_CTX();
	(void)flags;
	*s = calloc(1, sizeof(stream_t));
	mock_account(HANDLE_BYTES);
	for (int i = 0; i < 64; i++) {
		void *none = NULL;
		if (__atomic_compare_exchange_n(&streams[i], &none, *s, 0, __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST)) break;
	}
	return OK;
}
enum { CAPTURE_UNSUPPORTED = 900, CAPTURE_INVALIDATED = 901, ILLEGAL_STATE = 401 };
static stream_t *capturing(void *s) {
	stream_t *x = s;
	return stream_live(s) && x->cap ? x : NULL;
}
/* As the driver: synchronizing a capturing stream fails and invalidates
   the capture. */
CUresult cuStreamSynchronize(void *s) {
	NEED_CTX(); NEED_STREAM(s);
	stream_t *x = capturing(s);
	if (x) { x->bad = 1; return CAPTURE_UNSUPPORTED; }
	return OK;
}
CUresult cuStreamDestroy_v2(void *s) {
	NEED_CTX();
	NEED_STREAM(s);
	for (int i = 0; i < 64; i++) {
		void *was = s;
		if (__atomic_compare_exchange_n(&streams[i], &was, NULL, 0, __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST)) break;
	}
	if (((stream_t *)s)->cap) graph_free(((stream_t *)s)->cap);
	free(s);
	mock_account(-HANDLE_BYTES);
	return OK;
}
CUresult cuStreamWaitEvent(void *s, void *e, unsigned f) { NEED_CTX(); (void)f; NEED_STREAM(s); NEED_STREAM(e); return OK; }
/* An event keeps its flags and the time of its last record (everything
   runs at once, so that is when it completes); as in the driver, timing
   one made with CU_EVENT_DISABLE_TIMING, or never recorded, is an error. */
typedef struct { unsigned flags; double ms; int gen; } event_t;
enum { EVENT_DISABLE_TIMING = 2 };
CUresult cuEventCreate(void **e, unsigned flags) {
	NEED_CTX();
	event_t *ev = calloc(1, sizeof *ev);
	ev->flags = flags;
	ev->ms = -1;
	ev->gen = __atomic_load_n(&ctx_gen, __ATOMIC_SEQ_CST);
	*e = ev;
	__atomic_add_fetch(&gen_event_bytes, HANDLE_BYTES, __ATOMIC_SEQ_CST);
	mock_account(HANDLE_BYTES);
	return OK;
}
CUresult cuEventRecord(void *e, void *s) {
	NEED_CTX();
	NEED_STREAM(s);
	NEED_STREAM(e);
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	((event_t *)e)->ms = t.tv_sec * 1e3 + t.tv_nsec / 1e6;
	return OK;
}
CUresult cuEventSynchronize(void *e) { NEED_CTX(); NEED_STREAM(e); return OK; }
CUresult cuEventQuery(void *e) { NEED_CTX(); NEED_STREAM(e); return OK; }
CUresult cuEventElapsedTime(float *ms, void *a, void *b) {
	NEED_CTX();
	NEED_STREAM(a);
	NEED_STREAM(b);
	FAIL("cuEventElapsedTime", INVALID_HANDLE);
	event_t *x = a, *y = b;
	if ((x->flags | y->flags) & EVENT_DISABLE_TIMING || x->ms < 0 || y->ms < 0) return INVALID_HANDLE;
	*ms = (float)(y->ms - x->ms);
	return OK;
}
CUresult cuEventDestroy_v2(void *e) {
	NEED_CTX();
	NEED_STREAM(e);
	if (((event_t *)e)->gen != __atomic_load_n(&ctx_gen, __ATOMIC_SEQ_CST)) {
		/* Its context died, and the driver freed it then: the handle may
		   name a later context's event now, so passing it is a bug. */
		fprintf(stderr, "mockcuda: cuEventDestroy of an event whose primary context was destroyed\n");
		abort();
	}
	free(e);
	__atomic_sub_fetch(&gen_event_bytes, HANDLE_BYTES, __ATOMIC_SEQ_CST);
	mock_account(-HANDLE_BYTES);
	return OK;
}

/* cuBLAS. */
enum { B_OK = 0, B_INVALID = 7, B_NOT_SUPPORTED = 15 };
typedef struct { void *stream; } blas_t;
/* This file is loaded twice, as the driver (RTLD_GLOBAL) and as cuBLAS
   (RTLD_LOCAL): cuBLAS asks the driver's copy for the thread's context,
   as the real one does through the runtime. */
void *mock_current(void) { return current; }
static void *driver_current(void) {
	void *(*f)(void) = (void *(*)(void))dlsym(RTLD_DEFAULT, "mock_current");
	return f ? f() : NULL;
}
int cublasCreate_v2(blas_t **h) { FAIL("cublasCreate_v2", 3 /* ALLOC_FAILED */); if (!driver_current()) return 1; *h = calloc(1, sizeof **h); return B_OK; }
int cublasDestroy_v2(blas_t *h) { free(h); return B_OK; }
int cublasSetStream_v2(blas_t *h, void *s) { h->stream = s; return B_OK; }
int cublasGetVersion_v2(blas_t *h, int *v) { (void)h; *v = 130000; return B_OK; }
const char *cublasGetStatusName(int s) { return s == B_OK ? "CUBLAS_STATUS_SUCCESS" : "CUBLAS_STATUS_MOCK_ERROR"; }

static float half2f(uint16_t h) {
	int e = (h >> 10) & 31, m = h & 1023;
	float v = e == 0 ? ldexpf((float)m, -24) : e == 31 ? (m ? NAN : INFINITY) : ldexpf((float)(m | 1024), e - 25);
	return (h & 0x8000) ? -v : v;
}
static uint16_t f2half(float f) { /* round to nearest even, finite values in range */
	uint16_t sign = signbit(f) ? 0x8000 : 0;
	f = fabsf(f);
	if (f == 0) return sign;
	int e;
	frexpf(f, &e); /* f = x·2^e, x in [0.5, 1) */
	int exp = e - 1 + 15;
	if (exp >= 31) return sign | 0x7c00;
	float scale = exp <= 0 ? ldexpf(1, 24) : ldexpf(1, 10 - (e - 1));
	float q = nearbyintf(f * scale);
	if (exp <= 0) return sign | (uint16_t)q;
	uint32_t mq = (uint32_t)q; /* 1024..2048 */
	if (mq == 2048) { mq = 1024; exp++; }
	return sign | (uint16_t)(exp << 10) | (uint16_t)(mq - 1024);
}
static float bf2f(uint16_t b) { uint32_t u = (uint32_t)b << 16; float f; memcpy(&f, &u, 4); return f; }
static uint16_t f2bf(float f) { uint32_t u; memcpy(&u, &f, 4); u += 0x7fff + ((u >> 16) & 1); return (uint16_t)(u >> 16); }
static float tf32(float f) { uint32_t u; memcpy(&u, &f, 4); u += 0xfff + ((u >> 13) & 1); u &= ~0x1fffu; memcpy(&f, &u, 4); return f; }

static double load(const void *p, int type, long long i, int compute) {
	switch (type) {
	case 0: return compute == 77 ? tf32(((const float *)p)[i]) : ((const float *)p)[i];
	case 1: return ((const double *)p)[i];
	case 2: return half2f(((const uint16_t *)p)[i]);
	case 14: return bf2f(((const uint16_t *)p)[i]);
	}
	return NAN;
}
static void store(void *p, int type, long long i, double v) {
	switch (type) {
	case 0: ((float *)p)[i] = (float)v; break;
	case 1: ((double *)p)[i] = v; break;
	case 2: ((uint16_t *)p)[i] = f2half((float)v); break;
	case 14: ((uint16_t *)p)[i] = f2bf((float)v); break;
	}
}

int cublasGemmStridedBatchedEx(blas_t *h, int ta, int tb, int m, int n, int k, const void *alpha,
                               const void *A, int at, int lda, long long sa, const void *B, int bt, int ldb, long long sb,
                               const void *beta, void *C, int ct, int ldc, long long sc, int batch, int compute, int algo) {
	(void)algo;
	FAIL("cublasGemm", 13 /* CUBLAS_STATUS_EXECUTION_FAILED */);
	if (!driver_current() || !h || !h->stream) return 1; /* NOT_INITIALIZED: no context, or no stream set */
	int (*cap)(void *) = (int (*)(void *))dlsym(RTLD_DEFAULT, "mock_stream_capturing");
	if (cap && cap(h->stream)) return B_NOT_SUPPORTED; /* the mock's cuBLAS records no graph nodes */
	if (at != bt || at != ct) return B_NOT_SUPPORTED;
	int ok = (at == 0 && (compute == 68 || compute == 77)) || (at == 1 && compute == 70) || ((at == 2 || at == 14) && compute == 68);
	if (!ok) return B_NOT_SUPPORTED;
	double a1 = compute == 70 ? *(const double *)alpha : *(const float *)alpha;
	double b0 = compute == 70 ? *(const double *)beta : *(const float *)beta;
	if (a1 != 1 || b0 != 0) return B_INVALID;
	if (m < 0 || n < 0 || k < 0 || batch < 1 || (ta != 0 && ta != 1) || (tb != 0 && tb != 1)) return B_INVALID;
	if (lda < (ta ? (k > 1 ? k : 1) : (m > 1 ? m : 1)) || ldb < (tb ? (n > 1 ? n : 1) : (k > 1 ? k : 1)) || ldc < (m > 1 ? m : 1))
		return B_INVALID;
	for (int z = 0; z < batch; z++)
		for (int r = 0; r < m; r++)
			for (int c = 0; c < n; c++) {
				double s = 0;
				for (int p = 0; p < k; p++) {
					long long ia = ta ? p + (long long)r * lda : r + (long long)p * lda;
					long long ib = tb ? c + (long long)p * ldb : p + (long long)c * ldb;
					s += load(A, at, z * sa + ia, compute) * load(B, bt, z * sb + ib, compute);
				}
				if (at == 0) s = (float)s; /* fp32 sums: close enough for the tests' bounds */
				store(C, ct, z * sc + r + (long long)c * ldc, s);
			}
	return B_OK;
}

int cublasGemmEx(blas_t *h, int ta, int tb, int m, int n, int k, const void *alpha, const void *A, int at, int lda,
                 const void *B, int bt, int ldb, const void *beta, void *C, int ct, int ldc, int compute, int algo) {
	return cublasGemmStridedBatchedEx(h, ta, tb, m, n, k, alpha, A, at, lda, 0, B, bt, ldb, 0, beta, C, ct, ldc, 0, 1, compute, algo);
}

/* Modules. The mock NVRTC's "CUBIN" is "MOCKCUBIN\n" and the CUDA C++;
   a loaded module and a live NVRTC program hold 1 MiB of "device memory"
   each, so the tests' leak checks (MemInfo after Close) see them. */
#define MODULE_BYTES (1LL << 20)
enum { NOT_SUPPORTED = 801, NOT_FOUND = 500 };
void mock_account(long long n) { __atomic_add_fetch(&live_bytes, n, __ATOMIC_SEQ_CST); }
typedef struct func func_t;
/* ptx: a module of Halide's runtime (PTX text): its functions are found
   by any name and their launches refused after the stream check. */
typedef struct { unsigned long long magic; char *src; func_t *funcs[256]; int nfuncs; int ptx; } module_t;
struct func { module_t *m; char name[128]; int nparams; int sizes[64]; int ptr[64]; int maxshared; };
#define MOD_MAGIC 0x6d6f64756c65ULL

CUresult cuModuleLoadData(module_t **m, const void *image) {
	NEED_CTX();
	FAIL("cuModuleLoadData", 200 /* INVALID_IMAGE */);
	int ptx = image && strncmp(image, "MOCKCUBIN\n", 10) && strstr((const char *)image, ".version");
	if (!image || (strncmp(image, "MOCKCUBIN\n", 10) && !ptx)) return 200;
	module_t *x = calloc(1, sizeof *x);
	x->magic = MOD_MAGIC;
	x->ptx = ptx;
	x->src = strdup(ptx ? "" : (const char *)image + 10);
	mock_account(MODULE_BYTES);
	*m = x;
	return OK;
}
CUresult cuModuleUnload(module_t *m) {
	NEED_CTX();
	if (!m || m->magic != MOD_MAGIC) return INVALID_HANDLE;
	m->magic = 0;
	for (int i = 0; i < m->nfuncs; i++) free(m->funcs[i]);
	free(m->src);
	free(m);
	mock_account(-MODULE_BYTES);
	return OK;
}
/* The kernel is found by its extern "C" __global__ header in the source;
   parameter sizes come from their types (pointers 8, other types by
   name, anything else 16: the tests' structs). */
static int param_size(const char *p, const char *end, int *ptr) {
	for (const char *q = p; q < end; q++) if (*q == '*') { *ptr = 1; return 8; }
	*ptr = 0;
	while (p < end && (*p == ' ' || *p == '\t' || *p == '\n' || !strncmp(p, "const ", 6) || !strncmp(p, "__global ", 9)))
		p += *p == 'c' ? 6 : *p == '_' ? 9 : 1;
	static const struct { const char *t; int n; } types[] = {{"char ", 1}, {"uchar ", 1}, {"short ", 2}, {"ushort ", 2},
		{"int ", 4}, {"uint ", 4}, {"float ", 4}, {"long ", 8}, {"ulong ", 8}, {"double ", 8}, {"unsigned long ", 8}};
	for (size_t i = 0; i < sizeof types / sizeof types[0]; i++)
		if (!strncmp(p, types[i].t, strlen(types[i].t))) return types[i].n;
	return 16;
}
CUresult cuModuleGetFunction(func_t **f, module_t *m, const char *name) {
	NEED_CTX();
	if (!m || m->magic != MOD_MAGIC) return INVALID_HANDLE;
	if (m->ptx) {
		if (!name || m->nfuncs == 256) return 500;
		func_t *x = calloc(1, sizeof *x);
		x->m = m;
		strncpy(x->name, name, sizeof x->name - 1);
		m->funcs[m->nfuncs++] = x;
		*f = x;
		return OK;
	}
	size_t n = strlen(name);
	for (const char *p = m->src; (p = strstr(p, name)); p += n) {
		if (p == m->src || (p[-1] != ' ' && p[-1] != '\n') || p[n] != '(') continue;
		const char *h = p - 300 > m->src ? p - 300 : m->src;
		char head[301];
		memcpy(head, h, p - h);
		head[p - h] = 0;
		if (!strstr(head, "extern \"C\" __global__") || m->nfuncs == 256) continue;
		func_t *x = calloc(1, sizeof *x);
		x->m = m;
		strncpy(x->name, name, sizeof x->name - 1);
		const char *a = p + n + 1, *q = a;
		int depth = 0, blank = 1;
		for (; *q && (depth > 0 || *q != ')'); q++) {
			if (*q == '(') depth++;
			if (*q == ')') depth--;
			if (*q != ' ' && *q != '\n' && *q != '\t') blank = 0;
			if (*q == ',' && depth == 0 && x->nparams < 64) { x->sizes[x->nparams] = param_size(a, q, &x->ptr[x->nparams]); x->nparams++; a = q + 1; }
		}
		if (!blank && x->nparams < 64) { x->sizes[x->nparams] = param_size(a, q, &x->ptr[x->nparams]); x->nparams++; }
		m->funcs[m->nfuncs++] = x;
		*f = x;
		return OK;
	}
	return 500; /* CUDA_ERROR_NOT_FOUND */
}
CUresult cuFuncGetParamInfo(func_t *f, size_t i, size_t *off, size_t *size) {
	NEED_CTX();
	if (!f || (int)i >= f->nparams) return INVALID_VALUE;
	*off = 0;
	*size = f->sizes[i];
	return OK;
}
CUresult cuFuncSetAttribute(func_t *f, int attr, int v) {
	NEED_CTX();
	if (!f || attr != 8 || v < 0 || v > 227 * 1024) return INVALID_VALUE;
	f->maxshared = v;
	return OK;
}
static int capture_kernel(void *s, func_t *f, unsigned gx, unsigned gy, unsigned gz, unsigned bx, unsigned by, unsigned bz,
                          unsigned shared, void **params);
static void run_kernel(func_t *f, unsigned gx, unsigned gy, unsigned gz, unsigned bx, unsigned by, unsigned bz,
                       unsigned shared, void **params);
/* A launch checks what the driver would; kernel mock_store then writes,
   through its first parameter, every other parameter's bytes (each in
   8-byte words, zero-filled), then the grid, the block and the shared
   memory size, one word each. */
CUresult cuLaunchKernel(func_t *f, unsigned gx, unsigned gy, unsigned gz, unsigned bx, unsigned by, unsigned bz,
                        unsigned shared, void *s, void **params, void **extra) {
	NEED_CTX();
	NEED_STREAM(s);
	FAIL("cuLaunchKernel", 701 /* LAUNCH_OUT_OF_RESOURCES */);
	if (!f || !f->m || f->m->magic != MOD_MAGIC) return INVALID_HANDLE;
	if (f->m->ptx) return stream_live(s) ? NOT_SUPPORTED : INVALID_HANDLE;
	if (!gx || !gy || !gz || !bx || !by || !bz || gy > 65535 || gz > 65535 || bz > 64 || (unsigned long long)bx * by * bz > 1024)
		return INVALID_VALUE;
	if (shared > (unsigned)(f->maxshared > 49152 ? f->maxshared : 49152)) return INVALID_VALUE;
	if ((f->nparams && !params) || extra) return INVALID_VALUE;
	int r = capture_kernel(s, f, gx, gy, gz, bx, by, bz, shared, params);
	if (r >= 0) return r;
	run_kernel(f, gx, gy, gz, bx, by, bz, shared, params);
	return OK;
}
static void run_kernel(func_t *f, unsigned gx, unsigned gy, unsigned gz, unsigned bx, unsigned by, unsigned bz,
                       unsigned shared, void **params) {
	if (strcmp(f->name, "mock_store")) return;
	unsigned long long *out = *(unsigned long long **)params[0];
	for (int i = 1; i < f->nparams; i++) {
		memset(out, 0, (f->sizes[i] + 7) / 8 * 8);
		memcpy(out, params[i], f->sizes[i]);
		out += (f->sizes[i] + 7) / 8;
	}
	unsigned long long w[7] = {gx, gy, gz, bx, by, bz, shared};
	memcpy(out, w, sizeof w);
}

/* NVRTC: "compiles" to "MOCKCUBIN\n" + the source; #error in the source
   fails with its log, as does a missing --gpu-architecture. The log lists
   the options. */
typedef struct { char *src, *log, *image; } prog_t;
static void account(long long n) {
	void (*f)(long long) = (void (*)(long long))dlsym(RTLD_DEFAULT, "mock_account");
	if (f) f(n);
}
int nvrtcCreateProgram(prog_t **p, const char *src, const char *name, int nh, const char *const *h, const char *const *names) {
	(void)name; (void)h; (void)names;
	if (!p || !src || nh) return 3; /* INVALID_INPUT */
	prog_t *x = calloc(1, sizeof *x);
	x->src = strdup(src);
	account(MODULE_BYTES);
	*p = x;
	return 0;
}
int nvrtcCompileProgram(prog_t *p, int n, const char *const *opts) {
	FAIL("nvrtcCompileProgram", 7 /* BUILTIN_OPERATION_FAILURE */);
	size_t len = 64;
	for (int i = 0; i < n; i++) len += strlen(opts[i]) + 1;
	free(p->log);
	p->log = calloc(1, len + 64);
	strcpy(p->log, "mock nvrtc: options:");
	int arch = 0;
	for (int i = 0; i < n; i++) { strcat(p->log, " "); strcat(p->log, opts[i]); arch |= !strncmp(opts[i], "--gpu-architecture=sm_", 22); }
	strcat(p->log, "\n");
	if (!arch) { strcat(p->log, "error: no --gpu-architecture\n"); return 5; /* INVALID_OPTION */ }
	if (strstr(p->src, "#error")) { strcat(p->log, "opencl.cu: error: #error directive\n"); return 6; }
	free(p->image);
	p->image = malloc(strlen(p->src) + 11);
	strcpy(p->image, "MOCKCUBIN\n");
	strcat(p->image, p->src);
	return 0;
}
int nvrtcGetProgramLogSize(prog_t *p, size_t *n) { *n = p->log ? strlen(p->log) + 1 : 1; return 0; }
int nvrtcGetProgramLog(prog_t *p, char *buf) { strcpy(buf, p->log ? p->log : ""); return 0; }
int nvrtcGetCUBINSize(prog_t *p, size_t *n) { if (!p->image) return 3; *n = strlen(p->image) + 1; return 0; }
int nvrtcGetCUBIN(prog_t *p, char *buf) { if (!p->image) return 3; strcpy(buf, p->image); return 0; }
int nvrtcDestroyProgram(prog_t **p) {
	if (!p || !*p) return 3;
	free((*p)->src); free((*p)->log); free((*p)->image); free(*p);
	*p = NULL;
	account(-MODULE_BYTES);
	return 0;
}
const char *nvrtcGetErrorString(int r) { return r ? "NVRTC_ERROR_MOCK" : "NVRTC_SUCCESS"; }
int nvrtcVersion(int *major, int *minor) { *major = 13; *minor = 0; return 0; }

/* For tests: bytes allocated and not freed, primary context retains. */
long long mock_live_bytes(void) { return live_bytes; }
int mock_retains(void) { return retains; }

/* What Halide's CUDA runtime (package halide) needs besides the above.
   The module calls above load its PTX too (a module, 1 MiB of "device
   memory", so one never unloaded shows as a leak in cuMemGetInfo) and run
   none of its kernels: cuLaunchKernel checks the context and the stream (a
   live one of ours, not the NULL stream) and returns
   CUDA_ERROR_NOT_SUPPORTED. */
static __thread void *ctx_stack[16];
static __thread int ctx_depth;
CUresult cuCtxPushCurrent_v2(void *ctx) {
	if (ctx != CTX || retains <= 0 || ctx_depth == 16) return INVALID_CONTEXT;
	ctx_stack[ctx_depth++] = current;
	current = ctx;
	return OK;
}
CUresult cuCtxPopCurrent_v2(void **ctx) {
	if (ctx_depth == 0) return INVALID_CONTEXT;
	if (ctx) *ctx = current;
	current = ctx_stack[--ctx_depth];
	return OK;
}
CUresult cuCtxCreate_v2(void **ctx, unsigned flags, int d) { (void)ctx; (void)flags; (void)d; return NOT_SUPPORTED; }
CUresult cuCtxDestroy_v2(void *ctx) { (void)ctx; return INVALID_CONTEXT; }
CUresult cuCtxGetApiVersion(void *ctx, unsigned *v) { (void)ctx; *v = 13000; return OK; }
CUresult cuCtxGetDevice(int *d) { NEED_CTX(); *d = 0; return OK; }
CUresult cuCtxSynchronize(void) { NEED_CTX(); return OK; }
CUresult cuProfilerStop(void) { return OK; }
CUresult cuPointerGetAttribute(void *v, int attr, CUdeviceptr p) { (void)v; (void)attr; (void)p; return NOT_SUPPORTED; }
CUresult cuMemcpyHtoD_v2(CUdeviceptr d, const void *h, size_t n) { NEED_CTX(); memcpy((void *)(uintptr_t)d, h, n); return OK; }
CUresult cuMemcpyDtoH_v2(void *h, CUdeviceptr d, size_t n) { NEED_CTX(); memcpy(h, (void *)(uintptr_t)d, n); return OK; }
CUresult cuMemcpyDtoD_v2(CUdeviceptr d, CUdeviceptr s, size_t n) { NEED_CTX(); memmove((void *)(uintptr_t)d, (void *)(uintptr_t)s, n); return OK; }
CUresult cuMemcpy3D_v2(const void *p) { (void)p; NEED_CTX(); return NOT_SUPPORTED; }
CUresult cuModuleLoadDataEx(void **m, const void *img, unsigned n, void *opts, void **vals) {
	(void)n; (void)opts; (void)vals;
	FAIL("cuModuleLoadDataEx", 218 /* CUDA_ERROR_INVALID_PTX */);
	return cuModuleLoadData((module_t **)m, img);
}

/* Stream capture and graphs. A capturing stream records copies,
   memsets, host functions and launches as nodes (a launch's parameter
   values copied, as the driver does); EndCapture returns the graph, an instantiated graph
   copies its nodes, and a launch runs them in order. Graphs and
   instantiated graphs hold HANDLE_BYTES each, so one never destroyed
   shows as a leak. The mock's cuBLAS refuses a capturing stream. */
enum { NODE_KERNEL = 0, NODE_MEMCPY = 1, NODE_MEMSET = 2, NODE_HOST = 3, GRAPH_MAGIC = 0x67726170 };
typedef struct {
	int type;
	func_t *f;
	unsigned g[3], b[3], shared;
	char *pbuf;
	void *pptr[64];
	copy2d_t c;
	CUdeviceptr dst;
	unsigned char v;
	size_t n;
	void (*fn)(void *); /* a host node's function and its data */
	void *data;
} node_t;
struct graph { unsigned magic; node_t **nodes; int n, cap; };
typedef struct { unsigned magic; graph_t *g; node_t *copy; } exec_t;

int mock_stream_capturing(void *s) { return capturing(s) != NULL; }
int mock_graphs_live; /* graphs and instantiated graphs not destroyed */

static node_t *add_node(graph_t *g, int type) {
	if (g->n == g->cap) {
		g->cap = g->cap ? 2 * g->cap : 16;
		g->nodes = realloc(g->nodes, g->cap * sizeof *g->nodes);
	}
	node_t *x = calloc(1, sizeof *x);
	x->type = type;
	g->nodes[g->n++] = x;
	return x;
}
static void graph_free(graph_t *g) {
	for (int i = 0; i < g->n; i++) { free(g->nodes[i]->pbuf); free(g->nodes[i]); }
	free(g->nodes);
	g->magic = 0;
	free(g);
}
static int capture_copy(void *s, const copy2d_t *c) {
	stream_t *x = capturing(s);
	if (!x) return -1;
	add_node(x->cap, NODE_MEMCPY)->c = *c;
	return OK;
}
static int capture_memset(void *s, CUdeviceptr d, unsigned char v, size_t n) {
	stream_t *x = capturing(s);
	if (!x) return -1;
	node_t *nd = add_node(x->cap, NODE_MEMSET);
	nd->dst = d; nd->v = v; nd->n = n;
	return OK;
}
/* Copies f's parameter values into nd. */
static void set_params(node_t *nd, func_t *f, void **params) {
	size_t total = 0;
	for (int i = 0; i < f->nparams; i++) total += (f->sizes[i] + 15) / 16 * 16;
	free(nd->pbuf);
	nd->pbuf = calloc(1, total ? total : 1);
	size_t off = 0;
	for (int i = 0; i < f->nparams; i++) {
		memcpy(nd->pbuf + off, params[i], f->sizes[i]);
		nd->pptr[i] = nd->pbuf + off;
		off += (f->sizes[i] + 15) / 16 * 16;
	}
}
static int capture_kernel(void *s, func_t *f, unsigned gx, unsigned gy, unsigned gz, unsigned bx, unsigned by, unsigned bz,
                          unsigned shared, void **params) {
	stream_t *x = capturing(s);
	if (!x) return -1;
	node_t *nd = add_node(x->cap, NODE_KERNEL);
	nd->f = f;
	nd->g[0] = gx; nd->g[1] = gy; nd->g[2] = gz;
	nd->b[0] = bx; nd->b[1] = by; nd->b[2] = bz;
	nd->shared = shared;
	set_params(nd, f, params);
	return OK;
}
static void run_node(node_t *nd) {
	switch (nd->type) {
	case NODE_MEMCPY: run_copy(&nd->c); break;
	case NODE_MEMSET: memset((void *)(uintptr_t)nd->dst, nd->v, nd->n); break;
	case NODE_HOST: nd->fn(nd->data); break;
	default: run_kernel(nd->f, nd->g[0], nd->g[1], nd->g[2], nd->b[0], nd->b[1], nd->b[2], nd->shared, nd->pptr);
	}
}

/* A host function: run at once, as everything is, or recorded as a host
   node that runs at each launch of the graph. */
CUresult cuLaunchHostFunc(void *s, void (*fn)(void *), void *data) {
	NEED_CTX(); NEED_STREAM(s);
	FAIL("cuLaunchHostFunc", NOT_SUPPORTED);
	if (!fn) return INVALID_VALUE;
	stream_t *x = capturing(s);
	if (!x) { fn(data); return OK; }
	node_t *nd = add_node(x->cap, NODE_HOST);
	nd->fn = fn; nd->data = data;
	return OK;
}

CUresult cuStreamBeginCapture_v2(void *s, int mode) {
	NEED_CTX(); NEED_STREAM(s);
	FAIL("cuStreamBeginCapture_v2", ILLEGAL_STATE);
	if (!stream_live(s) || mode < 0 || mode > 2) return INVALID_VALUE;
	stream_t *x = s;
	if (x->cap) return ILLEGAL_STATE;
	x->cap = calloc(1, sizeof *x->cap);
	x->cap->magic = GRAPH_MAGIC;
	x->bad = 0;
	return OK;
}
CUresult cuStreamEndCapture(void *s, graph_t **g) {
	NEED_CTX(); NEED_STREAM(s);
	stream_t *x = capturing(s);
	*g = NULL;
	if (!x) return ILLEGAL_STATE;
	graph_t *c = x->cap;
	x->cap = NULL;
	if (x->bad) { graph_free(c); return CAPTURE_INVALIDATED; }
	*g = c;
	mock_account(HANDLE_BYTES);
	mock_graphs_live++;
	return OK;
}
CUresult cuGraphInstantiateWithFlags(exec_t **e, graph_t *g, unsigned long long flags) {
	NEED_CTX();
	FAIL("cuGraphInstantiateWithFlags", OUT_OF_MEMORY);
	if (!g || g->magic != GRAPH_MAGIC || flags) return INVALID_VALUE;
	exec_t *x = calloc(1, sizeof *x);
	x->magic = GRAPH_MAGIC;
	x->g = g;
	x->copy = calloc(g->n ? g->n : 1, sizeof *x->copy);
	for (int i = 0; i < g->n; i++) {
		x->copy[i] = *g->nodes[i];
		x->copy[i].pbuf = NULL;
		if (g->nodes[i]->type == NODE_KERNEL) set_params(&x->copy[i], g->nodes[i]->f, g->nodes[i]->pptr);
	}
	*e = x;
	mock_account(HANDLE_BYTES);
	mock_graphs_live++;
	return OK;
}
CUresult cuGraphLaunch(exec_t *e, void *s) {
	NEED_CTX(); NEED_STREAM(s);
	FAIL("cuGraphLaunch", 719 /* LAUNCH_FAILED */);
	if (!e || e->magic != GRAPH_MAGIC) return INVALID_HANDLE;
	if (capturing(s)) return NOT_SUPPORTED; /* no child graphs in the mock */
	for (int i = 0; i < e->g->n; i++) run_node(&e->copy[i]);
	return OK;
}
CUresult cuGraphExecDestroy(exec_t *e) {
	NEED_CTX();
	if (!e || e->magic != GRAPH_MAGIC) return INVALID_HANDLE;
	for (int i = 0; i < e->g->n; i++) free(e->copy[i].pbuf);
	free(e->copy);
	e->magic = 0;
	free(e);
	mock_account(-HANDLE_BYTES);
	mock_graphs_live--;
	return OK;
}
CUresult cuGraphDestroy(graph_t *g) {
	NEED_CTX();
	if (!g || g->magic != GRAPH_MAGIC) return INVALID_HANDLE;
	graph_free(g);
	mock_account(-HANDLE_BYTES);
	mock_graphs_live--;
	return OK;
}
CUresult cuGraphGetNodes(graph_t *g, node_t **nodes, size_t *n) {
	if (!g || g->magic != GRAPH_MAGIC || !n) return INVALID_VALUE;
	if (nodes) for (int i = 0; i < g->n && (size_t)i < *n; i++) nodes[i] = g->nodes[i];
	*n = g->n;
	return OK;
}
CUresult cuGraphNodeGetType(node_t *nd, int *t) { if (!nd) return INVALID_VALUE; *t = nd->type; return OK; }
typedef struct {
	void *func;
	unsigned gx, gy, gz, bx, by, bz, shared;
	void **kernelParams;
	void **extra;
	void *kern;
	void *ctx;
} kparams_t;
CUresult cuGraphKernelNodeGetParams_v2(node_t *nd, kparams_t *p) {
	if (!nd || nd->type != NODE_KERNEL) return INVALID_VALUE;
	p->func = nd->f;
	p->gx = nd->g[0]; p->gy = nd->g[1]; p->gz = nd->g[2];
	p->bx = nd->b[0]; p->by = nd->b[1]; p->bz = nd->b[2];
	p->shared = nd->shared;
	p->kernelParams = nd->pptr;
	p->extra = NULL; p->kern = NULL; p->ctx = CTX;
	return OK;
}
CUresult cuGraphExecKernelNodeSetParams_v2(exec_t *e, node_t *nd, const kparams_t *p) {
	NEED_CTX();
	if (!e || e->magic != GRAPH_MAGIC || !nd || !p) return INVALID_VALUE;
	for (int i = 0; i < e->g->n; i++) {
		if (e->g->nodes[i] != nd) continue;
		if (nd->type != NODE_KERNEL || p->func != nd->f || p->extra || (nd->f->nparams && !p->kernelParams)) return INVALID_VALUE;
		set_params(&e->copy[i], nd->f, p->kernelParams);
		return OK;
	}
	return INVALID_VALUE;
}
