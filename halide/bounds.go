package halide

import (
	"fmt"
	"github.com/resident-go/resident/halide/internal/rt"
	"strings"
	"unsafe"

	"github.com/resident-go/resident/array"
)

// query is a call of p whose buffers are all bounds queries: halide_buffer_t's
// of its own in C memory with no host and no device (never an Array's), and
// scalars at their defaults until set.
type query struct {
	f    *frame
	bufs []*rt.Buf // one per p.bufs
}

func (p *Pipeline) newQuery() *query {
	f := p.newFrame()
	q := &query{f: f, bufs: make([]*rt.Buf, len(p.bufs))}
	for k, i := range p.bufs {
		a := &p.args[i]
		b := rt.NewBuf(a.Dims)
		if b == nil {
			q.free()
			panic("halide: out of C memory for a bounds query")
		}
		b.B.Type.Code = uint8(a.Type.Code)
		b.B.Type.Bits = uint8(a.Type.Bits)
		b.B.Type.Lanes = uint16(a.Type.Lanes)
		q.bufs[k] = b
		f.args[i] = unsafe.Pointer(&b.B)
	}
	for _, i := range p.params {
		if a := &p.args[i]; !a.isBuffer() && a.Default != nil {
			setScalar(unsafe.Pointer(&f.scalars[i]), a.Type, a.Default)
		}
	}
	return q
}

func (q *query) free() {
	for _, b := range q.bufs {
		if b != nil {
			rt.FreeBuf(b)
		}
	}
	rt.FreeFrame(q.f.c)
}

// Bounds asks the pipeline which region each buffer must cover to compute
// the given outputs: Halide's bounds query. Arguments are as for Call,
// except that an input buffer may be nil (only its region is asked for;
// an Array given there is not looked at beyond its type and rank), and an
// output may be a []array.Dim instead of a buffer: only its mins and
// extents are read. Scalars must be real values when regions depend on
// them.
//
// The result has one entry per argument, nil for scalars: for an input the
// region it must cover, with dense strides; for an output the region the
// pipeline computes, which its constraints may make larger than asked.
// Nothing is computed and no Array is touched: the query runs on
// halide_buffer_t's of its own. Allocate inputs of that shape with
// array.NewWithMins and array.Box, or let NewInputs do it:
//
//	b, _ := blur.BlurPipeline.Bounds(nil, out)      // out: min (5, 7), extent 29×13
//	in := array.NewWithMins[uint16](array.Box(b[0])) // min (4, 6), extent 31×15
func (p *Pipeline) Bounds(args ...any) ([][]array.Dim, error) {
	if len(args) != len(p.params) {
		return nil, &Error{Pipeline: p.name, Code: int(ErrArgCount), Msg: fmt.Sprintf("takes %d arguments, got %d: %s", len(p.params), len(args), p)}
	}
	if !p.boundsQueries() {
		return nil, &Error{Pipeline: p.name, Code: int(ErrBoundsQuery), Msg: "the pipeline was built with no_bounds_query (target " + p.target + "): rebuild it without that feature to ask it for bounds"}
	}
	q := p.newQuery()
	defer q.free()
	k := 0
	for j, i := range p.params {
		a := &p.args[i]
		v := args[j]
		if !a.isBuffer() {
			if !setScalar(unsafe.Pointer(&q.f.scalars[i]), a.Type, v) {
				return nil, p.argError(a, int(ErrBadType), describe(v))
			}
			continue
		}
		b := q.bufs[k]
		k++
		var dims []array.Dim
		switch x := v.(type) {
		case nil:
			if a.Kind == OutputBuffer {
				return nil, p.boundsError(a, "nil: an output gives the region to compute (a buffer, or its []array.Dim)")
			}
			continue
		case []array.Dim:
			dims = x
		case array.Buffer:
			r := rawOf(x)
			if r == nil {
				if a.Kind == OutputBuffer {
					return nil, p.argError(a, halideNullBuffer, describe(v))
				}
				continue
			}
			if r.Type() != a.Type {
				return nil, p.argError(a, int(ErrBadType), describeRaw(r))
			}
			dims = r.Dims()
		default:
			return nil, p.argError(a, int(ErrBadType), describe(v))
		}
		if len(dims) != a.Dims {
			return nil, p.argError(a, int(ErrBadDimensions), fmt.Sprintf("%d dimensions", len(dims)))
		}
		if a.Kind == InputBuffer {
			continue // asked for, whatever the caller passed
		}
		cd := unsafe.Slice(b.B.Dim, a.Dims)
		for d, x := range dims {
			if !fitsInt32(x.Min) || !fitsInt32(x.Extent) || !fitsInt32(x.Stride) || !fitsInt32(x.Min+x.Extent) {
				return nil, p.boundsError(a, fmt.Sprintf("dimension %d (min %d, extent %d) does not fit Halide's int32 fields", d, x.Min, x.Extent))
			}
			cd[d] = rt.Dim{Min: int32(x.Min), Extent: int32(x.Extent), Stride: int32(x.Stride)}
		}
	}
	if p.gpu {
		// The runtime builds the kernels on entry, even for a query: it
		// needs a context.
		_, err := p.deviceFor(q.f, nil)
		defer q.f.leaveGate()
		if err != nil {
			return nil, err
		}
	}
	// invoke: the query reaches Go extern stages as a call does (WithCallbacks).
	if rc := p.invoke(q.f); rc != 0 {
		msg, hmsg := runtimeMessage(&q.f.c.Ctx)
		return nil, &Error{Pipeline: p.name, Code: int(rc), Msg: "bounds query: " + msg, HalideMsg: hmsg}
	}
	out := make([][]array.Dim, len(p.params))
	k = 0
	for j, i := range p.params {
		a := &p.args[i]
		if !a.isBuffer() {
			continue
		}
		cd := unsafe.Slice(q.bufs[k].B.Dim, a.Dims)
		k++
		dims := make([]array.Dim, a.Dims)
		for d := range dims {
			dims[d] = goDim(cd[d])
		}
		out[j] = dims
	}
	return out, nil
}

// boundsQueries reports whether the pipeline answers bounds queries
// (it was not built with the no_bounds_query target feature).
func (p *Pipeline) boundsQueries() bool {
	for _, f := range strings.Split(p.target, "-") {
		if f == "no_bounds_query" {
			return false
		}
	}
	return true
}

func (p *Pipeline) boundsError(a *Arg, msg string) error {
	return &Error{Pipeline: p.name, Code: int(ErrBoundsQuery), Msg: fmt.Sprintf("bounds query: argument %q: %s", a.Name, msg)}
}

// NewInputs runs Bounds and puts, in place of every nil input, a new
// device-aware Array of the input's element type that covers exactly the
// region the pipeline reads (array.NewWithMins, dense, zeroed). It returns
// the arguments ready for Call once the caller has filled the new inputs
// (through their Host views):
//
//	args, _ := blur.BlurPipeline.NewInputs(nil, out)
//	in := args[0].(*array.Array[uint16])
func (p *Pipeline) NewInputs(args ...any) ([]any, error) {
	b, err := p.Bounds(args...)
	if err != nil {
		return nil, err
	}
	out := append([]any(nil), args...)
	for j, i := range p.params {
		a := &p.args[i]
		if a.Kind != InputBuffer || args[j] != nil {
			continue
		}
		mins, ext := array.Box(b[j])
		buf, err := array.NewOf(a.Type, mins, ext)
		if err != nil {
			return nil, &Error{Pipeline: p.name, Code: int(ErrBoundsQuery), Msg: fmt.Sprintf("argument %q: %v", a.Name, err)}
		}
		out[j] = buf
	}
	return out, nil
}
