package device

// Gemmer is a device that multiplies matrices in its own memory with a
// vendor library (device/cuda: cuBLAS). Package ops asks for it, for
// operands resident on such a device, before any kernel of its own.
type Gemmer interface {
	Device
	// Gemm queues g on the device (it does not wait). It reports false,
	// having done nothing, when it has no routine for g's element type,
	// precision or layout; the caller then computes g another way.
	Gemm(g Gemm) (bool, error)
}

// GemmElem is a Gemm's element type.
type GemmElem uint8

const (
	GemmF32  GemmElem = iota + 1 // float32
	GemmF64                      // float64
	GemmF16                      // IEEE 754 binary16 (array.Float16)
	GemmBF16                     // bfloat16 (array.BFloat16)
)

// Size is the element's size in bytes.
func (e GemmElem) Size() int {
	switch e {
	case GemmF64:
		return 8
	case GemmF16, GemmBF16:
		return 2
	}
	return 4
}

// Precision is the arithmetic a matrix product may use: a lower one only
// when the caller asks for it, never silently.
type Precision uint8

const (
	// PrecisionExact: the element type's own arithmetic, float32 products
	// and sums for float32, float64 for float64; float16 and bfloat16
	// elements are multiplied exactly and summed in float32, and the sum
	// rounded once into dst.
	PrecisionExact Precision = iota
	// PrecisionTF32 lets float32 operands be rounded to TF32 (a 10-bit
	// mantissa) for tensor-core products, summed in float32. Other
	// element types ignore it. A device without TF32 computes exactly.
	PrecisionTF32
)

func (p Precision) String() string {
	switch p {
	case PrecisionExact:
		return "exact"
	case PrecisionTF32:
		return "tf32"
	}
	return "precision(?)"
}

// Matrix is one Gemm operand in its allocation: element (row r, column c)
// of batch z lies at byte Off + (r·Row + c·Col + z·Batch)·size from the
// allocation's start (its Offset not included). Strides are in elements;
// Batch 0 shares one matrix between every batch.
type Matrix struct {
	Alloc           Allocation
	Off             int
	Row, Col, Batch int
}

// Gemm is Dst = A·B for Batch products: A is M×K, B K×N, Dst M×N, all
// of Elem, each in its device allocation:
//
//	Dst(i, j, z) = Σ_p A(i, p, z)·B(p, j, z)
//
// Dst must not overlap A or B.
type Gemm struct {
	Elem      GemmElem
	Precision Precision
	M, N, K   int
	Batch     int
	A, B, Dst Matrix
}
