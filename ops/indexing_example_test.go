package ops_test

import (
	"fmt"

	"github.com/resident-go/resident/array"
	"github.com/resident-go/resident/ops"
)

// The Examples of the indexing, constructor and statistics rows of the
// NumPy table in package array's documentation; each prints what NumPy
// prints for its expression.

func ExampleTake() {
	a := array.FromValues([]int32{0, 1, 2, 3, 4, 5}, 2, 3)
	idx := array.FromValues([]int64{2, 0, -1})
	b, _ := ops.Take(a, idx, 1) // np.take(a, [2, 0, -1], axis=1)
	fmt.Println(b)
	_, err := ops.Take(a, array.FromValues([]int64{3}), 1)
	fmt.Println(err)
	// Output:
	// [[2 0 2]
	//  [5 3 5]]
	// array: out of range: ops.Take: index 3 is out of bounds for axis 1 with size 3 (NumPy raises IndexError): indices must be in [-3, 3)
}

func ExamplePut() {
	a := array.FromValues([]int32{0, 1, 2, 3, 4, 5}, 2, 3)
	_ = ops.Put(a, array.FromValues([]int64{0, -1}), array.FromValues([]int32{-7, -9})) // np.put(a, [0, -1], [-7, -9])
	fmt.Println(a)
	// Output:
	// [[-7  1  2]
	//  [ 3  4 -9]]
}

func ExampleExtract() {
	a := array.FromValues([]float32{1, -2, 3, -4}, 2, 2)
	mask, _ := ops.NewScalarOp(ops.CompareScalar, a, 0, ops.GT) // a > 0
	b, _ := ops.Extract(mask, a)                                // a[a > 0]
	fmt.Println(b)
	// Output: [1. 3.]
}

func ExamplePutMask() {
	a := array.FromValues([]float32{1, -2, 3, -4}, 2, 2)
	mask, _ := ops.NewScalarOp(ops.CompareScalar, a, 0, ops.LT)
	_ = ops.PutMask(a, mask, 0) // a[a < 0] = 0
	fmt.Println(a)
	// Output:
	// [[1. 0.]
	//  [3. 0.]]
}

func ExampleMeshgrid() {
	x := array.FromValues([]int32{1, 2, 3})
	y := array.FromValues([]int32{10, 20})
	g, _ := ops.Meshgrid(x, y) // xx, yy = np.meshgrid(x, y)
	fmt.Println(g[0])
	fmt.Println(g[1])
	// Output:
	// [[1 2 3]
	//  [1 2 3]]
	// [[10 10 10]
	//  [20 20 20]]
}

func ExampleMeshgridIJ() {
	x := array.FromValues([]int32{1, 2, 3})
	y := array.FromValues([]int32{10, 20})
	g, _ := ops.MeshgridIJ(x, y) // np.meshgrid(x, y, indexing='ij')
	fmt.Println(g[0].Shape(), g[1])
	// Output:
	// [3 2] [[10 20]
	//  [10 20]
	//  [10 20]]
}

func ExampleUnique() {
	a := array.FromValues([]int32{3, 1, 3, 2, 1, 3}, 2, 3)
	u, _ := ops.Unique(a) // np.unique(a)
	fmt.Println(u)
	// Output: [1 2 3]
}

func ExampleUniqueCounts() {
	a := array.FromValues([]int32{3, 1, 3, 2, 1, 3})
	u, c, _ := ops.UniqueCounts(a) // np.unique(a, return_counts=True)
	fmt.Println(u, c)
	// Output: [1 2 3] [2 1 3]
}

func ExampleBincount() {
	x := array.FromValues([]int32{0, 1, 1, 3, 1})
	c, _ := ops.Bincount(x, 0) // np.bincount(x)
	fmt.Println(c)
	// Output: [1 3 0 1]
}

func ExampleBincountWeights() {
	x := array.FromValues([]int32{0, 1, 1, 2})
	w := array.FromValues([]float64{0.5, 1, 0.25, 2})
	c, _ := ops.BincountWeights(x, w, 5) // np.bincount(x, weights=w, minlength=5)
	fmt.Println(c)
	// Output: [0.5  1.25 2.   0.   0.  ]
}

func ExampleHistogram() {
	a := array.FromValues([]float64{1, 2, 2, 3, 4})
	counts, edges, _ := ops.Histogram(a, 3) // np.histogram(a, 3)
	fmt.Println(counts)
	fmt.Println(edges)
	// Output:
	// [1 2 2]
	// [1. 2. 3. 4.]
}

func ExampleHistogramRange() {
	a := array.FromValues([]int32{0, 1, 5, 9, 10, 11})
	counts, edges, _ := ops.HistogramRange(a, 2, 0, 10) // np.histogram(a, 2, range=(0, 10))
	fmt.Println(counts, edges)
	// Output: [2 3] [ 0.  5. 10.]
}

func ExampleNewAlong() {
	a := array.FromValues([]float32{3, 1, 2, 9, 7, 8}, 2, 3)
	s, _ := ops.NewAlong(ops.Sort, a, -1)    // np.sort(a)
	i, _ := ops.NewAlong(ops.ArgSort, a, -1) // np.argsort(a, kind='stable')
	c, _ := ops.NewAlong(ops.CumSum, a, 0)   // np.cumsum(a, axis=0)
	fmt.Println(s)
	fmt.Println(i)
	fmt.Println(c)
	// Output:
	// [[1. 2. 3.]
	//  [7. 8. 9.]]
	// [[1 2 0]
	//  [1 2 0]]
	// [[ 3.  1.  2.]
	//  [12.  8. 10.]]
}

func ExampleNewReduceOp() {
	a := array.FromValues([]float64{1, 2, 3, 4, 6, 8}, 2, 3)
	v, _ := ops.NewReduceOp(ops.Var, a, -1, 0) // np.var(a, axis=-1)
	s, _ := ops.NewReduceOp(ops.Std, a, 0, 1)  // np.std(a, axis=0, ddof=1)
	fmt.Println(v)
	fmt.Println(s)
	// Output:
	// [0.66666667 2.66666667]
	// [2.12132034 2.82842712 3.53553391]
}

func ExampleNewReduceOp_zeroD() {
	a := array.FromValues([]float32{2, 4, 4, 4, 5, 5, 7, 9})
	s, _ := ops.NewReduceOp(ops.Std, a, 0, 0) // np.std(a, axis=0): a 0-D result
	fmt.Println(s)
	// Output: 2.0
}

func ExampleMeanAllFloat() {
	a := array.FromValues([]int32{1, 2})
	m, _ := ops.MeanAllFloat(a)    // np.mean(a)
	t, _ := ops.Value(ops.Mean, a) // the element type's mean, truncated
	fmt.Println(m, t)
	// Output: 1.5 1
}

func ExampleMeanFloat() {
	a := array.FromValues([]int32{1, 2, 4, 4}, 2, 2)
	m, _ := ops.MeanFloat(a, -1) // np.mean(a, axis=-1)
	fmt.Println(m)
	// Output: [1.5 4. ]
}

func ExampleGenerator() {
	g := ops.NewGenerator(42) // np.random.default_rng(42), with Philox's stream
	u := array.New[float64](3)
	_ = g.Uniform(u)
	h := ops.NewGenerator(42)
	v := array.New[float64](6)
	_ = h.Uniform(v) // the same stream: v's first 3 are u's
	fmt.Println(u)
	fmt.Println(v)
	k := array.New[int32](8)
	_ = g.Integers(k, -3, 3) // continues g's stream
	fmt.Println(k)
	// Output:
	// [0.46858652 0.34086155 0.32706338]
	// [0.46858652 0.34086155 0.32706338 0.4543156  0.65831553 0.77358468]
	// [ 0  0 -2 -2  1  2  2  1]
}

func ExampleGenerator_Split() {
	g := ops.NewGenerator(7)
	a, b := g.Split(), g.Split() // independent streams, e.g. one per goroutine
	x, y := array.New[float32](2), array.New[float32](2)
	_ = a.Normal(x)
	_ = b.Normal(y)
	fmt.Println(x, y, a.Seed() != b.Seed())
	// Output:
	// [-0.41791347 -0.40936416] [ 0.25397506 -0.6816525 ] true
}
