//go:build cgo

#include "shim.h"

#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>

typedef void *H; // every OpenCL handle is an opaque pointer

#define CL_INVALID_OPERATION (-59)
#define CL_PLATFORM_NOT_FOUND_KHR (-1001)
#define CL_CONTEXT_PLATFORM 0x1084
#define CL_BUFFER_CREATE_TYPE_REGION 0x1220

// X(name, return type, parameter list, required)
#define RCL_FUNCS(X) \
	X(clGetPlatformIDs, cl_int, (cl_uint, H *, cl_uint *), 1) \
	X(clGetPlatformInfo, cl_int, (H, cl_uint, size_t, void *, size_t *), 1) \
	X(clGetDeviceIDs, cl_int, (H, cl_ulong, cl_uint, H *, cl_uint *), 1) \
	X(clGetDeviceInfo, cl_int, (H, cl_uint, size_t, void *, size_t *), 1) \
	X(clCreateContext, H, (const intptr_t *, cl_uint, const H *, void *, void *, cl_int *), 1) \
	X(clRetainContext, cl_int, (H), 1) \
	X(clReleaseContext, cl_int, (H), 1) \
	X(clGetContextInfo, cl_int, (H, cl_uint, size_t, void *, size_t *), 1) \
	X(clCreateCommandQueue, H, (H, H, cl_ulong, cl_int *), 1) \
	X(clRetainCommandQueue, cl_int, (H), 1) \
	X(clReleaseCommandQueue, cl_int, (H), 1) \
	X(clGetCommandQueueInfo, cl_int, (H, cl_uint, size_t, void *, size_t *), 1) \
	X(clCreateBuffer, H, (H, cl_ulong, size_t, void *, cl_int *), 1) \
	X(clCreateSubBuffer, H, (H, cl_ulong, cl_uint, const void *, cl_int *), 1) \
	X(clRetainMemObject, cl_int, (H), 1) \
	X(clReleaseMemObject, cl_int, (H), 1) \
	X(clGetMemObjectInfo, cl_int, (H, cl_uint, size_t, void *, size_t *), 1) \
	X(clCreateProgramWithSource, H, (H, cl_uint, const char **, const size_t *, cl_int *), 1) \
	X(clBuildProgram, cl_int, (H, cl_uint, const H *, const char *, void *, void *), 1) \
	X(clGetProgramInfo, cl_int, (H, cl_uint, size_t, void *, size_t *), 1) \
	X(clGetProgramBuildInfo, cl_int, (H, H, cl_uint, size_t, void *, size_t *), 1) \
	X(clRetainProgram, cl_int, (H), 1) \
	X(clReleaseProgram, cl_int, (H), 1) \
	X(clCreateKernel, H, (H, const char *, cl_int *), 1) \
	X(clRetainKernel, cl_int, (H), 1) \
	X(clReleaseKernel, cl_int, (H), 1) \
	X(clSetKernelArg, cl_int, (H, cl_uint, size_t, const void *), 1) \
	X(clGetKernelInfo, cl_int, (H, cl_uint, size_t, void *, size_t *), 1) \
	X(clGetKernelWorkGroupInfo, cl_int, (H, H, cl_uint, size_t, void *, size_t *), 1) \
	X(clWaitForEvents, cl_int, (cl_uint, const H *), 1) \
	X(clGetEventInfo, cl_int, (H, cl_uint, size_t, void *, size_t *), 1) \
	X(clGetEventProfilingInfo, cl_int, (H, cl_uint, size_t, void *, size_t *), 1) \
	X(clRetainEvent, cl_int, (H), 1) \
	X(clReleaseEvent, cl_int, (H), 1) \
	X(clFlush, cl_int, (H), 1) \
	X(clFinish, cl_int, (H), 1) \
	X(clEnqueueMarkerWithWaitList, cl_int, (H, cl_uint, const H *, H *), 1) \
	X(clEnqueueBarrierWithWaitList, cl_int, (H, cl_uint, const H *, H *), 1) \
	X(clEnqueueReadBuffer, cl_int, (H, H, cl_bool, size_t, size_t, void *, cl_uint, const H *, H *), 1) \
	X(clEnqueueWriteBuffer, cl_int, (H, H, cl_bool, size_t, size_t, const void *, cl_uint, const H *, H *), 1) \
	X(clEnqueueReadBufferRect, cl_int, (H, H, cl_bool, const size_t *, const size_t *, const size_t *, size_t, size_t, size_t, size_t, void *, cl_uint, const H *, H *), 1) \
	X(clEnqueueWriteBufferRect, cl_int, (H, H, cl_bool, const size_t *, const size_t *, const size_t *, size_t, size_t, size_t, size_t, const void *, cl_uint, const H *, H *), 1) \
	X(clEnqueueCopyBuffer, cl_int, (H, H, H, size_t, size_t, size_t, cl_uint, const H *, H *), 1) \
	X(clEnqueueCopyBufferRect, cl_int, (H, H, H, const size_t *, const size_t *, const size_t *, size_t, size_t, size_t, size_t, cl_uint, const H *, H *), 1) \
	X(clEnqueueFillBuffer, cl_int, (H, H, const void *, size_t, size_t, size_t, cl_uint, const H *, H *), 0) \
	X(clEnqueueMapBuffer, void *, (H, H, cl_bool, cl_ulong, size_t, size_t, cl_uint, const H *, H *, cl_int *), 1) \
	X(clEnqueueUnmapMemObject, cl_int, (H, H, void *, cl_uint, const H *, H *), 1) \
	X(clEnqueueNDRangeKernel, cl_int, (H, H, cl_uint, const size_t *, const size_t *, const size_t *, cl_uint, const H *, H *), 1) \
	X(clCreateSubDevices, cl_int, (H, const intptr_t *, cl_uint, H *, cl_uint *), 0) \
	X(clReleaseDevice, cl_int, (H), 0) \
	X(clGetExtensionFunctionAddressForPlatform, void *, (H, const char *), 0)

#define DECLARE(name, ret, params, req) static ret(*p_##name) params;
RCL_FUNCS(DECLARE)
#undef DECLARE

static pthread_mutex_t load_mu = PTHREAD_MUTEX_INITIALIZER;
static int loaded;

int rcl_load(char *err, size_t n) {
	pthread_mutex_lock(&load_mu);
	if (__atomic_load_n(&loaded, __ATOMIC_ACQUIRE)) {
		pthread_mutex_unlock(&load_mu);
		return 0;
	}
	// GLOBAL: Halide's runtime in the same process finds the entry points
	// here instead of dlopening an unversioned libOpenCL.so of its own.
	void *lib = dlopen("libOpenCL.so.1", RTLD_NOW | RTLD_GLOBAL);
	if (!lib) {
		const char *e = dlerror();
		snprintf(err, n, "%s", e ? e : "dlopen libOpenCL.so.1 failed");
		pthread_mutex_unlock(&load_mu);
		return -1;
	}
#define LOOKUP(name, ret, params, req)                                             \
	p_##name = (ret(*) params)dlsym(lib, #name);                                   \
	if (!p_##name && req) {                                                        \
		snprintf(err, n, "libOpenCL.so.1 lacks %s (need OpenCL 1.2)", #name); \
		pthread_mutex_unlock(&load_mu);                                            \
		return -1;                                                                 \
	}
	RCL_FUNCS(LOOKUP)
#undef LOOKUP
	__atomic_store_n(&loaded, 1, __ATOMIC_RELEASE);
	pthread_mutex_unlock(&load_mu);
	return 0;
}

// Acquire pairs with rcl_load's release store: a goroutine on another
// thread sees the filled table.
#define NOT_LOADED(ret)                                  \
	if (!__atomic_load_n(&loaded, __ATOMIC_ACQUIRE)) { \
		return ret;                                      \
	}

cl_int rcl_get_platform_ids(cl_uint n, uintptr_t *out, cl_uint *num) {
	NOT_LOADED(CL_PLATFORM_NOT_FOUND_KHR)
	return p_clGetPlatformIDs(n, (H *)out, num);
}

cl_int rcl_get_device_ids(uintptr_t platform, cl_ulong type, cl_uint n, uintptr_t *out, cl_uint *num) {
	NOT_LOADED(CL_PLATFORM_NOT_FOUND_KHR)
	return p_clGetDeviceIDs((H)platform, type, n, (H *)out, num);
}

cl_int rcl_get_info(int kind, uintptr_t obj, uintptr_t obj2, cl_uint param, size_t size, void *out, size_t *ret) {
	NOT_LOADED(CL_PLATFORM_NOT_FOUND_KHR)
	H o = (H)obj;
	switch (kind) {
	case RCL_PLATFORM: return p_clGetPlatformInfo(o, param, size, out, ret);
	case RCL_DEVICE: return p_clGetDeviceInfo(o, param, size, out, ret);
	case RCL_CONTEXT: return p_clGetContextInfo(o, param, size, out, ret);
	case RCL_QUEUE: return p_clGetCommandQueueInfo(o, param, size, out, ret);
	case RCL_MEM: return p_clGetMemObjectInfo(o, param, size, out, ret);
	case RCL_PROGRAM: return p_clGetProgramInfo(o, param, size, out, ret);
	case RCL_PROGRAM_BUILD: return p_clGetProgramBuildInfo(o, (H)obj2, param, size, out, ret);
	case RCL_KERNEL: return p_clGetKernelInfo(o, param, size, out, ret);
	case RCL_KERNEL_WORK_GROUP: return p_clGetKernelWorkGroupInfo(o, (H)obj2, param, size, out, ret);
	case RCL_EVENT: return p_clGetEventInfo(o, param, size, out, ret);
	case RCL_EVENT_PROFILING: return p_clGetEventProfilingInfo(o, param, size, out, ret);
	}
	return -30; // CL_INVALID_VALUE
}

cl_int rcl_retain(int kind, uintptr_t obj) {
	NOT_LOADED(CL_PLATFORM_NOT_FOUND_KHR)
	H o = (H)obj;
	switch (kind) {
	case RCL_CONTEXT: return p_clRetainContext(o);
	case RCL_QUEUE: return p_clRetainCommandQueue(o);
	case RCL_MEM: return p_clRetainMemObject(o);
	case RCL_PROGRAM: return p_clRetainProgram(o);
	case RCL_KERNEL: return p_clRetainKernel(o);
	case RCL_EVENT: return p_clRetainEvent(o);
	}
	return -30;
}

cl_int rcl_release(int kind, uintptr_t obj) {
	NOT_LOADED(CL_PLATFORM_NOT_FOUND_KHR)
	H o = (H)obj;
	switch (kind) {
	case RCL_CONTEXT: return p_clReleaseContext(o);
	case RCL_QUEUE: return p_clReleaseCommandQueue(o);
	case RCL_MEM: return p_clReleaseMemObject(o);
	case RCL_PROGRAM: return p_clReleaseProgram(o);
	case RCL_KERNEL: return p_clReleaseKernel(o);
	case RCL_EVENT: return p_clReleaseEvent(o);
	}
	return -30;
}

#define CL_DEVICE_PARTITION_EQUALLY 0x1086

cl_int rcl_create_sub_devices(uintptr_t dev, cl_uint units, cl_uint n, uintptr_t *out, cl_uint *num) {
	NOT_LOADED(CL_PLATFORM_NOT_FOUND_KHR)
	if (!p_clCreateSubDevices) {
		return CL_INVALID_OPERATION;
	}
	intptr_t props[3] = {CL_DEVICE_PARTITION_EQUALLY, (intptr_t)units, 0};
	return p_clCreateSubDevices((H)dev, props, n, (H *)out, num);
}

cl_int rcl_release_device(uintptr_t dev) {
	NOT_LOADED(CL_PLATFORM_NOT_FOUND_KHR)
	return p_clReleaseDevice ? p_clReleaseDevice((H)dev) : 0;
}

rcl_obj rcl_create_context(uintptr_t platform, cl_uint n, const uintptr_t *devices) {
	rcl_obj r = {0, CL_PLATFORM_NOT_FOUND_KHR};
	NOT_LOADED(r)
	intptr_t props[3] = {CL_CONTEXT_PLATFORM, (intptr_t)platform, 0};
	r.h = (uintptr_t)p_clCreateContext(platform ? props : NULL, n, (const H *)devices, NULL, NULL, &r.err);
	return r;
}

rcl_obj rcl_create_queue(uintptr_t ctx, uintptr_t dev, cl_ulong props) {
	rcl_obj r = {0, CL_PLATFORM_NOT_FOUND_KHR};
	NOT_LOADED(r)
	r.h = (uintptr_t)p_clCreateCommandQueue((H)ctx, (H)dev, props, &r.err);
	return r;
}

rcl_obj rcl_create_buffer(uintptr_t ctx, cl_ulong flags, size_t size) {
	rcl_obj r = {0, CL_PLATFORM_NOT_FOUND_KHR};
	NOT_LOADED(r)
	r.h = (uintptr_t)p_clCreateBuffer((H)ctx, flags, size, NULL, &r.err);
	return r;
}

rcl_obj rcl_create_sub_buffer(uintptr_t mem, cl_ulong flags, size_t origin, size_t size) {
	rcl_obj r = {0, CL_PLATFORM_NOT_FOUND_KHR};
	NOT_LOADED(r)
	size_t region[2] = {origin, size}; // cl_buffer_region
	r.h = (uintptr_t)p_clCreateSubBuffer((H)mem, flags, CL_BUFFER_CREATE_TYPE_REGION, region, &r.err);
	return r;
}

cl_int rcl_rw(uintptr_t q, uintptr_t mem, int write, cl_bool blocking, size_t off, size_t n, void *ptr,
	cl_uint nwait, const uintptr_t *wait, uintptr_t *ev) {
	NOT_LOADED(CL_PLATFORM_NOT_FOUND_KHR)
	if (write) {
		return p_clEnqueueWriteBuffer((H)q, (H)mem, blocking, off, n, ptr, nwait, (const H *)wait, (H *)ev);
	}
	return p_clEnqueueReadBuffer((H)q, (H)mem, blocking, off, n, ptr, nwait, (const H *)wait, (H *)ev);
}

cl_int rcl_rw_rect(uintptr_t q, uintptr_t mem, int write, cl_bool blocking, const size_t *buf_origin,
	const size_t *host_origin, const size_t *region, size_t buf_row, size_t buf_slice, size_t host_row,
	size_t host_slice, void *ptr, cl_uint nwait, const uintptr_t *wait, uintptr_t *ev) {
	NOT_LOADED(CL_PLATFORM_NOT_FOUND_KHR)
	if (write) {
		return p_clEnqueueWriteBufferRect((H)q, (H)mem, blocking, buf_origin, host_origin, region, buf_row,
			buf_slice, host_row, host_slice, ptr, nwait, (const H *)wait, (H *)ev);
	}
	return p_clEnqueueReadBufferRect((H)q, (H)mem, blocking, buf_origin, host_origin, region, buf_row,
		buf_slice, host_row, host_slice, ptr, nwait, (const H *)wait, (H *)ev);
}

cl_int rcl_copy(uintptr_t q, uintptr_t src, uintptr_t dst, size_t src_off, size_t dst_off, size_t n,
	cl_uint nwait, const uintptr_t *wait, uintptr_t *ev) {
	NOT_LOADED(CL_PLATFORM_NOT_FOUND_KHR)
	return p_clEnqueueCopyBuffer((H)q, (H)src, (H)dst, src_off, dst_off, n, nwait, (const H *)wait, (H *)ev);
}

cl_int rcl_copy_rect(uintptr_t q, uintptr_t src, uintptr_t dst, const size_t *src_origin,
	const size_t *dst_origin, const size_t *region, size_t src_row, size_t src_slice, size_t dst_row,
	size_t dst_slice, cl_uint nwait, const uintptr_t *wait, uintptr_t *ev) {
	NOT_LOADED(CL_PLATFORM_NOT_FOUND_KHR)
	return p_clEnqueueCopyBufferRect((H)q, (H)src, (H)dst, src_origin, dst_origin, region, src_row, src_slice,
		dst_row, dst_slice, nwait, (const H *)wait, (H *)ev);
}

cl_int rcl_fill(uintptr_t q, uintptr_t mem, const void *pattern, size_t psize, size_t off, size_t n,
	cl_uint nwait, const uintptr_t *wait, uintptr_t *ev) {
	NOT_LOADED(CL_PLATFORM_NOT_FOUND_KHR)
	if (!p_clEnqueueFillBuffer) {
		return CL_INVALID_OPERATION;
	}
	return p_clEnqueueFillBuffer((H)q, (H)mem, pattern, psize, off, n, nwait, (const H *)wait, (H *)ev);
}

rcl_ptr rcl_map(uintptr_t q, uintptr_t mem, cl_bool blocking, cl_ulong flags, size_t off, size_t n,
	cl_uint nwait, const uintptr_t *wait, uintptr_t *ev) {
	rcl_ptr r = {NULL, CL_PLATFORM_NOT_FOUND_KHR};
	NOT_LOADED(r)
	r.p = p_clEnqueueMapBuffer((H)q, (H)mem, blocking, flags, off, n, nwait, (const H *)wait, (H *)ev, &r.err);
	return r;
}

cl_int rcl_unmap(uintptr_t q, uintptr_t mem, void *ptr, cl_uint nwait, const uintptr_t *wait, uintptr_t *ev) {
	NOT_LOADED(CL_PLATFORM_NOT_FOUND_KHR)
	return p_clEnqueueUnmapMemObject((H)q, (H)mem, ptr, nwait, (const H *)wait, (H *)ev);
}

rcl_obj rcl_create_program(uintptr_t ctx, const char *src, size_t len) {
	rcl_obj r = {0, CL_PLATFORM_NOT_FOUND_KHR};
	NOT_LOADED(r)
	r.h = (uintptr_t)p_clCreateProgramWithSource((H)ctx, 1, &src, &len, &r.err);
	return r;
}

cl_int rcl_build_program(uintptr_t prog, cl_uint n, const uintptr_t *devices, const char *options) {
	NOT_LOADED(CL_PLATFORM_NOT_FOUND_KHR)
	return p_clBuildProgram((H)prog, n, (const H *)devices, options, NULL, NULL);
}

rcl_obj rcl_create_kernel(uintptr_t prog, const char *name) {
	rcl_obj r = {0, CL_PLATFORM_NOT_FOUND_KHR};
	NOT_LOADED(r)
	r.h = (uintptr_t)p_clCreateKernel((H)prog, name, &r.err);
	return r;
}

cl_int rcl_set_kernel_arg(uintptr_t k, cl_uint idx, size_t size, const void *value) {
	NOT_LOADED(CL_PLATFORM_NOT_FOUND_KHR)
	return p_clSetKernelArg((H)k, idx, size, value);
}

cl_int rcl_ndrange(uintptr_t q, uintptr_t k, cl_uint dims, const size_t *offset, const size_t *global,
	const size_t *local, cl_uint nwait, const uintptr_t *wait, uintptr_t *ev) {
	NOT_LOADED(CL_PLATFORM_NOT_FOUND_KHR)
	return p_clEnqueueNDRangeKernel((H)q, (H)k, dims, offset, global, local, nwait, (const H *)wait, (H *)ev);
}

cl_int rcl_wait(cl_uint n, const uintptr_t *events) {
	NOT_LOADED(CL_PLATFORM_NOT_FOUND_KHR)
	return p_clWaitForEvents(n, (const H *)events);
}

cl_int rcl_flush(uintptr_t q) {
	NOT_LOADED(CL_PLATFORM_NOT_FOUND_KHR)
	return p_clFlush((H)q);
}

cl_int rcl_marker(uintptr_t q, cl_uint nwait, const uintptr_t *wait, uintptr_t *ev) {
	NOT_LOADED(CL_PLATFORM_NOT_FOUND_KHR)
	return p_clEnqueueMarkerWithWaitList((H)q, nwait, (const H *)wait, (H *)ev);
}

cl_int rcl_barrier(uintptr_t q, cl_uint nwait, const uintptr_t *wait, uintptr_t *ev) {
	NOT_LOADED(CL_PLATFORM_NOT_FOUND_KHR)
	return p_clEnqueueBarrierWithWaitList((H)q, nwait, (const H *)wait, (H *)ev);
}

cl_int rcl_finish(uintptr_t q) {
	NOT_LOADED(CL_PLATFORM_NOT_FOUND_KHR)
	return p_clFinish((H)q);
}

// cl_khr_command_buffer (0.9.0 to 0.9.4), found per platform.
static struct {
	H (*Create)(cl_uint, const H *, const cl_ulong *, cl_int *);
	cl_int (*Finalize)(H);
	cl_int (*Release)(H);
	cl_int (*Enqueue)(cl_uint, H *, H, cl_uint, const H *, H *);
	cl_int (*Copy)(H, H, H, H, size_t, size_t, size_t, cl_uint, const cl_uint *, cl_uint *, H *);
	cl_int (*NDRange)(H, H, const cl_ulong *, H, cl_uint, const size_t *, const size_t *, const size_t *,
	                  cl_uint, const cl_uint *, cl_uint *, H *);
} cb;
static pthread_mutex_t cb_mu = PTHREAD_MUTEX_INITIALIZER;
static uintptr_t cb_platform;

int rcl_cmdbuf_load(uintptr_t platform) {
	NOT_LOADED(-1);
	if (!p_clGetExtensionFunctionAddressForPlatform) return -1;
	pthread_mutex_lock(&cb_mu);
	int ok = cb_platform == platform;
	if (!ok && !cb_platform) {
#define F(field, name) *(void **)&cb.field = p_clGetExtensionFunctionAddressForPlatform((H)platform, name)
		F(Create, "clCreateCommandBufferKHR");
		F(Finalize, "clFinalizeCommandBufferKHR");
		F(Release, "clReleaseCommandBufferKHR");
		F(Enqueue, "clEnqueueCommandBufferKHR");
		F(Copy, "clCommandCopyBufferKHR");
		F(NDRange, "clCommandNDRangeKernelKHR");
#undef F
		ok = cb.Create && cb.Finalize && cb.Release && cb.Enqueue && cb.Copy && cb.NDRange;
		if (ok) cb_platform = platform;
	}
	pthread_mutex_unlock(&cb_mu);
	return ok ? 0 : -1;
}

#define CL_COMMAND_BUFFER_FLAGS_KHR 0x1293

rcl_obj rcl_cmdbuf_create(uintptr_t q, int simultaneous) {
	rcl_obj r = {0, CL_INVALID_OPERATION};
	if (!cb.Create) return r;
	H queue = (H)q;
	cl_ulong props[3] = {CL_COMMAND_BUFFER_FLAGS_KHR, 1 /* SIMULTANEOUS_USE */, 0};
	r.h = (uintptr_t)cb.Create(1, &queue, simultaneous ? props : NULL, &r.err);
	return r;
}

cl_int rcl_cmdbuf_ndrange(uintptr_t b, uintptr_t k, cl_uint dims, const size_t *global, const size_t *local,
	int chained, cl_uint *sync) {
	if (!cb.NDRange) return CL_INVALID_OPERATION;
	cl_uint prev = *sync;
	return cb.NDRange((H)b, NULL, NULL, (H)k, dims, NULL, global, local, chained ? 1 : 0, chained ? &prev : NULL, sync, NULL);
}

cl_int rcl_cmdbuf_copy(uintptr_t b, uintptr_t src, uintptr_t dst, size_t src_off, size_t dst_off, size_t n,
	int chained, cl_uint *sync) {
	if (!cb.Copy) return CL_INVALID_OPERATION;
	cl_uint prev = *sync;
	return cb.Copy((H)b, NULL, (H)src, (H)dst, src_off, dst_off, n, chained ? 1 : 0, chained ? &prev : NULL, sync, NULL);
}

cl_int rcl_cmdbuf_finalize(uintptr_t b) { return cb.Finalize ? cb.Finalize((H)b) : CL_INVALID_OPERATION; }

cl_int rcl_cmdbuf_enqueue(uintptr_t q, uintptr_t b, cl_uint nwait, const uintptr_t *wait, uintptr_t *ev) {
	if (!cb.Enqueue) return CL_INVALID_OPERATION;
	H queue = (H)q;
	return cb.Enqueue(1, &queue, (H)b, nwait, (const H *)wait, (H *)ev);
}

cl_int rcl_cmdbuf_release(uintptr_t b) { return cb.Release ? cb.Release((H)b) : CL_INVALID_OPERATION; }

/* rcl_read_back reads n bytes at off of buffer mem through queue q into
   dst, waiting: the source of a page fill (internal/uffd), called from
   that package's C thread. */
int rcl_read_back(uintptr_t q, uintptr_t mem, uintptr_t off, void *dst, uintptr_t n) {
	if (!__atomic_load_n(&loaded, __ATOMIC_ACQUIRE))
		return -5; /* EIO */
	return p_clEnqueueReadBuffer((H)q, (H)mem, 1, off, n, dst, 0, NULL, NULL) == 0 ? 0 : -5;
}
