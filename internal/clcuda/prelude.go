package clcuda

import (
	"fmt"
	"strings"
)

// Prelude is the CUDA C++ put before every translated program: OpenCL C's
// types, work-item functions and the built-ins package ops' kernels use,
// over CUDA's. Math built-ins are overloads for float and double named
// rcl_* (calling CUDA's expf, exp, …), reached through function-like
// macros, so that no overload set of CUDA's headers decides which
// precision runs; isnan and friends compare instead of calling.
var Prelude = prelude()

// vecBases are the element types of OpenCL vectors.
var vecBases = []string{"char", "uchar", "short", "ushort", "int", "uint", "long", "ulong", "float", "double"}

func prelude() string {
	var b strings.Builder
	b.WriteString(`// OpenCL C over CUDA C++ (internal/clcuda).
typedef unsigned char uchar;
typedef unsigned short ushort;
typedef unsigned int uint;
typedef unsigned long ulong;
static_assert(sizeof(long) == 8, "OpenCL C's long is 64 bits");
static_assert((char)-1 < 0, "OpenCL C's char is signed");
#define __global
#define __local
#define __private
#define __constant const
#define CLK_LOCAL_MEM_FENCE 1
#define CLK_GLOBAL_MEM_FENCE 2
#define barrier(flags) __syncthreads()
extern __shared__ __align__(16) unsigned char rcl_smem[];

// Fences: a global one orders for the whole device (__threadfence), as
// work-groups that meet through a global atomic need; a local one, for
// the block.
__device__ inline void rcl_mem_fence(int flags) {
	if (flags & CLK_GLOBAL_MEM_FENCE) __threadfence();
	else __threadfence_block();
}
#define mem_fence(flags) rcl_mem_fence(flags)
#define read_mem_fence(flags) rcl_mem_fence(flags)
#define write_mem_fence(flags) rcl_mem_fence(flags)
`)
	// OpenCL 1.2's 32-bit atomic functions (each returns the old value),
	// over CUDA's atomics, which take no volatile pointer.
	for _, t := range []string{"int", "uint"} {
		for _, f := range [][2]string{{"add", "atomicAdd(p, v)"}, {"sub", "atomicSub(p, v)"}, {"xchg", "atomicExch(p, v)"},
			{"min", "atomicMin(p, v)"}, {"max", "atomicMax(p, v)"}, {"and", "atomicAnd(p, v)"}, {"or", "atomicOr(p, v)"}, {"xor", "atomicXor(p, v)"}} {
			fmt.Fprintf(&b, "__device__ inline %[1]s atomic_%[2]s(volatile %[1]s *q, %[1]s v) { %[1]s *p = (%[1]s *)q; return %[3]s; }\n", t, f[0], f[1])
		}
		fmt.Fprintf(&b, "__device__ inline %[1]s atomic_inc(volatile %[1]s *q) { return atomicAdd((%[1]s *)q, (%[1]s)1); }\n", t)
		fmt.Fprintf(&b, "__device__ inline %[1]s atomic_dec(volatile %[1]s *q) { return atomicSub((%[1]s *)q, (%[1]s)1); }\n", t)
		fmt.Fprintf(&b, "__device__ inline %[1]s atomic_cmpxchg(volatile %[1]s *q, %[1]s cmp, %[1]s v) { return atomicCAS((%[1]s *)q, cmp, v); }\n", t)
	}
	b.WriteString(`
__device__ inline ulong get_local_id(uint d) { return d == 0 ? threadIdx.x : d == 1 ? threadIdx.y : d == 2 ? threadIdx.z : 0; }
__device__ inline ulong get_local_size(uint d) { return d == 0 ? blockDim.x : d == 1 ? blockDim.y : d == 2 ? blockDim.z : 1; }
__device__ inline ulong get_group_id(uint d) { return d == 0 ? blockIdx.x : d == 1 ? blockIdx.y : d == 2 ? blockIdx.z : 0; }
__device__ inline ulong get_num_groups(uint d) { return d == 0 ? gridDim.x : d == 1 ? gridDim.y : d == 2 ? gridDim.z : 1; }
__device__ inline ulong get_global_id(uint d) { return get_group_id(d) * get_local_size(d) + get_local_id(d); }
__device__ inline ulong get_global_size(uint d) { return get_num_groups(d) * get_local_size(d); }

#undef INFINITY
#undef NAN
#undef FLT_MAX
#define INFINITY (__int_as_float(0x7f800000))
#define NAN (__int_as_float(0x7fc00000))
#define FLT_MAX 3.402823466e+38F
`)
	for _, l := range [][2]string{{"CHAR_MIN", "(-128)"}, {"CHAR_MAX", "127"}, {"UCHAR_MAX", "255"},
		{"SHRT_MIN", "(-32768)"}, {"SHRT_MAX", "32767"}, {"USHRT_MAX", "65535"},
		{"INT_MIN", "(-2147483647 - 1)"}, {"INT_MAX", "2147483647"}, {"UINT_MAX", "0xffffffffU"},
		{"LONG_MIN", "(-0x7fffffffffffffffL - 1)"}, {"LONG_MAX", "0x7fffffffffffffffL"}, {"ULONG_MAX", "0xffffffffffffffffUL"}} {
		fmt.Fprintf(&b, "#undef %[1]s\n#define %[1]s %[2]s\n", l[0], l[1])
	}
	b.WriteString(`
__device__ inline float as_float(uint x) { return __uint_as_float(x); }
__device__ inline uint as_uint(float x) { return __float_as_uint(x); }
__device__ inline double as_double(ulong x) { return __longlong_as_double((long long)x); }
__device__ inline ulong as_ulong(double x) { return (ulong)__double_as_longlong(x); }
__device__ inline uint mul_hi(uint a, uint b) { return __umulhi(a, b); }

__device__ inline int rcl_isnan(float x) { return x != x; }
__device__ inline int rcl_isnan(double x) { return x != x; }
__device__ inline int rcl_isinf(float x) { return x == INFINITY || x == -INFINITY; }
__device__ inline int rcl_isinf(double x) { return x == (double)INFINITY || x == -(double)INFINITY; }
__device__ inline int rcl_isfinite(float x) { return x - x == 0.0f; }
__device__ inline int rcl_isfinite(double x) { return x - x == 0.0; }
#undef isnan
#undef isinf
#undef isfinite
#define isnan(x) rcl_isnan(x)
#define isinf(x) rcl_isinf(x)
#define isfinite(x) rcl_isfinite(x)
`)
	for _, f := range []string{"fabs", "sqrt", "exp", "expm1", "log", "log1p", "erf", "tanh", "sin", "cos", "tan", "asin", "acos", "atan",
		"sinh", "cosh", "floor", "ceil", "rint", "trunc"} {
		fmt.Fprintf(&b, "__device__ inline float rcl_%[1]s(float x) { return ::%[1]sf(x); }\n__device__ inline double rcl_%[1]s(double x) { return ::%[1]s(x); }\n#undef %[1]s\n#define %[1]s(x) rcl_%[1]s(x)\n", f)
	}
	for _, f := range []string{"pow", "fmod", "copysign", "fmax", "fmin"} {
		fmt.Fprintf(&b, "__device__ inline float rcl_%[1]s(float x, float y) { return ::%[1]sf(x, y); }\n__device__ inline double rcl_%[1]s(double x, double y) { return ::%[1]s(x, y); }\n#undef %[1]s\n#define %[1]s(x, y) rcl_%[1]s(x, y)\n", f)
	}
	b.WriteString(`__device__ inline float rcl_fma(float x, float y, float z) { return ::fmaf(x, y, z); }
__device__ inline double rcl_fma(double x, double y, double z) { return ::fma(x, y, z); }
#undef fma
#define fma(x, y, z) rcl_fma(x, y, z)
template <class T> __device__ inline T rcl_clamp(T x, T lo, T hi) { return rcl_fmin(rcl_fmax(x, lo), hi); }
#define clamp(x, lo, hi) rcl_clamp(x, lo, hi)
template <class T> __device__ inline T rcl_max(T a, T b) { return a > b ? a : b; }
template <class T> __device__ inline T rcl_min(T a, T b) { return a < b ? a : b; }
#undef max
#undef min
#define max(a, b) rcl_max(a, b)
#define min(a, b) rcl_min(a, b)

// Saturating conversions to integers (convert_T_sat, _rtz: toward zero,
// OpenCL's default for float to integer; NaN gives 0).
template <class T> struct rcl_lim;
`)
	lims := [][3]string{{"char", "-128", "127"}, {"uchar", "0", "255"}, {"short", "-32768", "32767"}, {"ushort", "0", "65535"},
		{"int", "(-2147483647LL - 1)", "2147483647ULL"}, {"uint", "0", "4294967295ULL"},
		{"long", "(-9223372036854775807LL - 1)", "9223372036854775807ULL"}, {"ulong", "0", "18446744073709551615ULL"}}
	for _, l := range lims {
		fmt.Fprintf(&b, "template <> struct rcl_lim<%s> { static constexpr long long lo = %s; static constexpr unsigned long long hi = %s; };\n", l[0], l[1], l[2])
	}
	b.WriteString(`template <class D, class F> __device__ inline D rcl_satf(F x) {
	if (x != x) return (D)0;
	if (x <= (F)rcl_lim<D>::lo) return (D)rcl_lim<D>::lo;
	if (x >= (F)rcl_lim<D>::hi) return (D)rcl_lim<D>::hi;
	return (D)x;
}
template <class D> __device__ inline D rcl_sat(float x) { return rcl_satf<D>(x); }
template <class D> __device__ inline D rcl_sat(double x) { return rcl_satf<D>(x); }
template <class D, class S> __device__ inline D rcl_sat(S x) {
	if ((S)-1 < (S)0) {
		long long v = (long long)x;
		if (v < rcl_lim<D>::lo) return (D)rcl_lim<D>::lo;
		if (v > 0 && (unsigned long long)v > rcl_lim<D>::hi) return (D)rcl_lim<D>::hi;
		return (D)v;
	}
	unsigned long long v = (unsigned long long)x;
	return v > rcl_lim<D>::hi ? (D)rcl_lim<D>::hi : (D)v;
}
`)
	for _, l := range lims {
		fmt.Fprintf(&b, "#define convert_%[1]s_sat(x) rcl_sat<%[1]s>(x)\n#define convert_%[1]s_sat_rtz(x) rcl_sat<%[1]s>(x)\n", l[0])
	}
	b.WriteString(`
// Vectors: element-wise arithmetic, broadcast and element-list
// constructors, .x–.w for two and four elements.
template <class T, int N> struct alignas(sizeof(T) * N) rcl_vec {
	T s[N];
	rcl_vec() = default;
	__device__ explicit rcl_vec(T a) {
		for (int i = 0; i < N; i++) s[i] = a;
	}
	__device__ T &operator[](int i) { return s[i]; }
	__device__ const T &operator[](int i) const { return s[i]; }
};
template <class T> struct alignas(sizeof(T) * 2) rcl_vec<T, 2> {
	T x, y;
	rcl_vec() = default;
	__device__ explicit rcl_vec(T a) : x(a), y(a) {}
	__device__ rcl_vec(T a, T b) : x(a), y(b) {}
	__device__ T &operator[](int i) { return i == 0 ? x : y; }
	__device__ const T &operator[](int i) const { return i == 0 ? x : y; }
};
template <class T> struct alignas(sizeof(T) * 4) rcl_vec<T, 4> {
	T x, y, z, w;
	rcl_vec() = default;
	__device__ explicit rcl_vec(T a) : x(a), y(a), z(a), w(a) {}
	__device__ rcl_vec(T a, T b, T c, T d) : x(a), y(b), z(c), w(d) {}
	__device__ T &operator[](int i) { return i == 0 ? x : i == 1 ? y : i == 2 ? z : w; }
	__device__ const T &operator[](int i) const { return i == 0 ? x : i == 1 ? y : i == 2 ? z : w; }
};
#define RCL_VOP(op) \
	template <class T, int N> __device__ inline rcl_vec<T, N> operator op(rcl_vec<T, N> a, const rcl_vec<T, N> &b) { \
		for (int i = 0; i < N; i++) a[i] = (T)(a[i] op b[i]); \
		return a; \
	}
RCL_VOP(+)
RCL_VOP(-)
RCL_VOP(*)
RCL_VOP(/)
#undef RCL_VOP
template <class T> __device__ inline rcl_vec<T, 4> vload4(ulong o, const T *p) {
	p += 4 * o;
	return rcl_vec<T, 4>(p[0], p[1], p[2], p[3]);
}
template <class T> __device__ inline void vstore4(const rcl_vec<T, 4> &v, ulong o, T *p) {
	p += 4 * o;
	p[0] = v.x; p[1] = v.y; p[2] = v.z; p[3] = v.w;
}
`)
	for _, t := range vecBases {
		for _, n := range []int{2, 4, 8, 16} {
			fmt.Fprintf(&b, "typedef rcl_vec<%s, %d> rcl_%s%d;\n", t, n, t, n)
		}
	}
	return b.String()
}
