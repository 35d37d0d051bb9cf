package main

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/resident-go/resident/halide/internal/target"
)

func TestResolveTargets(t *testing.T) {
	P := target.Portable
	for _, tc := range []struct {
		list string
		o    targetOptions
		want []string
	}{
		{"", targetOptions{userContext: true}, []string{P + "-user_context-no_runtime"}},
		{"host", targetOptions{}, []string{P + "-no_runtime"}},
		{"opencl", targetOptions{userContext: true}, []string{P + "-opencl-user_context-no_runtime"}},
		// Multi-target: every element gets the forced features.
		{"host, x86-64-linux-sse41", targetOptions{userContext: true},
			[]string{P + "-user_context-no_runtime", "x86-64-linux-sse41-user_context-no_runtime"}},
		{"x86-64-linux-sse41-no_runtime,x86-64-linux", targetOptions{cplusplus: true},
			[]string{"x86-64-linux-sse41-no_runtime-c_plus_plus_name_mangling", "x86-64-linux-no_runtime-c_plus_plus_name_mangling"}},
		{"", targetOptions{runtime: true}, []string{P + "-opencl-cuda"}},
		{"cuda", targetOptions{userContext: true}, []string{P + "-cuda-cuda_capability_70-user_context-no_runtime"}},
	} {
		got, err := resolveTargets(tc.list, tc.o)
		if err != nil || !reflect.DeepEqual(got, tc.want) {
			t.Errorf("resolveTargets(%q, %+v) = %q, %v; want %q", tc.list, tc.o, got, err, tc.want)
		}
	}
	for _, tc := range []struct {
		list string
		o    targetOptions
	}{
		{"host,", targetOptions{}},
		{"x86-64-linux-user_context", targetOptions{}},
		{"host,host", targetOptions{runtime: true}},
	} {
		if _, err := resolveTargets(tc.list, tc.o); !errors.Is(err, errUsage) {
			t.Errorf("resolveTargets(%q, %+v): err %v, want a usage error", tc.list, tc.o, err)
		}
	}
}

func TestNames(t *testing.T) {
	for in, want := range map[string]string{"blur": "blur", "ns::blur": "blur", "a::b::c_d": "c_d"} {
		if got := simpleName(in); got != want {
			t.Errorf("simpleName(%q) = %q, want %q", in, got, want)
		}
	}
	for in, want := range map[string]string{"brighter_host": "BrighterHost", "x": "X", "a__b": "AB"} {
		if got := exported(in); got != want {
			t.Errorf("exported(%q) = %q, want %q", in, got, want)
		}
	}
	for in, want := range map[string]string{"output": "output", "type": "type_", "9lives": "lives", "a.b": "a_b", "002": "x02"} {
		if got := goIdent(in); got != want {
			t.Errorf("goIdent(%q) = %q, want %q", in, got, want)
		}
	}
}

// A generator source in a Go package directory is refused with the fix.
func TestCheckSource(t *testing.T) {
	pkg := t.TempDir()
	gen := filepath.Join(pkg, "gen")
	for _, d := range []string{gen} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	write(t, filepath.Join(pkg, "doc.go"), "package x\n")
	src := filepath.Join(pkg, "foo_generator.cpp")
	err := checkSource(src, pkg)
	if !errors.Is(err, errUsage) || !strings.Contains(err.Error(), filepath.Join(pkg, "gen", "foo_generator.cpp")) {
		t.Fatalf("source in package dir: %v, want a usage error naming gen/foo_generator.cpp", err)
	}
	if err := checkSource(filepath.Join(gen, "foo_generator.cpp"), pkg); err != nil {
		t.Fatalf("source in gen/: %v", err)
	}
	// The output directory becomes a Go package even before it has files.
	if err := checkSource(filepath.Join(gen, "foo_generator.cpp"), gen); !errors.Is(err, errUsage) {
		t.Fatalf("source in the output dir: %v, want a usage error", err)
	}
}

const sampleLL = `
declare void @halide_print(i8* noundef, i8* noundef) local_unnamed_addr #0
declare i32 @halide_trace_helper(i8* noundef, i8* noundef, i8* noundef, i32* noundef, i32 noundef) local_unnamed_addr #0
declare i32 @halide_error_bad_type(i8* noundef, i8* noundef, i32 noundef, i32 noundef) local_unnamed_addr #0
declare float @sinf(float) local_unnamed_addr
declare <8 x float> @llvm.fma.v8f32(<8 x float>, <8 x float>, <8 x float>)
declare i32 @my_ext(i8*, %struct.halide_buffer_t*, i8 zeroext, i16, i1, float, double, %struct.halide_buffer_t*) local_unnamed_addr
declare i32 @"_Z6go_addP15halide_buffer_tjS0_"(%struct.halide_buffer_t*, i32, %struct.halide_buffer_t*) local_unnamed_addr
declare i32 @not_a_stage(i32)
`

func TestScanCalls(t *testing.T) {
	c, err := scanCalls(sampleLL)
	if err != nil {
		t.Fatal(err)
	}
	if !c.print || !c.trace {
		t.Errorf("print %v trace %v, want both", c.print, c.trace)
	}
	if len(c.externs) != 2 {
		t.Fatalf("externs %+v, want my_ext and go_add", c.externs)
	}
	if got, want := c.externs[0].signature(), "my_ext(handle, buffer, uint8, int16, bool, float32, float64, buffer)"; got != want {
		t.Errorf("signature %q, want %q", got, want)
	}
	if c.externs[1].Symbol != "_Z6go_addP15halide_buffer_tjS0_" {
		t.Errorf("symbol %q", c.externs[1].Symbol)
	}
}

// The stubs compile as C and C++ (C++ names need c++filt).
func TestStubsCompile(t *testing.T) {
	cc, err := exec.LookPath("gcc")
	if err != nil {
		t.Skip("no gcc")
	}
	c, _ := scanCalls(sampleLL)
	var cfg config
	cfg.outDir = t.TempDir()
	xs, err := cfg.goExterns(c.externs)
	if err != nil {
		if _, lerr := exec.LookPath("c++filt"); lerr != nil {
			t.Skip("no c++filt")
		}
		t.Fatal(err)
	}
	if len(xs) != 2 || xs[1].Name != "go_add" || !xs[1].CPP || xs[1].signature() != "go_add(buffer, uint32, buffer)" {
		t.Fatalf("externs %+v", xs)
	}
	for _, x := range xs {
		if err := writeStub(cfg.outDir, x); err != nil {
			t.Fatal(err)
		}
		f := filepath.Join(cfg.outDir, stubFile(x))
		if out, err := exec.Command(cc, "-c", "-Wall", "-Werror", "-o", f+".o", f).CombinedOutput(); err != nil {
			t.Fatalf("%s: %v\n%s", f, err, out)
		}
		if out, err := exec.Command("nm", f+".o").Output(); err == nil && !strings.Contains(string(out), " T "+x.Symbol) {
			t.Errorf("%s defines no %s:\n%s", f, x.Symbol, out)
		}
	}
	// -cextern leaves an extern to C.
	cfg.cExterns = listFlag{"my_ext"}
	if xs, _ := cfg.goExterns(c.externs); len(xs) != 1 || xs[0].Name != "go_add" {
		t.Errorf("with -cextern my_ext: %+v", xs)
	}
}

func TestDumpProgram(t *testing.T) {
	if s := dumpProgram("blur"); !strings.Contains(s, `extern "C" const halide_filter_metadata_t *blur_metadata();`) || !strings.Contains(s, "= blur_metadata();") {
		t.Errorf("plain name:\n%s", s)
	}
	s := dumpProgram("a::b::blur")
	if !strings.Contains(s, "namespace a { namespace b { const halide_filter_metadata_t *blur_metadata(); } }") || !strings.Contains(s, "= ::a::b::blur_metadata();") {
		t.Errorf("namespaced name:\n%s", s)
	}
}

func TestWrapper(t *testing.T) {
	c := &config{pkg: "probe", generator: "gen/probe_generator.cpp", halidePkg: "github.com/resident-go/resident/halide"}
	md := &metadata{Name: "probe", Target: "x86-64-linux", Args: []arg{
		{Name: "__user_context", Kind: 0, Code: 3, Bits: 64, Lanes: 1},
		{Name: "input", Kind: 1, Dims: 2, Code: 0, Bits: 16, Lanes: 1},
		{Name: "gain", Kind: 0, Code: 2, Bits: 32, Lanes: 1},
		{Name: "output", Kind: 2, Dims: 2, Code: 0, Bits: 16, Lanes: 1},
	}}
	src, err := wrapper(c, md, []string{"a", "b"}, calls{print: true}, nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		`var ProbePipeline = halide.MustLookup("probe").WithCallbacks()`,
		"func Probe(input array.Buffer, gain float32, output array.Buffer) error",
		"a multi-target object", "//   - b",
	} {
		if !strings.Contains(string(src), want) {
			t.Errorf("wrapper lacks %q:\n%s", want, src)
		}
	}
	src, err = wrapper(c, md, []string{"a"}, calls{}, nil)
	if err != nil || strings.Contains(string(src), "WithCallbacks") {
		t.Errorf("a pipeline without callbacks got WithCallbacks (err %v):\n%s", err, src)
	}
}

// The cache key follows the source, the headers it includes with quotes
// and the flags, and nothing else.
func TestGeneratorKey(t *testing.T) {
	dir := t.TempDir()
	hal := filepath.Join(dir, "halide")
	write(t, filepath.Join(hal, "Halide.h"), "// fake Halide\n")
	write(t, filepath.Join(hal, "GenGen.cpp"), "// fake GenGen\n")
	src := filepath.Join(dir, "gen", "g_generator.cpp")
	write(t, src, "#include \"Halide.h\"\n#include \"cfg.h\"\n")
	write(t, filepath.Join(dir, "gen", "cfg.h"), "#define A 1\n")
	c := &config{cxx: "g++", include: hal, src: hal}
	key := func() string {
		k, err := c.generatorKey(src)
		if err != nil {
			t.Fatal(err)
		}
		return k
	}
	k0 := key()
	if key() != k0 {
		t.Fatal("key not stable")
	}
	write(t, filepath.Join(dir, "gen", "cfg.h"), "#define A 2\n")
	k1 := key()
	if k1 == k0 {
		t.Error("changing an included header kept the key")
	}
	c.defines = listFlag{"B=1"}
	if key() == k1 {
		t.Error("adding -D kept the key")
	}
	c.defines = nil
	// A header found through -I counts too.
	write(t, src, "#include \"Halide.h\"\n#include \"cfg.h\"\n#include \"inc.h\"\n")
	inc := filepath.Join(dir, "inc")
	write(t, filepath.Join(inc, "inc.h"), "#define C 1\n")
	c.includes = listFlag{inc}
	k2 := key()
	write(t, filepath.Join(inc, "inc.h"), "#define C 2\n")
	if key() == k2 {
		t.Error("changing a header found through -I kept the key")
	}
	write(t, filepath.Join(hal, "Halide.h"), "// another Halide\n")
	if key() == k2 {
		t.Error("another Halide.h kept the key")
	}
}

func write(t *testing.T, path, s string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(s), 0o644); err != nil {
		t.Fatal(err)
	}
}

// Halide's tools folder is searched after the user's -I folders, for the
// build and for the cache key, and a missing include names the flag.
func TestToolsInclude(t *testing.T) {
	dir := t.TempDir()
	hal := filepath.Join(dir, "halide")
	write(t, filepath.Join(hal, "Halide.h"), "// fake Halide\n")
	write(t, filepath.Join(hal, "GenGen.cpp"), "// fake GenGen\n")
	write(t, filepath.Join(hal, "halide_trace_config.h"), "#define T 1\n")
	src := filepath.Join(dir, "gen", "g_generator.cpp")
	write(t, src, "#include \"Halide.h\"\n#include \"halide_trace_config.h\"\n")
	c := &config{cxx: "g++", include: hal, src: hal, includes: listFlag{"/mine"}}
	args := strings.Join(c.compileArgs(src, "exe"), " ")
	if !strings.Contains(args, "-I/mine -I"+hal+" ") {
		t.Errorf("compile args %q: want the user's -I, then Halide's tools folder", args)
	}
	k0, err := c.generatorKey(src)
	if err != nil {
		t.Fatal(err)
	}
	write(t, filepath.Join(hal, "halide_trace_config.h"), "#define T 2\n")
	if k, _ := c.generatorKey(src); k == k0 {
		t.Error("changing a header found in Halide's tools folder kept the key")
	}
	for _, msg := range []string{
		"g_generator.cpp:2:10: fatal error: my_config.h: No such file or directory",
		"g_generator.cpp:2:10: fatal error: 'my_config.h' file not found",
	} {
		err := c.explainBuild(src, errors.New(msg))
		if !strings.Contains(err.Error(), "includes my_config.h") || !strings.Contains(err.Error(), "pass -I DIR") {
			t.Errorf("missing include explained as %q", err)
		}
	}
	if err := c.explainBuild(src, nil); err != nil {
		t.Errorf("a build that worked explained as %v", err)
	}
}
