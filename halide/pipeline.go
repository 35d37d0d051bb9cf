package halide

import (
	"fmt"
	"github.com/resident-go/resident/halide/internal/rt"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"unsafe"

	"github.com/resident-go/resident/array"
	"github.com/resident-go/resident/halide/internal/goname"
)

// ArgKind is what a pipeline argument is, as halide_argument_kind_t.
type ArgKind int

// Argument kinds.
const (
	InputScalar  ArgKind = 0
	InputBuffer  ArgKind = 1
	OutputBuffer ArgKind = 2
)

func (k ArgKind) String() string {
	switch k {
	case InputScalar:
		return "scalar"
	case InputBuffer:
		return "input buffer"
	case OutputBuffer:
		return "output buffer"
	}
	return fmt.Sprintf("kind%d", int(k))
}

// Arg describes one pipeline argument, from the pipeline's metadata.
type Arg struct {
	Name   string
	GoName string // Name in Go style: "bias_level" → "biasLevel" (see GoName)
	Kind   ArgKind
	Type   array.Type // element type for buffers
	Dims   int        // 0 for scalars

	// Default, Min, Max and Estimate are a scalar's declared default,
	// range and autoscheduler estimate, as values of the Go type Call
	// takes for it (float32, int16, bool, …); nil where the generator
	// declared none, and always nil for buffers. Calls outside [Min, Max]
	// fail with ErrParamTooSmall or ErrParamTooLarge.
	Default, Min, Max, Estimate any

	// Estimates are a buffer's per-dimension (min, extent) estimates
	// (set_estimates in the generator); nil where it declared none.
	Estimates []DimEstimate
}

// DimEstimate is one dimension's estimate of a buffer argument; a
// generator may estimate the min, the extent, both or neither.
type DimEstimate struct {
	Min, Extent       int
	HasMin, HasExtent bool
}

func (e DimEstimate) String() string {
	f := func(ok bool, v int) string {
		if !ok {
			return "?"
		}
		return fmt.Sprint(v)
	}
	return "[" + f(e.HasMin, e.Min) + ", " + f(e.HasExtent, e.Extent) + "]"
}

// scalarValue reads a halide_scalar_value_t of type t as the Go value
// Call takes for that type; nil when v is nil or t has no Go scalar.
func scalarValue(v *rt.Scalar, t array.Type) any {
	k, ok := scalarKindOf(t)
	if v == nil || !ok {
		return nil
	}
	return k.get(unsafe.Pointer(v))
}

// bufferEstimates reads buffer_estimates: dims pairs of (min, extent)
// pointers, any of them NULL.
func bufferEstimates(e **int64, dims int) []DimEstimate {
	if e == nil {
		return nil
	}
	ps := unsafe.Slice(e, 2*dims)
	out := make([]DimEstimate, dims)
	any := false
	for i := range out {
		if ps[2*i] != nil {
			out[i].Min, out[i].HasMin = int(*ps[2*i]), true
		}
		if ps[2*i+1] != nil {
			out[i].Extent, out[i].HasExtent = int(*ps[2*i+1]), true
		}
		any = any || out[i].HasMin || out[i].HasExtent
	}
	if !any {
		return nil
	}
	return out
}

// describe is the argument as Pipeline.String lists it: name, type, and a
// scalar's default, range and estimate where declared.
func (a *Arg) describe() string {
	s := a.Name + " " + strings.TrimPrefix(a.want(), "a ")
	var meta []string
	for _, m := range []struct {
		k string
		v any
	}{{"default", a.Default}, {"min", a.Min}, {"max", a.Max}, {"estimate", a.Estimate}} {
		if m.v != nil {
			meta = append(meta, fmt.Sprintf("%s %v", m.k, m.v))
		}
	}
	if a.Estimates != nil {
		e := make([]string, len(a.Estimates))
		for i, d := range a.Estimates {
			e[i] = d.String()
		}
		meta = append(meta, "estimates "+strings.Join(e, " "))
	}
	if len(meta) > 0 {
		s += " [" + strings.Join(meta, ", ") + "]"
	}
	return s
}

func (a *Arg) isBuffer() bool { return a.Kind != InputScalar }

// want is the argument as an error message states it.
func (a *Arg) want() string {
	if a.isBuffer() {
		return fmt.Sprintf("a %d-D %s buffer", a.Dims, a.Type)
	}
	return fmt.Sprintf("a %s scalar", a.Type)
}

// Pipeline is a registered Halide pipeline. It is safe for concurrent use;
// each call needs its own Arrays.
type Pipeline struct {
	name    string
	target  string
	glue    *glue // the runtime adapter of its device API (glue.go); nil: host
	gpu     bool  // glue != nil: its calls follow the device residency rules
	argv    unsafe.Pointer
	args    []Arg // every argument of NAME_argv, __user_context included
	params  []int // indices in args of what Call takes
	bufs    []int // indices in args of the buffers, in order
	userCtx bool
	placeOp string // "pipeline NAME", as place.Where names the call

	texture atomic.Int32           // textureUnknown, textureNone or textureUsed (device.go)
	texArgs atomic.Pointer[string] // the arguments stored as textures

	callsBack atomic.Bool            // calls may call back into Go (hooks.go)
	ran       atomic.Pointer[string] // the target a multi-target pipeline chose (setters.go)

	frames sync.Pool // *frame: call frames in C memory, reused
}

// Name is the pipeline's function name.
func (p *Pipeline) Name() string { return p.name }

// Target is the Halide target the pipeline runs: the one it was compiled
// for, or, for a multi-target pipeline (halide-gen -target a,b), the
// target its first call chose, the first listed whose features the CPU
// has (Options.RefuseTargetFeatures aside), in Halide's spelling (features
// sorted). Before that call a multi-target pipeline reports its
// wrapper's target: the fallback's, with no_bounds_query.
func (p *Pipeline) Target() string {
	if t := p.ran.Load(); t != nil {
		return *t
	}
	return p.target
}

// API is the device API the pipeline runs on, as device.Native names it
// ("OpenCL", "CUDA"), or "" for a host pipeline.
func (p *Pipeline) API() string {
	if p.glue == nil {
		return ""
	}
	return p.glue.api
}

// Args describes the arguments Call takes, in order.
func (p *Pipeline) Args() []Arg {
	out := make([]Arg, len(p.params))
	for i, j := range p.params {
		out[i] = p.args[j]
	}
	return out
}

func (p *Pipeline) String() string {
	var b strings.Builder
	b.WriteString(p.name + "(")
	for i, a := range p.Args() {
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString(a.describe())
	}
	b.WriteString(") " + p.target)
	return b.String()
}

var registry struct {
	once   sync.Once
	byName map[string]*Pipeline
}

// load reads the C registry. Registration runs in static initializers
// before any Go code, so reading once, lazily, sees every pipeline linked
// into the binary.
func load() {
	registry.byName = map[string]*Pipeline{}
	for i := range rt.Registered() {
		md, argv := rt.Registration(i)
		p := &Pipeline{
			name:   rt.GoString(md.Name),
			target: rt.GoString(md.Target),
			argv:   argv,
		}
		p.glue = glueFor(p.target)
		p.gpu = p.glue != nil
		p.placeOp = "pipeline " + p.name
		cargs := unsafe.Slice(md.Arguments, int(md.NumArguments))
		for j := range cargs {
			ca := &cargs[j]
			a := Arg{
				Name: rt.GoString(ca.Name),
				Kind: ArgKind(ca.Kind),
				Dims: int(ca.Dimensions),
				Type: goType(ca.Type),
			}
			a.GoName = goname.Of(a.Name)
			if a.Kind == InputScalar {
				a.Default = scalarValue(ca.ScalarDef, a.Type)
				a.Min = scalarValue(ca.ScalarMin, a.Type)
				a.Max = scalarValue(ca.ScalarMax, a.Type)
				a.Estimate = scalarValue(ca.ScalarEstimate, a.Type)
			} else if md.Version >= 1 {
				a.Estimates = bufferEstimates(ca.BufferEstimates, a.Dims)
			}
			p.args = append(p.args, a)
			if j == 0 && a.Name == "__user_context" && a.Type.Code == array.Handle {
				p.userCtx = true
				continue
			}
			p.params = append(p.params, j)
			if a.isBuffer() {
				p.bufs = append(p.bufs, j)
			}
		}
		registry.byName[p.name] = p
	}
}

// Lookup returns the registered pipeline called name. A pipeline is
// registered when its package (NAME.a + NAME.registration.cpp) is linked.
func Lookup(name string) (*Pipeline, error) {
	registry.once.Do(load)
	if p, ok := registry.byName[name]; ok {
		return p, nil
	}
	return nil, fmt.Errorf("halide: no pipeline %q is registered (registered: %s): import the Go package that links it",
		name, strings.Join(Pipelines(), ", "))
}

// MustLookup is Lookup for package-level variables of generated wrappers;
// it panics when the pipeline is not linked, which is a build error.
func MustLookup(name string) *Pipeline {
	p, err := Lookup(name)
	if err != nil {
		panic(err)
	}
	return p
}

// Pipelines lists the names of all registered pipelines, sorted.
func Pipelines() []string {
	registry.once.Do(load)
	names := make([]string, 0, len(registry.byName))
	for n := range registry.byName {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}

// hasFeature reports whether target t names feature f.
func hasFeature(t, f string) bool {
	for _, x := range strings.Split(t, "-") {
		if x == f {
			return true
		}
	}
	return false
}
