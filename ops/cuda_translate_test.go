package ops

import (
	"fmt"
	"runtime"
	"slices"
	"sort"
	"sync"
	"testing"

	"github.com/resident-go/resident/array"
	"github.com/resident-go/resident/internal/clcuda"
)

// cudaSources are the programs ops builds on a device with fp64, by name:
// each kind and element type (float32's reductions also at every
// unroll), casts between every pair, the GEMM tilings (portable, vector
// and inline-PTX), and fused expressions using every op, with and without
// a reduction (whose one-pass ending, fuse_one, is cl/lastgroup.cl's LAST_GROUP).
func cudaSources() map[string]string {
	srcs := map[string]string{}
	for _, add := range []func(map[string]string){addSources[int8], addSources[int16], addSources[int32], addSources[int64],
		addSources[uint8], addSources[uint16], addSources[uint32], addSources[uint64],
		addSources[float32], addSources[float64], addSources[array.Float16], addSources[array.BFloat16]} {
		add(srcs)
	}
	types := []array.Type{array.TypeOf[int8](), array.TypeOf[int16](), array.TypeOf[int32](), array.TypeOf[int64](),
		array.TypeOf[uint8](), array.TypeOf[uint16](), array.TypeOf[uint32](), array.TypeOf[uint64](),
		array.TypeOf[float32](), array.TypeOf[float64](), array.TypeOf[array.Float16](), array.TypeOf[array.BFloat16]()}
	for _, d := range types {
		for _, s := range types {
			srcs[fmt.Sprintf("cast %v←%v", d, s)] = castSource(d, s, true)
		}
	}
	for _, c := range append([]gemmConfig{gemmNVIDIA32, gemmNVIDIA64, gemmNVIDIAMMA, gemmOther, {128, 128, 8, 64, 64, gemmMMA8}},
		append(append(gemmNVIDIA32Small, gemmNVIDIA64Small...), gemmMMASmall...)...) {
		for _, t := range []array.Type{array.TypeOf[float32](), array.TypeOf[float64]()} {
			if c.mma() && t.Bits != 64 {
				continue
			}
			ct, _ := clTypeOf(t)
			srcs[fmt.Sprintf("gemm %v %v", t, c)] = gemmSource(c, ct)
		}
	}
	return srcs
}

func addSources[T array.Elem](srcs map[string]string) {
	t := array.TypeOf[T]()
	ct, _ := clTypeOf(t)
	pre := ct.defines("T", true) + clCommon
	srcs["ew "+t.String()] = pre + clElementwise + clMath + clUnary + clBinary
	srcs["red "+t.String()] = redSource(ct, true, 4, false)
	if t == array.TypeOf[float32]() {
		for _, u := range []int{1, 2, 8} {
			srcs[fmt.Sprintf("red %v unroll %d", t, u)] = redSource(ct, true, u, false)
		}
	}
	srcs["along "+t.String()] = pre + clAlong
	srcs["rand "+t.String()] = pre + randCLDefines[T](false) + clRandom
	if ct.float {
		srcs["randn "+t.String()] = pre + randCLDefines[T](true) + clRandom
	}
	a, b := array.New[T](3), array.New[T](3)
	defer a.Close()
	defer b.Close()
	var one T
	e := In(a)
	for op := OpAdd; op <= OpMod; op++ {
		if binaryCheck[T](op) == nil {
			e = e.Binary(op, In(b).Binary(OpAdd, Const(one)))
		}
	}
	for op := range nUnary {
		if unaryCheck[T](op) == nil {
			e = e.Unary(op)
		}
	}
	e = e.Binary(OpAdd, AsType[T](AsTypeSaturate[float32](AsType[int16](e))))
	e = e.Binary(OpAdd, AsTypeSaturate[T](AsType[float64](e))).Binary(OpAdd, AsTypeSaturate[T](AsTypeSaturate[uint8](e)))
	for i, red := range []reduceOp{redSum, redSum, redMin, redMax} {
		p := newPlan("Eval", e.node("Eval"))
		srcs[fmt.Sprintf("fuse %v %d", t, i)] = p.source(red, i > 0, true, false)
	}
}

// TestCUDATranslation: every program ops builds translates
// (internal/clcuda, as device/cuda's Compile does) into C++ that g++
// parses over a stub of CUDA's keywords: where there is no GPU or NVRTC,
// the check that device/cuda can build ops' kernels. On the H200,
// TestCUDAOps and TestDiff's cuda side compile them with NVRTC.
func TestCUDATranslation(t *testing.T) {
	if clcuda.GCC() == "" {
		t.Skip("no g++ to parse the translations")
	}
	srcs := cudaSources()
	names := make([]string, 0, len(srcs))
	for n := range srcs {
		names = append(names, n)
	}
	sort.Strings(names)
	if testing.Short() || raceEnabled {
		// every eighth, so every kind (names sort by kind, then type); the
		// second ops pass of make test, without -race, runs them all
		names = slices.Collect(func(yield func(string) bool) {
			for i := 0; i < len(names) && yield(names[i]); i += 8 {
			}
		})
	}
	work := make(chan string)
	var mu sync.Mutex
	var wg sync.WaitGroup
	for range min(4, runtime.GOMAXPROCS(0)) {
		wg.Go(func() {
			for n := range work {
				p, err := clcuda.Translate(srcs[n], "-DFP64")
				if err == nil {
					err = clcuda.CheckWithGCC(p)
				}
				if err != nil {
					mu.Lock()
					t.Errorf("%s: %v", n, err)
					mu.Unlock()
				}
			}
		})
	}
	for _, n := range names {
		work <- n
	}
	close(work)
	wg.Wait()
	t.Logf("%d programs translated and parsed", len(names))
}
