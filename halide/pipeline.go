package halide

// #include "shim.h"
import "C"

import (
	"fmt"
	"sort"
	"strings"
	"sync"
	"unsafe"

	"github.com/resident-go/resident/array"
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
	Name string
	Kind ArgKind
	Type array.Type // element type for buffers
	Dims int        // 0 for scalars
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
	opencl  bool
	argv    unsafe.Pointer
	args    []Arg // every argument of NAME_argv, __user_context included
	params  []int // indices in args of what Call takes
	bufs    []int // indices in args of the buffers, in order
	userCtx bool

	frames sync.Pool // *frame: call frames in C memory, reused
}

// Name is the pipeline's function name.
func (p *Pipeline) Name() string { return p.name }

// Target is the Halide target the pipeline was compiled for.
func (p *Pipeline) Target() string { return p.target }

// OpenCL reports whether the pipeline runs on OpenCL.
func (p *Pipeline) OpenCL() bool { return p.opencl }

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
		fmt.Fprintf(&b, "%s %s", a.Name, strings.TrimPrefix(a.want(), "a "))
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
	for i := 0; i < int(C.gohl_registry_len()); i++ {
		md := C.gohl_registry_md(C.int(i))
		p := &Pipeline{
			name:   C.GoString(md.name),
			target: C.GoString(md.target),
			argv:   C.gohl_registry_argv(C.int(i)),
		}
		p.opencl = strings.Contains(p.target, "opencl")
		cargs := unsafe.Slice(md.arguments, int(md.num_arguments))
		for j := range cargs {
			ca := &cargs[j]
			a := Arg{
				Name: C.GoString(ca.name),
				Kind: ArgKind(ca.kind),
				Dims: int(ca.dimensions),
				Type: array.Type{Code: array.Code(ca._type.code), Bits: uint8(ca._type.bits), Lanes: uint16(ca._type.lanes)},
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
