package ops

import (
	"errors"
	"fmt"

	"github.com/resident-go/resident/array"
)

// Generator is a seeded random number generator passed around as a
// value, like NumPy's np.random.default_rng(seed): each fill draws the
// next unused part of the Philox-4x32-10 stream of its seed (see
// Philox4x32), so consecutive fills never reuse random bits and the same
// seed and sequence of calls give the same numbers, on the host and on a
// device (RandUniform's and RandNormal's promise: bit for bit). Split
// gives an independent generator, for another goroutine or another part
// of a program. Fills run where RandUniform runs: where the placement
// rule puts an op with dst as its only operand (on dst's device when it
// is allocated there and current or newest). A Generator is not safe for
// concurrent use; Split one per goroutine. The zero value is the
// generator of seed 0.
type Generator struct {
	seed   uint64
	block  uint64 // the stream's next unused Philox block
	splits uint64 // Split calls so far
}

// NewGenerator returns the generator of seed, at the start of its stream.
func NewGenerator(seed uint64) *Generator { return &Generator{seed: seed} }

// Seed is the seed of g's stream.
func (g *Generator) Seed() uint64 { return g.seed }

// Split returns a new generator whose stream is independent of g's (and
// of every other Split of g): its seed is drawn from a Philox block that
// g's own fills never use (counter word 2 set to 1), keyed by g's seed,
// at the count of g's splits so far; g's stream is not advanced. Two
// generators collide only if their 64-bit seeds do.
func (g *Generator) Split() *Generator {
	w := Philox4x32([4]uint32{uint32(g.splits), uint32(g.splits >> 32), 1, 0}, g.key())
	g.splits++
	return NewGenerator(uint64(w[1])<<32 | uint64(w[0]))
}

func (g *Generator) key() [2]uint32 { return [2]uint32{uint32(g.seed), uint32(g.seed >> 32)} }

// Uniform fills dst (an *array.Array of any element type) with uniform
// random numbers, np.random.Generator.random's for floats (in [0, 1)):
// RandUniform(dst, g.Seed(), offset) at the next unused block of g's
// stream; integer types are uniform over all of T. g advances past the
// blocks used when the fill succeeds.
func (g *Generator) Uniform(dst array.Buffer) error { return g.fill("Uniform", dst, genUniform, 0, 0) }

// Normal fills dst with standard normal numbers (mean 0, variance 1), as
// np.random.Generator.standard_normal: RandNormal at the next unused
// block of g's stream. Float types only: others return an error wrapping
// ErrUnsupported.
func (g *Generator) Normal(dst array.Buffer) error { return g.fill("Normal", dst, genNormal, 0, 0) }

// Integers fills dst (an integer Array) with integers uniform in [lo,
// hi), as np.random.Generator.integers(lo, hi): each element is lo +
// (x mod (hi − lo)) for x a uint64 of g's stream (RandUniform's), so its
// bias is below (hi − lo)/2⁶⁴. It runs as RandUniform into a temporary
// uint64 Array on dst's device (or the host), then a Mod, an Add and a
// CastWrap into dst, each placed by the rule, all on the device when dst
// is resident there. hi ≤ lo, or a bound outside dst's type, panics with
// array.ErrOutOfRange; a float dst returns an error wrapping
// ErrUnsupported.
func (g *Generator) Integers(dst array.Buffer, lo, hi int64) error {
	return g.fill("Integers", dst, genIntegers, lo, hi)
}

type genKind uint8

const (
	genUniform genKind = iota
	genNormal
	genIntegers
)

func (g *Generator) fill(op string, dst array.Buffer, k genKind, lo, hi int64) error {
	if r := dst.Raw(); r != nil {
		if f, err := genFills.For(r.Type()); err == nil {
			if err := f(g, op, dst, k, lo, hi); err != errNotArray {
				return err
			}
		}
	}
	return fmt.Errorf("%w: ops.Generator.%s: dst is a %T: pass an *array.Array", ErrUnsupported, op, dst)
}

// genFills is genFillOf per element type (array's one converter).
var genFills = array.Instances(genFillOf[int8], genFillOf[int16], genFillOf[int32], genFillOf[int64],
	genFillOf[uint8], genFillOf[uint16], genFillOf[uint32], genFillOf[uint64],
	genFillOf[array.Float16], genFillOf[array.BFloat16], genFillOf[float32], genFillOf[float64])

// errNotArray: dst has the element type but is not an *array.Array.
var errNotArray = errors.New("not an Array")

func genFillOf[T array.Elem](g *Generator, op string, dst array.Buffer, k genKind, lo, hi int64) error {
	x, ok := dst.(*array.Array[T])
	if !ok {
		return errNotArray
	}
	return genFill(g, op, x, k, lo, hi)
}

func genFill[T array.Elem](g *Generator, op string, dst *array.Array[T], k genKind, lo, hi int64) error {
	if k == genIntegers {
		return genInts(g, dst, lo, hi)
	}
	// RandUniform's offset is in elements of T: 4/words of them a block.
	epb := 4 / randWords[T]()
	var err error
	if k == genNormal {
		err = RandNormal(dst, g.seed, g.block*epb)
	} else {
		err = RandUniform(dst, g.seed, g.block*epb)
	}
	if err != nil {
		return fmt.Errorf("ops.Generator.%s: %w", op, err)
	}
	g.block += (uint64(dst.Len()) + epb - 1) / epb
	return nil
}

func genInts[T array.Elem](g *Generator, dst *array.Array[T], lo, hi int64) error {
	if k := kindOf[T](); k == kFloat || k == kHalf {
		return unsupported("Generator.Integers", array.TypeOf[T](), "an integer type")
	}
	if hi <= lo {
		panic(fmt.Errorf("%w: ops.Generator.Integers: [lo, hi) = [%d, %d) is empty: want lo < hi (NumPy raises ValueError)", array.ErrOutOfRange, lo, hi))
	}
	var zero T
	tmin, tmax := intBounds(zero)
	if lo < tmin || hi-1 > tmax {
		panic(fmt.Errorf("%w: ops.Generator.Integers: [lo, hi) = [%d, %d) is outside %v's range [%d, %d]", array.ErrOutOfRange, lo, hi, array.TypeOf[T](), tmin, tmax))
	}
	if err := closedOperand("Generator.Integers", rawOf(dst)); err != nil {
		return err
	}
	dev, err := placement("Generator.Integers", rawOf(dst))
	if err != nil {
		return err
	}
	t, err := deviceTemp[uint64](dev, dst.Extents()...)
	if err != nil {
		return err
	}
	defer t.Close()
	if err := genFill(g, "Integers", t, genUniform, 0, 0); err != nil {
		return err
	}
	if err := BinaryScalar(t, t, uint64(hi)-uint64(lo), OpMod); err != nil {
		return err
	}
	if err := BinaryScalar(t, t, uint64(lo), OpAdd); err != nil {
		return err
	}
	return CastWrap(dst, t)
}

// intBounds is the range of integer type T, as int64 (uint64's top
// clipped to int64's).
func intBounds[T array.Elem](T) (int64, int64) {
	bits := 8 * sizeOf[T]()
	if kindOf[T]() == kSigned {
		return -1 << (bits - 1), 1<<(bits-1) - 1
	}
	if bits == 64 {
		return 0, 1<<63 - 1
	}
	return 0, 1<<bits - 1
}
