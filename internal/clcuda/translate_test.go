package clcuda

import (
	"regexp"
	"strings"
	"testing"
)

// sample exercises what Translate rewrites: a kernel from a macro with a
// __local parameter, a work-group attribute, __local arrays in a body, a
// helper with a __local parameter, vector literals through an alias,
// swizzles, vload4/vstore4, comments and an FP_CONTRACT pragma.
const sample = `// a comment with __kernel void fake(__local float *x) { in it
#pragma OPENCL FP_CONTRACT OFF
#define TVT float4
#define V4 TVT
/* block comment
   __kernel */
inline float group_sum(__local float *lm, float v) {
	int lid = get_local_id(0);
	lm[lid] = v;
	barrier(CLK_LOCAL_MEM_FENCE);
	return lm[0];
}
#define RED(name) \
__kernel void red_##name(__global const float *a, long n, __local float *lm, __global float *out) { \
	float s = 0; \
	for (long i = get_global_id(0); i < n; i += get_global_size(0)) s += a[i]; \
	out[get_group_id(0)] = group_sum(lm, s); \
}
RED(sum)
__kernel __attribute__((reqd_work_group_size(16, 16 / 2, 1)))
void tile(__global float *c, __global const float *a) {
	__local float As[16][16] __attribute__((aligned(32)));
	__local V4 vs[4];
	V4 v = (V4)(a[0], a[1], a[2], a[3]);
	TVT w = (TVT)(a[4]);
	vs[0] = v + w;
	As[0][0] = vs[0].s0 + vs[0].s3 + v.x;
	vstore4(vload4(0, a), 0, c);
	uint4 u = (uint4)(1u, 2u, 3u, 4u);
	c[1] = (float)u.s2 + fmax(As[0][0], 0.0f) + (float)convert_uchar_sat(300) + (float)max(3L, 4L);
}
__kernel void two(__global int *d, __local int *p, __local long *q, int n) {
	p[0] = n; q[0] = n; d[0] = p[0] + (int)q[0];
}
`

func TestTranslate(t *testing.T) {
	p, err := Translate(sample, "-DX=1 -DY -UZ -cl-fast-relaxed-math")
	if err != nil {
		t.Fatal(err)
	}
	src := strings.TrimPrefix(p.Source, Prelude)
	if src == p.Source {
		t.Fatal("no prelude")
	}
	body := src[strings.Index(src, "#line 1"):]
	body = body[strings.Index(body, "\n")+1:] // after the #line directive
	if a, b := strings.Count(sample, "\n"), strings.Count(body, "\n"); a != b {
		t.Errorf("%d lines translated to %d: NVRTC's line numbers would not be the source's", a, b)
	}
	for _, bad := range []string{"__kernel", "reqd_work_group_size", "#pragma OPENCL", "float4", ".s0", ".s3", "(V4)(", "(TVT)(", "(rcl_uint4)(", "fake"} {
		if regexp.MustCompile(`(^|[^_\w])` + regexp.QuoteMeta(bad)).MatchString(strings.ReplaceAll(body, "rcl_float4", "")) {
			t.Errorf("%q left in the translation", bad)
		}
	}
	if n := strings.Count(body, `extern "C" __global__`); n != 3 {
		t.Errorf("%d kernels became extern \"C\" __global__, want 3:\n%s", n, body)
	}
	for _, want := range []string{
		`void red_##name(__global const float *a, long n, unsigned long rcl_lo_lm, __global float *out) { float *lm = (float *)(rcl_smem + rcl_lo_lm);`,
		`extern "C" __global__ void __launch_bounds__((16) * (16 / 2) * (1))`,
		`__shared__ float As[16][16]`,
		`__shared__ V4 vs[4]`,
		`V4(a[0], a[1], a[2], a[3])`,
		`TVT(a[4])`,
		`rcl_uint4(1u, 2u, 3u, 4u)`,
		`vs[0].x + vs[0].w`,
		`u.z`,
		`inline float group_sum(__local float *lm`, // a helper's __local: the prelude's empty macro
		`(__global int *d, unsigned long rcl_lo_p, unsigned long rcl_lo_q, int n) { int *p = (int *)(rcl_smem + rcl_lo_p); long *q = (long *)(rcl_smem + rcl_lo_q);`,
	} {
		if !strings.Contains(body, want) {
			t.Errorf("translation lacks %q:\n%s", want, body)
		}
	}
	opts := strings.Join(p.Options, " ")
	if !strings.Contains(opts, "--fmad=false") || strings.Contains(opts, "-D") || strings.Contains(opts, "-cl-") {
		t.Errorf("options %q", opts)
	}
	if !strings.Contains(p.Source, "#define X 1\n#define Y 1\n#undef Z\n#line 1") {
		t.Errorf("-D and -U options are not #define and #undef lines before the source")
	}
	if GCC() == "" {
		t.Skip("no g++ to parse the translation")
	}
	if err := CheckWithGCC(p); err != nil {
		t.Fatal(err)
	}
}

func TestTranslateContract(t *testing.T) {
	p, err := Translate("__kernel void k(__global float *a) { a[0] = a[1] * a[2] + a[3]; }", "")
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(strings.Join(p.Options, " "), "fmad") {
		t.Errorf("FP_CONTRACT is on by default in OpenCL C, as fmad is in NVRTC: options %q", p.Options)
	}
}

// TestTranslateErrors: what has no CUDA form is an error naming the line.
func TestTranslateErrors(t *testing.T) {
	for _, c := range []struct{ src, opts, want string }{
		{"__kernel int k(__global int *a) { return 0; }", "", "returns void"},
		{"__kernel void k(__local int p) { }", "", "not a pointer"},
		{"__kernel __attribute__((vec_type_hint(float4))) void k(__global int *a) { }", "", "no CUDA form"},
		{"__kernel __attribute__((reqd_work_group_size(8, 8))) void k(__global int *a) { }", "", "three sizes"},
		{"\n\n__kernel void k(__global int *a);", "", "line 3"},
		{"__kernel void k(__global int *a) { }", "-O3", "no NVRTC form"},
	} {
		if _, err := Translate(c.src, c.opts); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("Translate(%q, %q) = %v, want an error with %q", c.src, c.opts, err, c.want)
		}
	}
}

// TestPreludeGCC: the prelude alone is C++ (g++ over the host stub), and a
// broken translation is caught by the check.
func TestPreludeGCC(t *testing.T) {
	if GCC() == "" {
		t.Skip("no g++")
	}
	if err := CheckWithGCC(&Program{Source: Prelude}); err != nil {
		t.Fatal(err)
	}
	if err := CheckWithGCC(&Program{Source: Prelude + "float4 x;"}); err == nil {
		t.Fatal("CUDA's float4 is not the prelude's: the check should have failed")
	}
}

// FuzzTranslate: Translate never panics; what it accepts keeps the
// source's line count and leaves no __kernel or OpenCL pragma behind.
func FuzzTranslate(f *testing.F) {
	f.Add(sample)
	f.Add("__kernel void k(__global int *a, __local int *l) { l[0] = 1; a[0] = l[0]; }")
	f.Add("__kernel __attribute__((reqd_work_group_size(4, 4, 1))) void k(__global float4 *a) { a[0] = (float4)(1); }")
	f.Add("#define K(n) __kernel void n(__local float *x) { }\nK(a) K(b)")
	f.Add("/* unterminated")
	f.Add("__kernel void k(")
	f.Fuzz(func(t *testing.T, src string) {
		p, err := Translate(src, "")
		if err != nil {
			return
		}
		body := p.Source[strings.Index(p.Source, "#line 1 \"opencl.cl\"\n")+len("#line 1 \"opencl.cl\"\n"):]
		if a, b := strings.Count(src, "\n"), strings.Count(body, "\n"); a != b {
			t.Fatalf("%d lines became %d", a, b)
		}
		if regexp.MustCompile(`\b__kernel\b`).MatchString(body) || pragma.MatchString(body) {
			t.Fatalf("__kernel or an OpenCL pragma left in:\n%s", body)
		}
	})
}
