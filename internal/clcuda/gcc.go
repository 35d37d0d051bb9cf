package clcuda

import (
	"bytes"
	"fmt"
	"os/exec"
	"strings"
)

// hostStub makes a translated program C++ that g++ parses: CUDA's
// keywords, built-in variables and intrinsics declared for the host.
const hostStub = `#include <cmath>
#define __device__
#define __global__
#define __shared__
#define __align__(n) __attribute__((aligned(n)))
#define __launch_bounds__(n)
struct rcl_dim3 { unsigned x, y, z; };
extern rcl_dim3 threadIdx, blockIdx, blockDim, gridDim;
void __syncthreads();
float __int_as_float(int);
float __uint_as_float(unsigned);
unsigned __float_as_uint(float);
double __longlong_as_double(long long);
long long __double_as_longlong(double);
unsigned __umulhi(unsigned, unsigned);
void __threadfence();
void __threadfence_block();
int atomicAdd(int *, int); unsigned atomicAdd(unsigned *, unsigned);
int atomicSub(int *, int); unsigned atomicSub(unsigned *, unsigned);
int atomicExch(int *, int); unsigned atomicExch(unsigned *, unsigned);
int atomicMin(int *, int); unsigned atomicMin(unsigned *, unsigned);
int atomicMax(int *, int); unsigned atomicMax(unsigned *, unsigned);
int atomicAnd(int *, int); unsigned atomicAnd(unsigned *, unsigned);
int atomicOr(int *, int); unsigned atomicOr(unsigned *, unsigned);
int atomicXor(int *, int); unsigned atomicXor(unsigned *, unsigned);
int atomicCAS(int *, int, int); unsigned atomicCAS(unsigned *, unsigned, unsigned);
`

// GCC is the g++ command CheckWithGCC runs, or "" where there is none.
func GCC() string {
	p, err := exec.LookPath("g++")
	if err != nil {
		return ""
	}
	return p
}

// CheckWithGCC parses p with g++ (-fsyntax-only) over a stub of CUDA's
// keywords and intrinsics: where there is no NVRTC, the next best check
// that a translation is C++ that NVRTC would take (inline PTX is not
// checked). The error carries g++'s messages.
func CheckWithGCC(p *Program) error {
	gcc := GCC()
	if gcc == "" {
		return fmt.Errorf("clcuda: no g++")
	}
	cmd := exec.Command(gcc, "-std=c++17", "-fsyntax-only", "-w", "-x", "c++", "-")
	cmd.Stdin = strings.NewReader(hostStub + p.Source)
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Run(); err != nil {
		msg := out.String()
		if len(msg) > 4000 {
			msg = msg[:4000] + "…"
		}
		return fmt.Errorf("clcuda: g++ rejects the translation: %v\n%s", err, msg)
	}
	return nil
}
