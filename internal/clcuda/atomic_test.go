package clcuda

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// atomicOp is one OpenCL atomic call on a 32-bit word, and the model of
// what it does: the new word, from the old one and the argument(s).
type atomicOp struct {
	name string
	args int // beyond the pointer
	next func(old, a, b uint32, signed bool) uint32
}

var atomicOps = []atomicOp{
	{"atomic_inc", 0, func(o, _, _ uint32, _ bool) uint32 { return o + 1 }},
	{"atomic_dec", 0, func(o, _, _ uint32, _ bool) uint32 { return o - 1 }},
	{"atomic_add", 1, func(o, a, _ uint32, _ bool) uint32 { return o + a }},
	{"atomic_sub", 1, func(o, a, _ uint32, _ bool) uint32 { return o - a }},
	{"atomic_xchg", 1, func(_, a, _ uint32, _ bool) uint32 { return a }},
	{"atomic_min", 1, func(o, a, _ uint32, s bool) uint32 {
		if (s && int32(a) < int32(o)) || (!s && a < o) {
			return a
		}
		return o
	}},
	{"atomic_max", 1, func(o, a, _ uint32, s bool) uint32 {
		if (s && int32(a) > int32(o)) || (!s && a > o) {
			return a
		}
		return o
	}},
	{"atomic_and", 1, func(o, a, _ uint32, _ bool) uint32 { return o & a }},
	{"atomic_or", 1, func(o, a, _ uint32, _ bool) uint32 { return o | a }},
	{"atomic_xor", 1, func(o, a, _ uint32, _ bool) uint32 { return o ^ a }},
	{"atomic_cmpxchg", 2, func(o, a, b uint32, _ bool) uint32 {
		if o == a {
			return b
		}
		return o
	}},
}

// hostRun defines, for one host thread, what hostStub declares and the
// prelude's atomics and fences call: CUDA's atomics as plain
// read-modify-writes (returning the old word), fences as counters.
const hostRun = `
rcl_dim3 threadIdx, blockIdx, blockDim = {1, 1, 1}, gridDim = {1, 1, 1};
void __syncthreads() {}
int rcl_fences_global, rcl_fences_block;
void __threadfence() { rcl_fences_global++; }
void __threadfence_block() { rcl_fences_block++; }
#define RMW(name, T, expr) T name(T *p, T v) { T o = *p; *p = (expr); return o; }
#define BOTH(name, expr) RMW(name, int, expr) RMW(name, unsigned, expr)
BOTH(atomicAdd, o + v) BOTH(atomicSub, o - v) BOTH(atomicExch, v) BOTH(atomicMin, v < o ? v : o)
BOTH(atomicMax, v > o ? v : o) BOTH(atomicAnd, o & v) BOTH(atomicOr, o | v) BOTH(atomicXor, o ^ v)
int atomicCAS(int *p, int c, int v) { int o = *p; if (o == c) *p = v; return o; }
unsigned atomicCAS(unsigned *p, unsigned c, unsigned v) { unsigned o = *p; if (o == c) *p = v; return o; }
`

// TestPreludeAtomics: OpenCL's atomic functions and fences, translated
// and compiled by g++ over host definitions of CUDA's atomics, run one
// drawn call after another on int and uint words and agree with a model
// of OpenCL 1.2's definitions (each returns the old word); a global
// fence is CUDA's __threadfence, a local one __threadfence_block.
func TestPreludeAtomics(t *testing.T) {
	if GCC() == "" {
		t.Skip("no g++")
	}
	r := rand.New(rand.NewPCG(1, 2))
	const n = 64
	var src, want strings.Builder
	words := make([]uint32, 2*n) // int words, then uint words
	for i := range words {
		words[i] = r.Uint32() >> (r.IntN(4) * 8)
	}
	init := fmt.Sprint(words)
	src.WriteString("__kernel void k(__global int *w, __global uint *u, volatile __global uint *r) {\n")
	for i := range 3 * n {
		op := atomicOps[r.IntN(len(atomicOps))]
		k := r.IntN(2 * n)
		signed := k < n
		ptr := fmt.Sprintf("w + %d", k)
		typ := "int"
		if !signed {
			ptr, typ = fmt.Sprintf("u + %d", k-n), "uint"
		}
		var a, b uint32
		args := ""
		switch op.args {
		case 2:
			a, b = r.Uint32(), r.Uint32()
			if r.IntN(2) == 0 {
				a = words[k] // a compare that matches
			}
			args = fmt.Sprintf(", (%[1]s)%[2]du, (%[1]s)%[3]du", typ, a, b)
		case 1:
			a = r.Uint32() >> (r.IntN(4) * 8)
			args = fmt.Sprintf(", (%s)%du", typ, a)
		}
		fmt.Fprintf(&src, "\tr[%d] = (uint)%s(%s%s);\n", i, op.name, ptr, args)
		fmt.Fprintf(&want, "%d ", words[k])
		words[k] = op.next(words[k], a, b, signed)
	}
	src.WriteString("\tmem_fence(CLK_GLOBAL_MEM_FENCE); read_mem_fence(CLK_GLOBAL_MEM_FENCE); write_mem_fence(CLK_LOCAL_MEM_FENCE);\n" +
		"\tmem_fence(CLK_LOCAL_MEM_FENCE | CLK_GLOBAL_MEM_FENCE); mem_fence(CLK_LOCAL_MEM_FENCE);\n}\n")
	for _, w := range words {
		fmt.Fprintf(&want, "%d ", w)
	}
	want.WriteString("fences 3 2")
	p, err := Translate(src.String(), "")
	if err != nil {
		t.Fatal(err)
	}
	main := fmt.Sprintf(`#include <cstdio>
int main() {
	unsigned w[%[1]d] = {%[2]s}, r[%[3]d];
	k((int *)w, w + %[4]d, r);
	for (int i = 0; i < %[3]d; i++) printf("%%u ", r[i]);
	for (int i = 0; i < %[1]d; i++) printf("%%u ", w[i]);
	printf("fences %%d %%d", rcl_fences_global, rcl_fences_block);
}
`, 2*n, strings.Join(strings.Fields(strings.Trim(init, "[]")), ", "), 3*n, n)
	dir := t.TempDir()
	bin := filepath.Join(dir, "atomics")
	cmd := exec.Command(GCC(), "-std=c++17", "-w", "-x", "c++", "-", "-o", bin)
	cmd.Stdin = strings.NewReader(hostStub + p.Source + "\n#line 1 \"run.cc\"\n" + hostRun + main)
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Run(); err != nil {
		t.Fatalf("g++: %v\n%s", err, out.String())
	}
	got, err := exec.Command(bin).Output()
	if err != nil {
		t.Fatal(err)
	}
	if string(got) != want.String() {
		t.Errorf("atomics run on the host:\n got %s\nwant %s", got, want.String())
	}
	os.Remove(bin)
}
