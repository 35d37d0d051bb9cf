package halide_test

import (
	"errors"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"slices"
	"strings"
	"testing"

	"github.com/resident-go/resident/array"
	"github.com/resident-go/resident/device"
	"github.com/resident-go/resident/device/opencl"
	"github.com/resident-go/resident/halide"
	"github.com/resident-go/resident/halide/examples/blur"
	"github.com/resident-go/resident/halide/examples/brighter"
	"github.com/resident-go/resident/halide/examples/callbacks"
	"github.com/resident-go/resident/internal/cl"
)

// freshCL opens a device of its own (its own context): the runtime builds
// kernels once per context, so build options need one no pipeline ran on.
func freshCL(t *testing.T) *opencl.Device {
	t.Helper()
	clDevice(t)
	d, err := opencl.Open(opencl.Options{NoCache: true})
	if err != nil {
		t.Skip("no OpenCL device:", err)
	}
	t.Cleanup(func() { d.Close() })
	return d
}

// Build options reach the OpenCL compiler of one device only, in Halide's
// define_extern_opencl style: a bad option fails that device's build (the
// call returns the runtime's code and names the option), leaving the Arrays
// as they were and nothing allocated by the call; a good option builds and
// computes the right values; a device without options is untouched;
// other options given after a device ran a pipeline are refused, before
// anything moves; the same options again are not.
func TestOpenCLBuildOptions(t *testing.T) {
	const w, h = 16, 8
	src := pattern(w, h)
	var open []*array.Array[uint8]
	closeAll := func(t *testing.T) {
		for _, a := range open {
			a.Close()
		}
		open = nil
	}
	t.Cleanup(func() { closeAll(t) })
	run := func(d *opencl.Device, opts ...string) (*array.Array[uint8], error) {
		in := array.New[uint8](w, h)
		v, _ := in.Host()
		copy(v.Data(), src)
		out := array.New[uint8](w, h)
		open = append(open, in, out)
		return out, brighter.BrighterPipeline.CallWith(halide.Options{Device: d, OpenCLBuildOptions: strings.Join(opts, " ")}, in, uint8(3), out)
	}

	bad := freshCL(t)
	const opt = "-cl-no-such-option-resident"
	out, err := run(bad, opt)
	var he *halide.Error
	if !errors.As(err, &he) || he.Code >= 0 || !strings.Contains(err.Error(), opt) || !strings.Contains(err.Error(), "clBuildProgram") {
		t.Fatalf("a bad build option: %v; want the runtime's error naming %s", err, opt)
	}
	t.Log(err)
	if out.DeviceDirty() {
		t.Error("the failed call left its output device-dirty")
	}
	out.Close()
	closeAll(t)
	if s := bad.Stats(); s.AllocsLive != 0 || s.Launches != 0 {
		t.Errorf("after the failed build and Close: %d allocations live, %d launches", s.AllocsLive, s.Launches)
	}
	before := bad.Stats()
	if _, err := run(bad, "-w"); !errors.Is(err, halide.ErrBuildOptionsLate) {
		t.Errorf("other options after a call: %v, want ErrBuildOptionsLate", err)
	}
	if s := bad.Stats().Sub(before); s.H2DCalls+s.Launches != 0 {
		t.Errorf("a call refused for late options moved or ran: %+v", s)
	}
	if _, err := run(bad, opt); errors.Is(err, halide.ErrBuildOptionsLate) || !strings.Contains(fmt.Sprint(err), opt) {
		t.Errorf("the same options again: %v, want the build's error, not ErrBuildOptionsLate", err)
	}

	good := freshCL(t)
	if out, err = run(good, "-cl-fast-relaxed-math -DRESIDENT_TEST=1"); err != nil {
		t.Fatal(err)
	}
	checkBrightened(t, "with good options", out, src, 3)
	if s := good.Stats(); s.Launches == 0 {
		t.Errorf("good options: no launch on the device (%+v)", s)
	}
	if out, err = run(clDevice(t)); err != nil { // the default device has no options
		t.Fatal(err)
	}
	checkBrightened(t, "without options", out, src, 3)
	// A device opened after bad closed (it may reuse bad's runtime state)
	// builds without bad's options.
	bad.Close()
	if out, err = run(freshCL(t)); err != nil {
		t.Fatalf("a device opened after the one with bad options closed: %v", err)
	}
	checkBrightened(t, "after the bad device closed", out, src, 3)

	// C's halide_opencl_set_build_options reaches every device's builds.
	cbad := freshCL(t)
	const copt = "-cl-no-such-c-option-resident"
	blur.CSetOpenCLBuildOptions(copt)
	out, err = run(cbad)
	blur.CSetOpenCLBuildOptions("")
	if err == nil || !strings.Contains(err.Error(), copt) || !strings.Contains(err.Error(), "clBuildProgram") {
		t.Errorf("C's bad build option: %v; want the build error naming %s", err, copt)
	}
	if _, err := run(freshCL(t), strings.Repeat("x", 512)); err == nil || !strings.Contains(err.Error(), "at most 511") {
		t.Errorf("512 bytes of options: %v, want refused", err)
	}
}

// blurCall runs the host blur on a w×h input with an output of ow×oh at
// (1, 1): within the input when ow ≤ w−2, else the pipeline's own bounds
// check fails the call (-4).
func blurCall(w, h, ow, oh int) (*array.Array[uint16], error) {
	in := array.New[uint16](w, h)
	defer in.Close()
	v, _ := in.Host()
	for y := range h {
		for x := range w {
			v.Set(blurInput(x, y), x, y)
		}
	}
	out := array.NewWithMins[uint16]([]int{1, 1}, []int{ow, oh})
	return out, blur.BlurPipeline.Call(in, out)
}

// halide_set_error_handler, in the style of Halide's error_codes aottest:
// a handler C set hears the runtime's message with Halide's user_context
// (the library's, non-NULL), and the call still returns the code and the
// same text; once C restores the old handler it hears nothing more.
func TestCErrorHandler(t *testing.T) {
	n0, _, _ := blur.CErrors()
	blur.CSetErrorHandler(true)
	out, err := blurCall(8, 8, 9, 6)
	blur.CSetErrorHandler(false)
	out.Close()
	n1, last, uc := blur.CErrors()
	if !errors.Is(err, halide.ErrAccessOutOfBounds) {
		t.Fatalf("an output past the input: %v, want ErrAccessOutOfBounds", err)
	}
	if n1 != n0+1 || uc == 0 || !strings.Contains(err.Error(), strings.TrimSpace(strings.TrimPrefix(last, "Error: "))) {
		t.Errorf("C's handler: %d messages (want 1), user_context %#x, last %q; the call's error %v", n1-n0, uc, last, err)
	}
	out, err = blurCall(8, 8, 9, 6)
	out.Close()
	if n2, _, _ := blur.CErrors(); n2 != n1 || err == nil {
		t.Errorf("the restored handler: C's still heard %d messages; error %v", n2-n1, err)
	}
}

// halide_set_custom_malloc and _free: the pipeline's heap allocations go
// through C's hooks, each freed.
func TestCMalloc(t *testing.T) {
	m0, f0 := blur.CMallocs()
	blur.CSetMalloc(true)
	out, err := blurCall(300, 20, 298, 18)
	blur.CSetMalloc(false)
	if err != nil {
		t.Fatal(err)
	}
	v, _ := out.HostReadOnly()
	checkBlur(t, func(x, y int) uint16 { return v.At(x, y) }, 1, 1, 298, 18)
	out.Close()
	m1, f1 := blur.CMallocs()
	if m1 == m0 || m1-m0 != f1-f0 {
		t.Errorf("C's malloc hooks saw %d mallocs and %d frees; want some, as many frees", m1-m0, f1-f0)
	}
}

// halide_set_custom_print and _trace: a call without Go hooks prints and
// traces through what C set; a call's Go hooks (Options.Hooks) win.
func TestCPrintTrace(t *testing.T) {
	run := func() {
		in, out := make([]int32, 8), make([]int32, 8)
		if err := callbacks.Printer(array.FromSlice(in, 8), array.FromSlice(out, 8)); err != nil {
			t.Fatal(err)
		}
	}
	p0, t0 := blur.CPrints(), blur.CTraces()
	blur.CSetPrint(true)
	defer blur.CSetPrint(false)
	blur.CSetTrace(true)
	defer blur.CSetTrace(false)
	run()
	p1, t1 := blur.CPrints(), blur.CTraces()
	if p1 != p0+1 || t1-t0 < 8 {
		t.Errorf("C's print got %d messages (want 1: print_when at x = 3), its trace %d events (want 8 stores and more)", p1-p0, t1-t0)
	}
	var prints, traces int
	hooks := &halide.Hooks{
		Print: func(any, []byte) { prints++ },
		Trace: func(*halide.TraceEvent) { traces++ },
	}
	in, out := make([]int32, 8), make([]int32, 8)
	if err := callbacks.PrinterPipeline.CallWith(halide.Options{Hooks: hooks}, array.FromSlice(in, 8), array.FromSlice(out, 8)); err != nil {
		t.Fatal(err)
	}
	if prints != 1 || traces < 8 || blur.CPrints() != p1 || blur.CTraces() != t1 {
		t.Errorf("with Options.Hooks: Go got %d prints and %d events, C %d and %d more", prints, traces, blur.CPrints()-p1, blur.CTraces()-t1)
	}
}

type writerFunc func([]byte) (int, error)

func (f writerFunc) Write(p []byte) (int, error) { return f(p) }

// A multi-target pipeline (halide-gen -target avx512_skylake-target,portable)
// reports the target that ran, in the style of Halide's multitarget
// aottest: the first listed when the CPU has its features, the fallback
// when the first call refuses a feature of the first
// (Options.RefuseTargetFeatures) or C's
// can_use_target_features refuses everything. The wrapper chooses once per
// process, so each case runs in a child process of its own.
var mtChildFlag = flag.String("mt.child", "", "TestMultitargetTarget's child process: the case it plays")

func TestMultitargetTarget(t *testing.T) {
	if mode := *mtChildFlag; mode != "" {
		mtChild(mode)
		return
	}
	listed := []string{
		"x86-64-linux-sse41-avx-avx2-fma-f16c-avx512-avx512_skylake-user_context-no_runtime-c_plus_plus_name_mangling",
		"x86-64-linux-sse41-avx-avx2-fma-f16c-user_context-no_runtime-c_plus_plus_name_mangling",
	}
	first := listed[0]
	host := strings.Split(halide.HostTarget()+"-user_context-no_runtime-c_plus_plus_name_mangling", "-")
	for _, f := range strings.Split(first, "-")[3:] {
		if !slices.Contains(host, f) {
			first = listed[1] // this CPU lacks a feature of the first
		}
	}
	for _, c := range []struct{ mode, want string }{
		{"plain", first},
		{"go-refuse", listed[1]},
		{"c-refuse", listed[1]},
	} {
		cmd := exec.Command(os.Args[0], "-test.run=^TestMultitargetTarget$", "-test.count=1", "-mt.child="+c.mode)
		outb, err := cmd.CombinedOutput()
		out := string(outb)
		if err != nil {
			t.Fatalf("%s: child failed: %v\n%s", c.mode, err, out)
		}
		want := "target " + sortedTarget(c.want) + "\n"
		if !strings.Contains(out, want) || !strings.Contains(out, "before "+callbacks.MtblurPipeline.Target()+"\n") {
			t.Errorf("%s: child said\n%s\nwant %q", c.mode, out, want)
		}
	}
}

// sortedTarget is a target string as Halide prints it: features sorted.
func sortedTarget(s string) string {
	f := strings.Split(s, "-")
	feats := slices.Clone(f[3:])
	slices.Sort(feats)
	return strings.Join(append(f[:3], feats...), "-")
}

func mtChild(mode string) {
	fmt.Printf("before %s\n", callbacks.MtblurPipeline.Target())
	var first halide.Options
	switch mode {
	case "go-refuse":
		first.RefuseTargetFeatures = []string{"avx512_skylake"}
	case "c-refuse":
		blur.CSetCanUse(true, true)
	}
	const n = 100
	src, dst := make([]uint16, n), make([]uint16, n)
	for i := range src {
		src[i] = uint16(i * 7919)
	}
	// The second call does not ask again: the first's refusals stand.
	for _, o := range []halide.Options{first, {}} {
		if err := callbacks.MtblurPipeline.CallWith(o, array.FromSlice(src, n), array.FromSlice(dst, n)); err != nil {
			panic(err)
		}
	}
	at := func(i int) uint32 { return uint32(src[max(0, min(n-1, i))]) }
	for i := range dst {
		if want := uint16((at(i-1) + at(i) + at(i+1)) / 3); dst[i] != want {
			panic(fmt.Sprintf("output[%d] = %d, want %d", i, dst[i], want))
		}
	}
	if mode == "c-refuse" && blur.CCanUses() != 1 {
		panic(fmt.Sprintf("C's can_use_target_features asked %d times, want 1", blur.CCanUses()))
	}
	fmt.Printf("target %s\n", callbacks.MtblurPipeline.Target())
}

// The features a multi-target wrapper hands halide_can_use_target_features
// for its first target (read from mtblur.a's constant: 0x0502_9000_02f0) name
// that target, as Halide prints it.
func TestChosenTargetDecodes(t *testing.T) {
	wrapper := callbacks.MtblurPipeline.Target()
	if strings.Contains(wrapper, "avx512") {
		wrapper = "x86-64-linux-avx-avx2-c_plus_plus_name_mangling-f16c-fma-no_bounds_query-no_runtime-sse41-user_context"
	}
	first := sortedTarget("x86-64-linux-sse41-avx-avx2-fma-f16c-avx512-avx512_skylake-user_context-no_runtime-c_plus_plus_name_mangling")
	if got := halide.ChosenTarget(wrapper, true, []uint64{0x0502_9000_02f0, 0}); got != first {
		t.Errorf("chosen: %s, want %s", got, first)
	}
	fallback := strings.Replace(wrapper, "-no_bounds_query", "", 1)
	if got := halide.ChosenTarget(wrapper, false, []uint64{0, 0}); got != fallback {
		t.Errorf("fallback: %s, want %s", got, fallback)
	}
	// An unknown name fails the call before it runs (and chooses).
	err := callbacks.MtblurPipeline.CallWith(halide.Options{RefuseTargetFeatures: []string{"avx513"}}, array.New[uint16](4), array.New[uint16](4))
	if err == nil || !strings.Contains(err.Error(), `no Halide 14 target feature "avx513"`) || !strings.Contains(err.Error(), "avx512_skylake") {
		t.Errorf("an unknown feature: %v", err)
	}
}

// halide_opencl_set_platform_name and _set_device_type choose
// DefaultDevice("OpenCL"), the default device of the placement rule: a pipeline
// call with nothing on a device runs there; an impossible choice is an
// error naming the setters; clearing the choice gives opencl.Default back.
// The choices come from the platforms listed here: the default device's
// own platform and type, which exist; a listed platform with a type no
// platform of that name has (PoCL's gpu, NVIDIA's cpu), which does not.
func TestCOpenCLPlatform(t *testing.T) {
	def := clDevice(t)
	platform, typ := def.PlatformName(), typeName(def.Type())
	defer blur.CSetOpenCLPlatform("", "")
	blur.CSetOpenCLPlatform(platform, typ)
	chosen, err := halide.DefaultDevice("OpenCL")
	if err != nil || chosen == def {
		t.Fatalf("C chose platform %q, %s: DefaultDevice(\"OpenCL\") = %v, %v; want a device of its own", platform, typ, chosen, err)
	}
	if again, _ := halide.DefaultDevice("OpenCL"); again != chosen {
		t.Error("the same choice opened another device")
	}
	in, out := array.New[uint8](8, 4), array.New[uint8](8, 4)
	defer in.Close()
	defer out.Close()
	if err := brighter.Brighter(in, 1, out); err != nil {
		t.Fatal(err)
	}
	if out.Device() != device.Device(chosen) {
		t.Errorf("the call ran on %v, want C's choice %s", out.Device(), chosen.Name())
	}
	blur.CSetOpenCLPlatform("no-such-platform-resident", "")
	if _, err := halide.DefaultDevice("OpenCL"); err == nil || !strings.Contains(err.Error(), "halide_opencl_set_platform_name") {
		t.Errorf("an impossible platform: %v", err)
	}
	if p, typ, ok := absentType(t); ok {
		blur.CSetOpenCLPlatform(p, typ)
		if d, err := halide.DefaultDevice("OpenCL"); err == nil || !strings.Contains(err.Error(), "halide_opencl_set_device_type") {
			t.Errorf("platform %q has no %s device: DefaultDevice(\"OpenCL\") = %v, %v; want the error naming the setters", p, typ, d, err)
		}
	} else {
		t.Log("every platform here has every device type: no absent choice to try")
	}
	blur.CSetOpenCLPlatform("", "")
	if d, err := halide.DefaultDevice("OpenCL"); err != nil || d != def {
		t.Errorf("after clearing C's choice: %v, %v; want the default device", d, err)
	}
	// As on a machine whose environment names the platform (the H200's
	// HL_OCL_PLATFORM_NAME=NVIDIA): a cleared choice is still no choice.
	t.Setenv("HL_OCL_PLATFORM_NAME", platform)
	if d, err := halide.DefaultDevice("OpenCL"); err != nil || d != def {
		t.Errorf("after clearing C's choice, HL_OCL_PLATFORM_NAME=%q: %v, %v; want the default device", platform, d, err)
	}
}

// typeName is the setter's name of t's first kind among gpu, cpu, acc.
func typeName(t opencl.DeviceType) string {
	for _, k := range []opencl.DeviceType{opencl.DeviceGPU, opencl.DeviceCPU, opencl.DeviceAccelerator} {
		if t&k != 0 {
			return k.String()
		}
	}
	return t.String()
}

// absentType is a listed platform's name and a device type that no
// platform whose name contains it has, as the setters match names.
func absentType(t *testing.T) (platform, typ string, ok bool) {
	ps, err := cl.Platforms()
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range ps {
		for _, k := range []opencl.DeviceType{opencl.DeviceGPU, opencl.DeviceCPU, opencl.DeviceAccelerator} {
			has := false
			for _, q := range ps {
				if strings.Contains(strings.ToLower(q.Name()), strings.ToLower(p.Name())) {
					ds, _ := q.Devices(k)
					has = has || len(ds) > 0
				}
			}
			if !has {
				return p.Name(), k.String(), true
			}
		}
	}
	return "", "", false
}
