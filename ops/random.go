package ops

import (
	"math"
	"sync/atomic"
	"unsafe"

	"github.com/resident-go/resident/array"
)

// Philox4x32 is the Philox-4x32-10 block function: ten rounds of the
// generator on counter ctr with key key. RandUniform and RandNormal draw
// from it, so their random numbers are Philox-4x32-10's (Salmon, Moraes, Dror and Shaw,
// "Parallel random numbers: as easy as 1, 2, 3", SC 2011): a counter-based
// generator, so element i of a stream is a pure function of (seed, i) and
// the host and the device compute the same bits in any order and split.
//
// The stream of a seed is a sequence of 32-bit words: block b (a uint64)
// is Philox4x32(ctr = {lo32(b), hi32(b), 0, 0}, key = {lo32(seed),
// hi32(seed)}), whose four words are words 4b … 4b+3. An element of type
// T takes k words, k = 2 for 8-byte types (float64, int64, uint64) and
// for float64 normals, else 1: stream element j (a uint64) is built from
// words w0 … wk−1 of block j/(4/k) starting at lane (j mod 4/k)·k, as
// follows.
//
//	RandUniform float32      (w >> 8) · 2⁻²⁴, in [0, 1)
//	RandUniform float64      (x >> 11) · 2⁻⁵³, x = w1<<32 | w0
//	RandUniform Float16      (w >> 21) · 2⁻¹¹ (exact in Float16)
//	RandUniform BFloat16     (w >> 24) · 2⁻⁸ (exact in BFloat16)
//	RandUniform (u)int8…32   the low bits of w: uniform over all of T
//	RandUniform (u)int64     x = w1<<32 | w0: uniform over all of T
//
// RandNormal draws standard normals by Box–Muller: elements 2p and 2p+1
// share the pair of uniforms u1 ∈ (0, 1] and a turn fraction a, and are
// r·cos(2πa) and r·sin(2πa) with r = √(−2·ln u1). For float32, Float16
// and BFloat16, u1 = (w0 + 1)·2⁻³² and a = w1/2³² from the pair's two
// words (words 2p and 2p+1 of the stream); for float64, u1 = ((x >> 11) +
// 1)·2⁻⁵³ from the first two words of block p and a = y/2⁶⁴ from the last
// two (y = w3<<32 | w2). The math is the package's own ln, √, sin and
// cos, made of operations IEEE 754 rounds correctly on both sides (the
// OpenCL kernel turns FP_CONTRACT off, and the Go code converts products
// explicitly, so neither fuses a multiply-add): for float64 in float64
// (randLog, randSinCos: +, −, ×, ÷ and √), within 2 ulps of math.Log,
// math.Sin and math.Cos (TestRandMath); for the others in float32
// (boxMuller32: +, −, × and fused multiply-adds), within 1.5 ulps of
// math.Log, math.Sin and math.Cos and 3 of math.Sqrt (TestRandMath32),
// the result rounded to T for Float16 and BFloat16. So normals too are
// bit-identical on the host and the device.
func Philox4x32(ctr [4]uint32, key [2]uint32) [4]uint32 {
	c0, c1, c2, c3 := ctr[0], ctr[1], ctr[2], ctr[3]
	k0, k1 := key[0], key[1]
	c0, c1, c2, c3 = philoxRound(c0, c1, c2, c3, k0, k1)
	for range 9 {
		k0 += philoxW0
		k1 += philoxW1
		c0, c1, c2, c3 = philoxRound(c0, c1, c2, c3, k0, k1)
	}
	return [4]uint32{c0, c1, c2, c3}
}

// philoxRound is one round: two 32×32→64 products, their halves
// exchanged and mixed with the key.
func philoxRound(c0, c1, c2, c3, k0, k1 uint32) (uint32, uint32, uint32, uint32) {
	p0 := uint64(philoxM0) * uint64(c0)
	p1 := uint64(philoxM1) * uint64(c2)
	return uint32(p1>>32) ^ c1 ^ k0, uint32(p1), uint32(p0>>32) ^ c3 ^ k1, uint32(p0)
}

// Philox-4x32's multipliers and Weyl key increments (the golden ratio and
// √3 − 1 in 32-bit fixed point).
const (
	philoxM0 = 0xD2511F53
	philoxM1 = 0xCD9E8D57
	philoxW0 = 0x9E3779B9
	philoxW1 = 0xBB67AE85
)

// RandUniform fills dst with uniform random numbers from the Philox
// stream of seed, starting at stream element offset: element i of dst
// in row order — dimension 0 fastest, that is the index
// i = Σ (xk − Dim(k).Min) · Π_{m<k} Dim(m).Extent — gets stream element
// offset + i (mod 2⁶⁴), whatever dst's strides, so a fill of n elements
// at offset n continues a fill of n at offset 0. Floats are in [0, 1);
// integers are uniform over all of T (Philox4x32 defines the stream). The host and a device give the same bits.
// It runs where the package's placement rule puts an op with dst as its
// only operand.
func RandUniform[T array.Elem](dst *array.Array[T], seed, offset uint64) error {
	return randFill(dst, seed, offset, false)
}

// RandNormal fills dst with standard normal numbers (mean 0, variance 1)
// from the Philox stream of seed by Box–Muller, element i of dst in row
// order getting stream element offset + i as for RandUniform. It takes
// float32, float64, Float16 and BFloat16; other types return an error
// wrapping ErrUnsupported. The host and a device give the same bits
// (Philox4x32 says how). Float64 normals take float64 math, so a device
// without cl_khr_fp64 leaves them to the host, as every float64 op.
func RandNormal[T array.Elem](dst *array.Array[T], seed, offset uint64) error {
	if kindOf[T]() != kFloat && kindOf[T]() != kHalf {
		return unsupported("RandNormal", array.TypeOf[T](), "a floating-point type")
	}
	return randFill(dst, seed, offset, true)
}

func randFill[T array.Elem](dst *array.Array[T], seed, offset uint64, normal bool) error {
	if ok, err := deviceRand(dst, seed, offset, normal); ok {
		return err
	}
	op := randName(normal)
	j := getJob()
	defer putJob(j)
	j.init(op, dst)
	// Operand 1 is virtual: its offset is the element's row-order index.
	j.addScalar()
	stride := 1
	for k := 0; k < dst.Rank(); k++ {
		j.str[1][k] = stride
		stride *= dst.Dim(k).Extent
	}
	j.simplify()
	if j.total() == 0 {
		return nil
	}
	if err := hostDst(j, dst); err != nil {
		return err
	}
	j.scal[2], j.scal[3] = seed, offset
	j.op = 0
	if normal {
		j.op = 1
	} else {
		j.mode = ntFor(j.total() * sizeOf[T]())
	}
	j.row = cached(&randRowTab[typeIndex[T]()], func() rowFunc { return randRow[T] })
	j.body = rows
	j.parallel(j.total(), 1<<14)
	return nil
}

func randName(normal bool) string {
	if normal {
		return "RandNormal"
	}
	return "RandUniform"
}

var randRowTab [nTypes]atomic.Pointer[rowFunc]

// philox caches the last block it computed, since neighbouring elements
// share blocks, and the last Box–Muller pair.
type philox struct {
	key      [2]uint32
	b        uint64
	w        [4]uint32
	have     bool
	pair     uint64
	z        [2]float64
	havePair bool
}

func (p *philox) block(b uint64) *[4]uint32 {
	if !p.have || p.b != b {
		p.w = Philox4x32([4]uint32{uint32(b), uint32(b >> 32), 0, 0}, p.key)
		p.b, p.have = b, true
	}
	return &p.w
}

// randWords is k, the words per stream element of T (see Philox4x32): 2
// for 8-byte types, else 1.
func randWords[T array.Elem]() uint64 {
	if sizeOf[T]() == 8 {
		return 2
	}
	return 1
}

func randRow[T array.Elem](j *job, n int, off *[maxOps]int) {
	sd, si := j.str[0][0], j.str[1][0]
	d := span[T](j.base[0], off[0], n, sd)
	p := philox{key: [2]uint32{uint32(j.scal[2]), uint32(j.scal[2] >> 32)}}
	first := j.scal[3] + uint64(off[1])
	at := func(i int) uint64 { return first + uint64(i*si) }
	if sd == 1 && si == 1 && randDense(d[:n], p.key, first, j.op == 1, j.mode == 1) {
		return
	}
	if j.op == 1 {
		wide := sizeOf[T]() == 8
		half := kindOf[T]() == kHalf
		if !wide {
			// float32 normals a batch at a time through normals32's
			// kernel (the scalar math emulates its fused multiply-adds):
			// each element's pair words, then its lane of the pair.
			var w [256]uint32
			var z [256]float32
			for i := 0; i < n; i += len(w) / 2 {
				m := min(len(w)/2, n-i)
				for k := range m {
					pr := at(i+k) / 2
					bl, l := p.block(pr/2), pr%2*2
					w[2*k], w[2*k+1] = bl[l], bl[l+1]
				}
				normals32(z[:2*m], w[:2*m])
				for k := range m {
					x := z[2*k+int(at(i+k)%2)]
					if half {
						d[(i+k)*sd] = fromF32[T](x)
					} else {
						d[(i+k)*sd] = T(x)
					}
				}
			}
			return
		}
		for i := 0; i < n; i++ {
			z := p.normal(at(i), wide)
			switch {
			case half:
				d[i*sd] = fromF32[T](float32(z))
			case wide:
				d[i*sd] = T(z)
			default:
				d[i*sd] = T(float32(z))
			}
		}
		return
	}
	// One loop per type, so that the per-element work is the conversion.
	var zero T
	switch any(zero).(type) {
	case float32:
		for i := 0; i < n; i++ {
			e := at(i)
			d[i*sd] = T(float32(p.block(e / 4)[e%4]>>8) * 0x1p-24)
		}
	case float64:
		for i := 0; i < n; i++ {
			e := at(i)
			w, l := p.block(e/2), e%2*2
			d[i*sd] = T(float64((uint64(w[l+1])<<32|uint64(w[l]))>>11) * 0x1p-53)
		}
	case array.Float16:
		for i := 0; i < n; i++ {
			e := at(i)
			d[i*sd] = fromF32[T](float32(p.block(e / 4)[e%4]>>21) * 0x1p-11)
		}
	case array.BFloat16:
		for i := 0; i < n; i++ {
			e := at(i)
			d[i*sd] = fromF32[T](float32(p.block(e / 4)[e%4]>>24) * 0x1p-8)
		}
	case int64, uint64:
		for i := 0; i < n; i++ {
			e := at(i)
			w, l := p.block(e/2), e%2*2
			d[i*sd] = T(uint64(w[l+1])<<32 | uint64(w[l]))
		}
	default: // 8-, 16- and 32-bit integers: the word's low bits
		for i := 0; i < n; i++ {
			e := at(i)
			d[i*sd] = T(p.block(e / 4)[e%4])
		}
	}
}

// normal is stream element e of a normal fill in float64, wide for
// float64 (two words an element), else one word an element.
func (p *philox) normal(e uint64, wide bool) float64 {
	if pr := e / 2; !p.havePair || p.pair != pr {
		if wide {
			w := p.block(pr)
			p.z[0], p.z[1] = boxMuller(uint64(w[1])<<32|uint64(w[0]), uint64(w[3])<<32|uint64(w[2]))
		} else {
			w, l := p.block(pr/2), pr%2*2
			z0, z1 := boxMuller32(w[l], w[l+1])
			p.z[0], p.z[1] = float64(z0), float64(z1)
		}
		p.pair, p.havePair = pr, true
	}
	return p.z[e%2]
}

// boxMuller is the pair of float64 normals from x (u1 = ((x >> 11) + 1)
// · 2⁻⁵³) and the turn fraction a/2⁶⁴: r·cos and r·sin.
func boxMuller(x, a uint64) (float64, float64) {
	u1 := float64((x>>11)+1) * 0x1p-53
	r := math.Sqrt(-2 * randLog(u1))
	s, c := randSinCos(a)
	return float64(r * c), float64(r * s)
}

// Constants of randLog and randSinCos, shared with the OpenCL kernel
// through randCLDefines (as hexadecimal literals, so both sides hold the
// same bits).
var (
	// ln 2 split so that e·ln2Hi is exact for the exponents here.
	ln2Hi = math.Float64frombits(0x3fe62e42fee00000)
	ln2Lo = math.Ln2 - math.Float64frombits(0x3fe62e42fee00000)
	// logC[k] = 1/(2k+3): ln((1+s)/(1−s)) = 2s·(1 + s²/3 + s⁴/5 + …).
	logC = func() (c [10]float64) {
		for k := range c {
			c[k] = 1 / float64(2*k+3)
		}
		return
	}()
	// sinC[k] = (−1)^(k+1)/(2k+3)!, cosC[k] = (−1)^(k+1)/(2k+2)!.
	sinC, cosC = func() (s [8]float64, c [9]float64) {
		f, sign := 1.0, -1.0
		for k := 2; k <= 18; k++ {
			f *= float64(k) // exact: 18! < 2⁵³
			if k%2 == 0 {
				c[k/2-1] = sign / f
			} else {
				s[k/2-1] = sign / f
				sign = -sign
			}
		}
		return
	}()
	// angle is a quarter turn over 2⁵³: θ = r·angle for r of 53 bits.
	angle = math.Pi / 2 * 0x1p-53
)

// randLog is ln x for x in (0, 1], a normal float64: x = m·2^e with m in
// [√½, √2), s = (m−1)/(m+1), ln m = 2s·(1 + s²/3 + … + s²⁰/21) (|s| ≤
// 0.172, so the series' tail is below 2⁻⁵⁶ of it).
func randLog(x float64) float64 {
	b := math.Float64bits(x)
	e := int64(b>>52&0x7ff) - 1023
	m := math.Float64frombits(b&(1<<52-1) | 1023<<52)
	if m > math.Sqrt2 {
		m *= 0.5
		e++
	}
	f := m - 1 // exact: m is within a factor 2 of 1
	s := f / (2 + f)
	z := float64(s * s)
	p := logC[len(logC)-1]
	for k := len(logC) - 2; k >= 0; k-- {
		p = logC[k] + float64(z*p)
	}
	s2 := 2 * s
	fe := float64(e)
	return float64(fe*ln2Hi) + (float64(s2*float64(z*p)) + s2 + float64(fe*ln2Lo))
}

// randSinCos is sin and cos of the turn fraction a/2⁶⁴ (angle 2π·a/2⁶⁴):
// the nearest quarter turn q is taken exactly from a's top bits and the
// rest, θ in [−π/4, π/4), goes through Taylor polynomials to θ¹⁷ and θ¹⁸.
func randSinCos(a uint64) (sin, cos float64) {
	t := a + 1<<61
	q := t >> 62
	r := int64(t&(1<<62-1)-1<<61) >> 9 // 53 bits: converts exactly
	th := float64(float64(r) * angle)
	z := float64(th * th)
	ps := sinC[len(sinC)-1]
	for k := len(sinC) - 2; k >= 0; k-- {
		ps = sinC[k] + float64(z*ps)
	}
	pc := cosC[len(cosC)-1]
	for k := len(cosC) - 2; k >= 0; k-- {
		pc = cosC[k] + float64(z*pc)
	}
	return quarterTurn(q, th+float64(th*float64(z*ps)), 1+float64(z*pc))
}

// quarterTurn is sin and cos of q quarter turns more than the angle whose
// sin and cos are s and c.
func quarterTurn[F float32 | float64](q uint64, s, c F) (F, F) {
	switch q & 3 {
	case 1:
		return c, -s
	case 2:
		return -s, -c
	case 3:
		return -c, s
	}
	return s, c
}

// randDense fills d with stream elements first, first+1, … of a
// float32, float64 or 32- and 64-bit integer fill (uniform; normal for
// the floats), whole Philox blocks straight into d, many at a call of
// philoxBlocks (nt: with non-temporal stores); it reports false for the other types, which take
// randRow's general loop. The bits are randRow's.
func randDense[T array.Elem](d []T, key [2]uint32, first uint64, normal, nt bool) bool {
	mode := -1
	var zero T
	switch any(zero).(type) {
	case float32:
		mode = blockF32
	case float64:
		mode = blockF64
	case int32, uint32, int64, uint64:
		mode = blockWords
	}
	if mode < 0 || normal && mode == blockWords {
		return false
	}
	wide := sizeOf[T]() == 8
	epb := 4 / randWords[T]()         // elements a block
	end := (math.MaxUint64 / epb) + 1 // blocks in the stream: they wrap with it
	p := philox{key: key}
	i, e := 0, first
	for ; i < len(d) && e%epb != 0; i, e = i+1, e+1 {
		d[i] = randOne[T](&p, e, normal)
	}
	var keys philoxKeys
	if len(d)-i >= int(epb) {
		keys.set(key)
	}
	for len(d)-i >= int(epb) {
		b := e / epb
		nb := uint64(len(d)-i) / epb
		nb = min(nb, end-b)
		if normal {
			normalBlocks(unsafe.Pointer(&d[i]), b, int(nb), key, &keys, wide)
		} else {
			philoxBlocks(unsafe.Pointer(&d[i]), b, int(nb), key, &keys, mode, nt)
		}
		i += int(nb * epb)
		e += nb * epb
	}
	for ; i < len(d); i, e = i+1, e+1 {
		d[i] = randOne[T](&p, e, normal)
	}
	return true
}

// randOne is stream element e of a fill of T (float32, float64 or a 32-
// or 64-bit integer), element by element as randRow computes it.
func randOne[T array.Elem](p *philox, e uint64, normal bool) T {
	wide := sizeOf[T]() == 8
	if normal {
		z := p.normal(e, wide)
		if wide {
			return T(z)
		}
		return T(float32(z))
	}
	var zero T
	switch any(zero).(type) {
	case float32:
		return T(float32(p.block(e / 4)[e%4]>>8) * 0x1p-24)
	case float64:
		w, l := p.block(e/2), e%2*2
		return T(float64((uint64(w[l+1])<<32|uint64(w[l]))>>11) * 0x1p-53)
	}
	if wide {
		w, l := p.block(e/2), e%2*2
		return T(uint64(w[l+1])<<32 | uint64(w[l]))
	}
	return T(p.block(e / 4)[e%4])
}

// Block formats of philoxBlocks, 16 bytes a block: the four words, four
// float32 uniforms or two float64 uniforms (RandUniform's conversions).
const (
	blockWords = iota
	blockF32
	blockF64
)

// philoxKeys are a key's ten round keys, each word repeated over a
// 32-byte vector: the assembly kernel XORs them in from memory.
type philoxKeys [10][2][8]uint32

func (k *philoxKeys) set(key [2]uint32) {
	k0, k1 := key[0], key[1]
	for r := range k {
		for l := range 8 {
			k[r][0][l], k[r][1][l] = k0, k1
		}
		k0 += philoxW0
		k1 += philoxW1
	}
}

// philoxBlocks writes blocks b … b+nb−1 of key to dst in format mode, 16
// bytes a block; b+nb−1 must not pass 2⁶⁴ − 1 (callers split where the
// stream wraps). keys are key's round keys (for the assembly kernel); nt
// asks for non-temporal stores (a fill larger than the caches).
func philoxBlocks(dst unsafe.Pointer, b uint64, nb int, key [2]uint32, keys *philoxKeys, mode int, nt bool) {
	if useAsm && nb >= 8 {
		if nt && uintptr(dst)%32 == 16 { // one block here aligns the kernel's stores
			philoxBlocksGo(dst, b, 1, key, mode)
			dst, b, nb = unsafe.Add(dst, 16), b+1, nb-1
		}
		philoxBlocksAVX2(dst, b, nb, keys, mode, nt && uintptr(dst)%32 == 0)
		done := nb &^ 7
		if done == nb { // no pointer past dst's end (checkptr)
			return
		}
		dst, b, nb = unsafe.Add(dst, 16*done), b+uint64(done), nb-done
	}
	philoxBlocksGo(dst, b, nb, key, mode)
}

// philoxBlocksGo is philoxBlocks' portable loop.
func philoxBlocksGo(dst unsafe.Pointer, b uint64, nb int, key [2]uint32, mode int) {
	var w [4][4]uint32
	for i := 0; i < nb; i += 4 {
		philox4(&w, b+uint64(i), key)
		for l := range min(4, nb-i) {
			putBlock(unsafe.Add(dst, 16*(i+l)), &w[l], mode)
		}
	}
}

func putBlock(p unsafe.Pointer, w *[4]uint32, mode int) {
	switch mode {
	case blockF32:
		o := (*[4]float32)(p)
		for l := range 4 {
			o[l] = float32(w[l]>>8) * 0x1p-24
		}
	case blockF64:
		o := (*[2]float64)(p)
		o[0] = float64((uint64(w[1])<<32|uint64(w[0]))>>11) * 0x1p-53
		o[1] = float64((uint64(w[3])<<32|uint64(w[2]))>>11) * 0x1p-53
	default:
		*(*[4]uint32)(p) = *w
	}
}

// philox4 is blocks b … b+3 into w, the rounds of the four interleaved,
// so the CPU overlaps their multiplies (one block's ten rounds are a
// chain of dependent ones).
func philox4(w *[4][4]uint32, b uint64, key [2]uint32) {
	var c0, c1, c2, c3 [4]uint32
	for l := range 4 {
		bl := b + uint64(l)
		c0[l], c1[l] = uint32(bl), uint32(bl>>32)
	}
	k0, k1 := key[0], key[1]
	for r := range 10 {
		if r > 0 {
			k0 += philoxW0
			k1 += philoxW1
		}
		for l := range 4 {
			p0 := uint64(philoxM0) * uint64(c0[l])
			p1 := uint64(philoxM1) * uint64(c2[l])
			c0[l], c1[l], c2[l], c3[l] = uint32(p1>>32)^c1[l]^k0, uint32(p1), uint32(p0>>32)^c3[l]^k1, uint32(p0)
		}
	}
	for l := range 4 {
		w[l] = [4]uint32{c0[l], c1[l], c2[l], c3[l]}
	}
}

// normalBlocks writes the normals of blocks b … b+nb−1 to dst, four
// float32 or (wide) two float64 a block: the blocks' words a batch at a
// time, then Box–Muller on each pair.
func normalBlocks(dst unsafe.Pointer, b uint64, nb int, key [2]uint32, keys *philoxKeys, wide bool) {
	var w [64][4]uint32
	for nb > 0 {
		m := min(nb, len(w))
		philoxBlocks(unsafe.Pointer(&w), b, m, key, keys, blockWords, false)
		if !wide {
			normals32(unsafe.Slice((*float32)(dst), 4*m), unsafe.Slice(&w[0][0], 4*m))
		} else {
			k0 := 0
			if useAsm {
				boxMullerAVX2(dst, unsafe.Pointer(&w), m, &bmConsts)
				k0 = m &^ 3
			}
			for k := k0; k < m; k++ {
				x := &w[k]
				o := (*[2]float64)(unsafe.Add(dst, 16*k))
				o[0], o[1] = boxMuller(uint64(x[1])<<32|uint64(x[0]), uint64(x[3])<<32|uint64(x[2]))
			}
		}
		if nb -= m; nb > 0 {
			dst, b = unsafe.Add(dst, 16*m), b+uint64(m)
		}
	}
}

// bmTable holds the constants of boxMullerAVX2, each repeated over a
// 32-byte vector, at the indexes its assembly names (random_amd64.s).
type bmTable [45][4]uint64

// bmConsts is the table from the very variables randLog and randSinCos
// use, so the assembly holds their bits.
var bmConsts = func() (t bmTable) {
	f := math.Float64bits
	set := func(i int, v uint64) { t[i] = [4]uint64{v, v, v, v} }
	set(0, 1<<52-1)
	set(1, f(1))
	set(2, f(0x1p52))
	set(3, f(0x1p52+1023))
	set(4, f(math.Sqrt2))
	set(5, f(0.5))
	set(6, f(2))
	for k, c := range logC {
		set(7+k, f(c))
	}
	set(17, f(ln2Lo))
	set(18, f(ln2Hi))
	set(19, f(-2))
	set(20, 1<<61)
	set(21, f(0x1p84))
	set(22, f(0x1p84+0x1p53))
	set(23, f(angle))
	for k, c := range sinC {
		set(24+k, f(c))
	}
	for k, c := range cosC {
		set(32+k, f(c))
	}
	set(41, 1<<63)
	set(42, 1)
	set(43, f(0x1p84+0x1p52))
	set(44, f(0x1p-53))
	return
}()
