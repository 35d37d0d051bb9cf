// conv.cl: Im2Col, Col2Im, MaxPool2D and its backward (ops/conv.go says
// what each computes). Prepended by Go: "#define T float" or double; the
// program is built with -DFP64 where the device has cl_khr_fp64. One work
// item per destination element (a grid-stride loop); the gathers add in
// the order of the host loops (gorgonia's).
#ifdef FP64
#pragma OPENCL EXTENSION cl_khr_fp64 : enable
#endif
#pragma OPENCL FP_CONTRACT OFF

// conv_t: NCHW extents, window, output size; per operand (0 dst, 1 and 2
// inputs) strides in Halide order (W, H, C, N) and an element offset.
typedef struct {
	long n, c, h, w, kh, kw, ph, pw, sh, sw, dh, dw, oh, ow;
	long st[3][4];
	long off[3];
	long total;
} conv_t;

#define AT(g, k, b, c, y, x) ((g).off[k] + (b) * (g).st[k][3] + (c) * (g).st[k][2] + (y) * (g).st[k][1] + (x) * (g).st[k][0])

__kernel void conv_im2col(__global T *d, __global const T *x, conv_t g) {
	long kk = g.kh * g.kw, K = g.c * kk;
	for (long i = get_global_id(0); i < g.total; i += get_global_size(0)) {
		long q = i % K, r = i / K;
		long ow = r % g.ow; r /= g.ow;
		long oh = r % g.oh, b = r / g.oh;
		long ch = q / kk, kr = (q % kk) / g.kw, kc = q % g.kw;
		long ih = oh * g.sh - g.ph + kr * g.dh, iw = ow * g.sw - g.pw + kc * g.dw;
		T v = 0;
		if (ih >= 0 && ih < g.h && iw >= 0 && iw < g.w) v = x[AT(g, 1, b, ch, ih, iw)];
		d[AT(g, 0, b, oh, ow, q)] = v;
	}
}

__kernel void conv_col2im(__global T *d, __global const T *col, conv_t g) {
	for (long i = get_global_id(0); i < g.total; i += get_global_size(0)) {
		long iw = i % g.w, r = i / g.w;
		long ih = r % g.h; r /= g.h;
		long ch = r % g.c, b = r / g.c;
		T s = 0;
		for (long kr = g.kh - 1; kr >= 0; kr--) {
			long th = ih + g.ph - kr * g.dh;
			if (th < 0 || th % g.sh != 0 || th / g.sh >= g.oh) continue;
			long oh = th / g.sh;
			for (long kc = g.kw - 1; kc >= 0; kc--) {
				long tw = iw + g.pw - kc * g.dw;
				if (tw < 0 || tw % g.sw != 0 || tw / g.sw >= g.ow) continue;
				s += col[AT(g, 1, b, oh, tw / g.sw, (ch * g.kh + kr) * g.kw + kc)];
			}
		}
		d[AT(g, 0, b, ch, ih, iw)] = s;
	}
}

__kernel void conv_maxpool(__global T *d, __global const T *x, __global int *idx, T lowest, conv_t g) {
	for (long i = get_global_id(0); i < g.total; i += get_global_size(0)) {
		long ow = i % g.ow, r = i / g.ow;
		long oh = r % g.oh; r /= g.oh;
		long ch = r % g.c, b = r / g.c;
		T m = lowest;
		long at = -1;
		long h0 = oh * g.sh - g.ph, w0 = ow * g.sw - g.pw;
		for (long ih = max(h0, 0L); ih < min(h0 + g.kh, g.h); ih++) {
			for (long iw = max(w0, 0L); iw < min(w0 + g.kw, g.w); iw++) {
				T v = x[AT(g, 1, b, ch, ih, iw)];
				if (v > m) { m = v; at = ih * g.w + iw; }
			}
		}
		d[AT(g, 0, b, ch, oh, ow)] = m;
		idx[AT(g, 2, b, ch, oh, ow)] = (int)at;
	}
}

__kernel void conv_maxpool_back(__global T *d, __global const T *y, __global const int *idx, conv_t g) {
	for (long i = get_global_id(0); i < g.total; i += get_global_size(0)) {
		long iw = i % g.w, r = i / g.w;
		long ih = r % g.h; r /= g.h;
		long ch = r % g.c, b = r / g.c;
		int want = (int)(ih * g.w + iw);
		T s = 0;
		long oh0 = max(0L, (ih + g.ph - g.kh) / g.sh), ow0 = max(0L, (iw + g.pw - g.kw) / g.sw);
		for (long oh = oh0; oh < g.oh && oh * g.sh - g.ph <= ih; oh++) {
			if (oh * g.sh - g.ph + g.kh <= ih) continue;
			for (long ow = ow0; ow < g.ow && ow * g.sw - g.pw <= iw; ow++) {
				if (ow * g.sw - g.pw + g.kw <= iw) continue;
				if (idx[AT(g, 2, b, ch, oh, ow)] == want) s += y[AT(g, 1, b, ch, oh, ow)];
			}
		}
		d[AT(g, 0, b, ch, ih, iw)] = s;
	}
}
