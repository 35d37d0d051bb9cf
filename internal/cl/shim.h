//go:build cgo

// Our own minimal OpenCL declarations (numbers and signatures from the
// OpenCL 1.2 spec), so building needs only gcc and a machine without OpenCL
// fails at Load, not at link time. Entry points are reached through
// function pointers filled by rcl_load from dlopen("libOpenCL.so.1").
#ifndef RESIDENT_OPENCL_SHIM_H
#define RESIDENT_OPENCL_SHIM_H

#include <stddef.h>
#include <stdint.h>

typedef int32_t cl_int;
typedef uint32_t cl_uint;
typedef uint64_t cl_ulong;
typedef cl_uint cl_bool;
typedef cl_ulong cl_bitfield;

// Handles cross into Go as uintptr_t; events are pointer-sized, so a Go
// []uintptr is a valid cl_event array.
typedef struct { uintptr_t h; cl_int err; } rcl_obj;
typedef struct { void *p; cl_int err; } rcl_ptr;

// Kinds for rcl_get_info, rcl_retain and rcl_release.
enum {
	RCL_PLATFORM = 1,
	RCL_DEVICE,
	RCL_CONTEXT,
	RCL_QUEUE,
	RCL_MEM,
	RCL_PROGRAM,
	RCL_PROGRAM_BUILD,
	RCL_KERNEL,
	RCL_KERNEL_WORK_GROUP,
	RCL_EVENT,
	RCL_EVENT_PROFILING,
};

// rcl_load dlopens the ICD loader once; it returns 0, or writes why not.
int rcl_load(char *err, size_t n);

cl_int rcl_get_platform_ids(cl_uint n, uintptr_t *out, cl_uint *num);
cl_int rcl_get_device_ids(uintptr_t platform, cl_ulong type, cl_uint n, uintptr_t *out, cl_uint *num);
cl_int rcl_get_info(int kind, uintptr_t obj, uintptr_t obj2, cl_uint param, size_t size, void *out, size_t *ret);
cl_int rcl_retain(int kind, uintptr_t obj);
cl_int rcl_release(int kind, uintptr_t obj);

cl_int rcl_create_sub_devices(uintptr_t dev, cl_uint units, cl_uint n, uintptr_t *out, cl_uint *num);
cl_int rcl_release_device(uintptr_t dev);
rcl_obj rcl_create_context(uintptr_t platform, cl_uint n, const uintptr_t *devices);
rcl_obj rcl_create_queue(uintptr_t ctx, uintptr_t dev, cl_ulong props);
rcl_obj rcl_create_buffer(uintptr_t ctx, cl_ulong flags, size_t size);
rcl_obj rcl_create_sub_buffer(uintptr_t mem, cl_ulong flags, size_t origin, size_t size);

cl_int rcl_rw(uintptr_t q, uintptr_t mem, int write, cl_bool blocking, size_t off, size_t n, void *ptr,
	cl_uint nwait, const uintptr_t *wait, uintptr_t *ev);
cl_int rcl_rw_rect(uintptr_t q, uintptr_t mem, int write, cl_bool blocking, const size_t *buf_origin,
	const size_t *host_origin, const size_t *region, size_t buf_row, size_t buf_slice, size_t host_row,
	size_t host_slice, void *ptr, cl_uint nwait, const uintptr_t *wait, uintptr_t *ev);
cl_int rcl_copy(uintptr_t q, uintptr_t src, uintptr_t dst, size_t src_off, size_t dst_off, size_t n,
	cl_uint nwait, const uintptr_t *wait, uintptr_t *ev);
cl_int rcl_copy_rect(uintptr_t q, uintptr_t src, uintptr_t dst, const size_t *src_origin,
	const size_t *dst_origin, const size_t *region, size_t src_row, size_t src_slice, size_t dst_row,
	size_t dst_slice, cl_uint nwait, const uintptr_t *wait, uintptr_t *ev);
cl_int rcl_fill(uintptr_t q, uintptr_t mem, const void *pattern, size_t psize, size_t off, size_t n,
	cl_uint nwait, const uintptr_t *wait, uintptr_t *ev);
rcl_ptr rcl_map(uintptr_t q, uintptr_t mem, cl_bool blocking, cl_ulong flags, size_t off, size_t n,
	cl_uint nwait, const uintptr_t *wait, uintptr_t *ev);
cl_int rcl_unmap(uintptr_t q, uintptr_t mem, void *ptr, cl_uint nwait, const uintptr_t *wait, uintptr_t *ev);

rcl_obj rcl_create_program(uintptr_t ctx, const char *src, size_t len);
cl_int rcl_build_program(uintptr_t prog, cl_uint n, const uintptr_t *devices, const char *options);
rcl_obj rcl_create_kernel(uintptr_t prog, const char *name);
cl_int rcl_set_kernel_arg(uintptr_t k, cl_uint idx, size_t size, const void *value);
cl_int rcl_ndrange(uintptr_t q, uintptr_t k, cl_uint dims, const size_t *offset, const size_t *global,
	const size_t *local, cl_uint nwait, const uintptr_t *wait, uintptr_t *ev);

cl_int rcl_wait(cl_uint n, const uintptr_t *events);
cl_int rcl_flush(uintptr_t q);
cl_int rcl_finish(uintptr_t q);

// cl_khr_command_buffer, as its provisional versions 0.9.0 to 0.9.4 lay
// the entry points out (later ones add properties to every command):
// rcl_cmdbuf_load finds them through the platform (0, or -1 where it has
// none). Commands are chained by sync points in recording order.
int rcl_cmdbuf_load(uintptr_t platform);
rcl_obj rcl_cmdbuf_create(uintptr_t q, int simultaneous);
cl_int rcl_cmdbuf_ndrange(uintptr_t cb, uintptr_t k, cl_uint dims, const size_t *global, const size_t *local,
	int chained, cl_uint *sync);
cl_int rcl_cmdbuf_copy(uintptr_t cb, uintptr_t src, uintptr_t dst, size_t src_off, size_t dst_off, size_t n,
	int chained, cl_uint *sync);
cl_int rcl_cmdbuf_finalize(uintptr_t cb);
cl_int rcl_cmdbuf_enqueue(uintptr_t q, uintptr_t cb, cl_uint nwait, const uintptr_t *wait, uintptr_t *ev);
cl_int rcl_cmdbuf_release(uintptr_t cb);
// rcl_marker and rcl_barrier wait for the listed events, or with none for
// every command queued before them; a barrier also holds back the commands
// queued after it.
cl_int rcl_marker(uintptr_t q, cl_uint nwait, const uintptr_t *wait, uintptr_t *ev);
cl_int rcl_barrier(uintptr_t q, cl_uint nwait, const uintptr_t *wait, uintptr_t *ev);

int rcl_read_back(uintptr_t q, uintptr_t mem, uintptr_t off, void *dst, uintptr_t n);

#endif
