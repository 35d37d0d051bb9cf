package halide_test

import (
	"errors"
	"github.com/resident-go/resident/internal/guard"
	"strings"
	"testing"

	"github.com/resident-go/resident/array"
	"github.com/resident-go/resident/device"
	"github.com/resident-go/resident/device/opencl"
	"github.com/resident-go/resident/halide"
	"github.com/resident-go/resident/halide/examples/blur"
	"github.com/resident-go/resident/halide/examples/brighter"
	"github.com/resident-go/resident/halide/examples/params"
)

// Nil buffers of every kind are Halide's buffer_argument_is_null (-12),
// as *Error values: untyped nil, a typed nil *Array, a zero host view
// (which used to panic with a nil dereference), a nil *array.Raw.
func TestNilBuffers(t *testing.T) {
	out := func() *array.Array[uint8] { return array.FromSlice(make([]uint8, 16), 4, 4) }
	var nilArray *array.Array[uint8]
	var nilRaw *array.Raw
	for _, p := range []*halide.Pipeline{brighter.BrighterHostPipeline, brighter.BrighterPipeline} {
		for _, tc := range []struct {
			name string
			arg  any
			msg  string
		}{
			{"untyped nil", nil, "got nil"},
			{"typed nil *Array", nilArray, "got a nil *array.Array[uint8]"},
			{"zero HostView", array.HostView[uint8]{}, "got a zero array.HostView[uint8]"},
			{"zero ReadView", array.ReadView[uint8]{}, "got a zero array.ReadView[uint8]"},
			{"nil *Raw", nilRaw, "got a nil *array.Raw"},
		} {
			for _, pos := range []string{"input", "output"} {
				t.Run(p.Name()+"/"+tc.name+"/"+pos, func(t *testing.T) {
					if p.API() == "OpenCL" {
						clDevice(t)
					}
					args := []any{tc.arg, uint8(1), out()}
					if pos == "output" {
						args = []any{out(), uint8(1), tc.arg}
					}
					var err error
					func() {
						defer func() {
							if r := recover(); r != nil {
								t.Fatalf("Call panicked: %v", r)
							}
						}()
						err = p.Call(args...)
					}()
					var he *halide.Error
					if !errors.As(err, &he) || he.Code != -12 || !errors.Is(err, halide.ErrBufferArgumentIsNull) {
						t.Fatalf("got %v (%T), want a *halide.Error with code -12", err, err)
					}
					name := "input"
					if pos == "output" {
						name = "brighter"
					}
					if !strings.Contains(he.Msg, `argument "`+name+`"`) || !strings.Contains(he.Msg, tc.msg) {
						t.Errorf("message %q, want the argument and %q", he.Msg, tc.msg)
					}
				})
			}
		}
	}
}

// hostWithMins is a host-only w×h image whose x starts at x0: failed calls
// leave no device allocation behind.
func hostWithMins(x0, w, h int) *array.Array[uint8] {
	a, err := array.Wrap(make([]uint8, w*h), []array.Dim{{Min: x0, Extent: w, Stride: 1}, {Extent: h, Stride: w}})
	if err != nil {
		panic(err)
	}
	return a
}

// Every code is a value errors.Is matches; the runtime's text is kept.
func TestErrorCodes(t *testing.T) {
	img := func(w, h int) *array.Array[uint8] { return array.FromSlice(make([]uint8, w*h), w, h) }
	for _, p := range []*halide.Pipeline{params.ParamsPipeline, params.ParamsOpenclPipeline} {
		t.Run(p.Name(), func(t *testing.T) {
			if p.API() == "OpenCL" {
				clDevice(t)
			}
			for _, tc := range []struct {
				name string
				args []any
				code halide.Code
				msg  string
			}{
				{"param too small", []any{img(8, 4), float32(-1), int16(0), false, img(8, 4)}, halide.ErrParamTooSmall,
					"Parameter gain is -1.000000e+00 but must be at least 0.000000e+00"},
				{"param too large", []any{img(8, 4), float32(1), int16(300), false, img(8, 4)}, halide.ErrParamTooLarge,
					"Parameter bias_level is 300 but must be at most 255"},
				{"constraint", []any{hostWithMins(1, 8, 4), float32(1), int16(0), false, hostWithMins(1, 6, 4)}, halide.ErrConstraintViolated,
					"Constraint violated: input.min.0 (1) == 0 (0)"},
				{"bad type", []any{array.New[int8](8, 4), float32(1), int16(0), false, img(8, 4)}, halide.ErrBadType,
					`argument "input" wants a 2-D uint8 buffer, got a 2-D int8 Array`},
				{"bad scalar", []any{img(8, 4), 1.0, int16(0), false, img(8, 4)}, halide.ErrBadType,
					`argument "gain" wants a float32 scalar, got a Go float64`},
				{"dimensions", []any{array.New[uint8](8), float32(1), int16(0), false, img(8, 4)}, halide.ErrBadDimensions, "got a 1-D uint8 Array"},
				{"out of bounds", []any{img(8, 4), float32(1), int16(0), false, img(9, 4)}, halide.ErrAccessOutOfBounds,
					"Input buffer input is accessed at 8, which is beyond the max (7) in dimension 0"},
				{"arg count", []any{img(8, 4)}, halide.ErrArgCount, "takes 5 arguments, got 1"},
			} {
				t.Run(tc.name, func(t *testing.T) {
					err := p.Call(tc.args...)
					if !errors.Is(err, tc.code) {
						t.Fatalf("got %v, want %v", err, tc.code)
					}
					var he *halide.Error
					errors.As(err, &he)
					if he.Code != int(tc.code) || !strings.Contains(he.Msg, tc.msg) {
						t.Errorf("got {%d %q}, want {%d …%q…}", he.Code, he.Msg, tc.code, tc.msg)
					}
					for _, other := range []halide.Code{halide.ErrGeneric, halide.ErrNoDevice, halide.ErrTexture} {
						if errors.Is(err, other) {
							t.Errorf("%v also matches %v", err, other)
						}
					}
				})
			}
		})
	}
	if got := halide.ErrParamTooSmall.Error(); got != "halide: param_too_small (-9)" {
		t.Errorf("Code.Error() = %q", got)
	}
	if got := (&halide.Error{Pipeline: "p", Code: int(halide.ErrTexture), Msg: "m"}).Error(); got != "p: m (halide bridge error -1008, gpu_texture_unsupported)" {
		t.Errorf("bridge Error() = %q", got)
	}
}

// The bridge's own refusals carry their own codes, not -1.
func TestRefusalCodes(t *testing.T) {
	clDevice(t)
	const w, h = 16, 16
	t.Run("transfer guard", func(t *testing.T) {
		a := array.New[uint8](w, h)
		defer a.Close()
		was := guard.Set(true)
		defer guard.Set(was)
		err := brighter.Brighter(a, 1, array.New[uint8](w, h))
		if !errors.Is(err, halide.ErrTransferGuard) || !errors.Is(err, device.ErrTransferGuard) {
			t.Errorf("got %v, want ErrTransferGuard (and device.ErrTransferGuard)", err)
		}
	})
	t.Run("closed device", func(t *testing.T) {
		d, err := opencl.Open(opencl.Options{})
		if err != nil {
			t.Fatal(err)
		}
		d.Close()
		err = brighter.BrighterPipeline.CallWith(halide.Options{Device: d}, array.FromSlice(make([]uint8, w*h), w, h), uint8(1), array.FromSlice(make([]uint8, w*h), w, h))
		if !errors.Is(err, halide.ErrDeviceClosed) || !errors.Is(err, opencl.ErrClosed) {
			t.Errorf("got %v, want ErrDeviceClosed", err)
		}
	})
}

// The Go checks that stand in for Halide's own argument checks (bad type
// -3, bad dimensions -43, NULL buffer -12) carry Halide 14's sentence for
// the same mismatch, word for word: the runtime's message when the Go
// check is bypassed and the pipeline itself finds it.
func TestGoChecksCarryHalidesSentence(t *testing.T) {
	p := brighter.BrighterHostPipeline
	in, out := array.New[uint8](8, 8), array.New[uint8](8, 8)
	defer in.Close()
	defer out.Close()
	u16, f32 := array.TypeOf[uint16](), array.TypeOf[float32]()
	for _, tc := range []struct {
		name string
		args []any // refused in Go
		j    int   // the argument the runtime gets wrong
		typ  *array.Type
		dims int
		null bool
		code halide.Code
	}{
		{"input type", []any{array.New[uint16](8, 8), uint8(1), out}, 0, &u16, 0, false, halide.ErrBadType},
		{"output type", []any{in, uint8(1), array.New[float32](8, 8)}, 2, &f32, 0, false, halide.ErrBadType},
		{"input rank", []any{array.New[uint8](64), uint8(1), out}, 0, nil, 1, false, halide.ErrBadDimensions},
		{"output rank", []any{in, uint8(1), array.New[uint8](64)}, 2, nil, 1, false, halide.ErrBadDimensions},
		{"input nil", []any{nil, uint8(1), out}, 0, nil, 0, true, halide.ErrBufferArgumentIsNull},
		{"output nil", []any{in, uint8(1), nil}, 2, nil, 0, true, halide.ErrBufferArgumentIsNull},
	} {
		t.Run(tc.name, func(t *testing.T) {
			goErr := p.Call(tc.args...)
			rc, msg, err := halide.CallMismatched(p, tc.j, tc.typ, tc.dims, tc.null, in, uint8(1), out)
			if err != nil {
				t.Fatal(err)
			}
			if rc != int(tc.code) {
				t.Fatalf("the pipeline returned %d (%s), want %d", rc, msg, tc.code)
			}
			var he *halide.Error
			if !errors.As(goErr, &he) || he.Code != rc {
				t.Fatalf("Go check: %v, want a *halide.Error with code %d", goErr, rc)
			}
			if !strings.Contains(goErr.Error(), msg) {
				t.Errorf("Go check: %v\nlacks Halide's sentence: %s", goErr, msg)
			}
			if he.HalideMsg != msg {
				t.Errorf("Go check: HalideMsg %q, want Halide's sentence alone: %q", he.HalideMsg, msg)
			}
			t.Logf("%v", goErr)
		})
	}
}

// Error.HalideMsg is exactly the message Halide's error handler got (C's
// handler, set with halide_set_error_handler, hears it too), for calls
// that fail in the runtime, host and OpenCL; Msg holds it with the
// bridge's words around it (here the OpenCL build options).
func TestHalideMsg(t *testing.T) {
	img := func(w, h int) *array.Array[uint8] { return array.FromSlice(make([]uint8, w*h), w, h) }
	for _, p := range []*halide.Pipeline{params.ParamsPipeline, params.ParamsOpenclPipeline} {
		for _, tc := range []struct {
			name string
			args []any
		}{
			{"param too small", []any{img(8, 4), float32(-1), int16(0), false, img(8, 4)}},
			{"constraint", []any{hostWithMins(1, 8, 4), float32(1), int16(0), false, hostWithMins(1, 6, 4)}},
			{"out of bounds", []any{img(8, 4), float32(1), int16(0), false, img(9, 4)}},
		} {
			t.Run(p.Name()+"/"+tc.name, func(t *testing.T) {
				call := p.Call
				if p.API() == "OpenCL" {
					d := freshCL(t)
					call = func(args ...any) error {
						return p.CallWith(halide.Options{Device: d, OpenCLBuildOptions: "-cl-mad-enable"}, args...)
					}
				}
				n0, _, _ := blur.CErrors()
				blur.CSetErrorHandler(true)
				err := call(tc.args...)
				blur.CSetErrorHandler(false)
				n1, last, _ := blur.CErrors()
				var he *halide.Error
				if !errors.As(err, &he) || n1 != n0+1 {
					t.Fatalf("got %v, and C's handler heard %d messages; want a *halide.Error and 1", err, n1-n0)
				}
				if he.HalideMsg != last {
					t.Errorf("HalideMsg %q, want what the handler got: %q", he.HalideMsg, last)
				}
				if !strings.Contains(he.Msg, last) {
					t.Errorf("Msg %q lacks the handler's %q", he.Msg, last)
				}
				if p.API() == "OpenCL" && !strings.Contains(he.Msg, "-cl-mad-enable") {
					t.Errorf("Msg %q lacks the build options", he.Msg)
				}
			})
		}
	}
}
