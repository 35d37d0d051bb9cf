package ops

import (
	_ "embed"
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/resident-go/resident/array"
)

//go:embed cl/random.cl
var clRandom string

// deviceRand runs RandUniform or RandNormal where placement puts it: on a
// simulated device, the host kernel on its memory; on an OpenCL device,
// rand_fill. ok is false for the host.
func deviceRand[T array.Elem](dst *array.Array[T], seed, offset uint64, normal bool) (bool, error) {
	op := randName(normal)
	// Normals take T's own precision (float64 math only for float64), so
	// T alone says whether the device fits.
	k, m, err := target(op, [2]array.Type{array.TypeOf[T]()}, rawOf(dst))
	if m != nil {
		return onHostMem(m, op, rawOf(dst), nil, func(mem memFn) error {
			v, err := viewOn(mem, dst)
			if err != nil {
				return err
			}
			return randFill(v, seed, offset, normal)
		})
	}
	if k == nil {
		return err != nil, err
	}
	var nd ndArg
	if !rowOrderND(&nd, dst) {
		return false, nil
	}
	s := stateOf(k)
	ct, ok := clTypeOf(array.TypeOf[T]())
	if !ok {
		return true, unsupported(op, array.TypeOf[T](), "an Array element type")
	}
	p, err := s.program(progKey{kind: strings.ToLower(op), t: array.TypeOf[T]()}, func() string {
		return ct.defines("T", s.fp64) + clCommon + randCLDefines[T](normal) + clRandom
	})
	if err != nil {
		return true, err
	}
	mems, offs, err := ready(s, op, dst)
	if err != nil {
		return true, err
	}
	nd.off[0] = int64(offs[0])
	epb := 4 / randWords[T]()
	nb := (offset%epb + uint64(dst.Len()) + epb - 1) / epb
	if nd.rank == 1 && nd.st[0][0] == 1 && nd.n < 1<<31 {
		return wroteOnDevice(dst.Raw(), s.launch(p, "rand_dense", []int{s.items(int(nb))}, s.local, mems[0], nd.off[0], uint32(nd.n), seed, offset))
	}
	return wroteOnDevice(dst.Raw(), s.launch(p, "rand_fill", []int{s.items(int(nb))}, s.local, mems[0], nd.bytes(), seed, offset))
}

// rowOrderND describes dst's layout in row order (dimension 0 fastest)
// for rand_fill: extent-1 dimensions dropped and neighbours that are
// contiguous merged, but never reordered, since the order is the stream's.
func rowOrderND[T array.Elem](nd *ndArg, dst *array.Array[T]) bool {
	*nd = ndArg{n: int64(dst.Len())}
	r := 0
	for i := 0; i < dst.Rank(); i++ {
		d := dst.Dim(i)
		if d.Extent == 1 {
			continue
		}
		if r > 0 && int64(d.Stride) == nd.st[0][r-1]*nd.ext[r-1] {
			nd.ext[r-1] *= int64(d.Extent)
			continue
		}
		if r == clMaxDims {
			return false
		}
		nd.ext[r], nd.st[0][r] = int64(d.Extent), int64(d.Stride)
		r++
	}
	if r == 0 {
		nd.ext[0], r = 1, 1
	}
	nd.rank = int64(r)
	return true
}

// randCLDefines is the prologue of rand_fill for T: the stream's shape
// and, for normals, randLog's and randSinCos's constants as hexadecimal
// float literals, so that the kernel holds the bits the host holds.
func randCLDefines[T array.Elem](normal bool) string {
	kind := 0
	switch {
	case kindOf[T]() == kHalf:
		kind = 4
	case kindOf[T]() == kFloat && sizeOf[T]() == 4:
		kind = 2
	case kindOf[T]() == kFloat:
		kind = 3
	case sizeOf[T]() == 8:
		kind = 1
	}
	var b strings.Builder
	nrm := 0
	if normal {
		nrm = 1
	}
	fmt.Fprintf(&b, "#define RK %d\n#define RKIND %d\n#define RNORMAL %d\n", randWords[T](), kind, nrm)
	if ct, ok := clTypeOf(array.TypeOf[T]()); ok { // rand_dense's vector: a block's elements
		fmt.Fprintf(&b, "#define RVT %s%d\n", ct.s, 4/randWords[T]())
	}
	switch {
	case normal && randWords[T]() == 2:
		fmt.Fprintf(&b, "#define RLOGC %s\n#define RSINC %s\n#define RCOSC %s\n", hexList(logC[:]), hexList(sinC[:]), hexList(cosC[:]))
		fmt.Fprintf(&b, "#define RLN2HI %s\n#define RLN2LO %s\n#define RANGLE %s\n#define RSQRT2 %s\n",
			hexFloat(ln2Hi), hexFloat(ln2Lo), hexFloat(angle), hexFloat(math.Sqrt2))
	case normal:
		fmt.Fprintf(&b, "#define RLOGC32 %s\n#define RSINC32 %s\n#define RCOSC32 %s\n", hexList(logC32[:]), hexList(sinC32[:]), hexList(cosC32[:]))
		fmt.Fprintf(&b, "#define RLN2HI32 %s\n#define RLN2LO32 %s\n#define RANGLE32 %s\n", hexFloat(ln2Hi32), hexFloat(ln2Lo32), hexFloat(angle32))
		fmt.Fprintf(&b, "#define RSQRT2M %#xu\n#define RMAGIC %#xu\n", sqrt2Mant, rsqrtMagic)
	}
	return b.String()
}

// hexFloat spells x as an OpenCL C literal of x's type with x's exact bits.
func hexFloat[F float32 | float64](x F) string {
	if _, ok := any(x).(float32); ok {
		return "(" + strconv.FormatFloat(float64(x), 'x', -1, 32) + "f)"
	}
	return "(" + strconv.FormatFloat(float64(x), 'x', -1, 64) + ")"
}

// hexList is an OpenCL C initializer of c's exact bits.
func hexList[F float32 | float64](c []F) string {
	s := make([]string, len(c))
	for i, x := range c {
		s[i] = hexFloat(x)
	}
	return "{" + strings.Join(s, ", ") + "}"
}
