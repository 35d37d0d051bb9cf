package ops

import (
	"testing"

	"github.com/resident-go/resident/array"
)

// A fused pass on the host compiles its host steps only: about one
// allocation per node (its step) and the plan's slices and maps growing,
// no OpenCL statement or signature formatted (those took some 20 a node).
func TestFuseHostAllocs(t *testing.T) {
	if raceEnabled {
		t.Skip("allocations differ under the race detector")
	}
	testFuseHostAllocs[float32](t)
	testFuseHostAllocs[array.Float16](t) // through the float32 step
	testFuseHostAllocs[int32](t)
}

func testFuseHostAllocs[T array.Elem](t *testing.T) {
	a := array.New[T](64)
	for _, n := range []int{1, 4, 32} {
		e := In(a)
		for range n {
			e = e.Binary(OpAdd, Const[T](1)).Unary(OpAbs)
		}
		nodes := 1 + 3*n
		for name, fn := range map[string]func(){
			"Eval":       func() { Eval(a, e) },
			"EvalSumAll": func() { EvalSumAll(e) },
		} {
			got := testing.AllocsPerRun(20, fn)
			if limit := float64(16 + 2*nodes); got > limit {
				t.Errorf("%v %s of %d nodes on the host: %v allocs, want at most %v", array.TypeOf[T](), name, nodes, got, limit)
			}
		}
	}
}
