package main

import (
	"errors"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

type config struct {
	generator, genName, funcName string
	outDir, pkg, halidePkg       string
	target                       string
	params                       []string
	runtime, wrapper, keep       bool
	userContext, noCache         bool
	includes, defines            listFlag
	cxxFlags, ldFlags            string
	cExterns                     listFlag
	cxx, include, src            string
	verbose                      bool

	cacheDir string // "" without a cache
}

// listFlag is a flag given several times (-I a -I b) or as a comma list.
type listFlag []string

func (l *listFlag) String() string { return strings.Join(*l, ",") }

func (l *listFlag) Set(v string) error {
	*l = append(*l, v)
	return nil
}

func main() {
	c := config{}
	flag.StringVar(&c.generator, "generator", "", "generator source `file` (C++ with HALIDE_REGISTER_GENERATOR), outside any Go package directory (e.g. pkg/gen/)")
	flag.StringVar(&c.genName, "g", "", "generator `name` as registered with HALIDE_REGISTER_GENERATOR (default: the file name without _generator.cpp)")
	flag.StringVar(&c.funcName, "f", "", "pipeline function `name`, C++ namespaces allowed (ns::name); default: the generator name")
	flag.StringVar(&c.outDir, "o", ".", "output `dir`: the Go package that links the pipeline")
	flag.StringVar(&c.pkg, "pkg", "", "Go package `name` of the wrapper (default: last element of -o)")
	flag.StringVar(&c.target, "target", "", "host, opencl, native, native-opencl, a Halide target string, or a comma list of them (multi-target; first match at run time wins). Default host; opencl for -runtime")
	flag.BoolVar(&c.userContext, "user_context", true, "add the user_context feature; -user_context=false makes a pipeline with the plain extern-stage signature, callable as another pipeline's define_extern")
	flag.Var(&c.includes, "I", "add `dir` to the generator's include path (repeatable)")
	flag.Var(&c.defines, "D", "define `name[=value]` when compiling the generator (repeatable)")
	flag.StringVar(&c.cxxFlags, "cxxflags", "", "extra `flags` for compiling the generator, space-separated")
	flag.StringVar(&c.ldFlags, "ldflags", "", "extra `flags` for linking the generator, space-separated")
	flag.Var(&c.cExterns, "cextern", "extern stage `name` implemented in C, not Go (repeatable); externs defined by another pipeline in -o are found by themselves")
	flag.BoolVar(&c.runtime, "runtime", false, "emit the Halide runtime object (internal/rt/halide_rt_linux_amd64.syso) and headers (include/) into -o")
	flag.BoolVar(&c.wrapper, "go", true, "write the typed Go wrapper NAME.go")
	flag.StringVar(&c.halidePkg, "halide", "github.com/resident-go/resident/halide", "import `path` of package halide")
	flag.BoolVar(&c.noCache, "nocache", false, "build the generator afresh instead of reusing the cached binary ($HALIDE_GEN_CACHE, else the user cache dir)")
	flag.BoolVar(&c.keep, "keep", false, "keep the temporary build directory")
	flag.BoolVar(&c.verbose, "v", false, "print the commands run")
	flag.Usage = func() {
		fmt.Fprintf(flag.CommandLine.Output(), "usage: halide-gen [flags] [generator-param=value ...]\n")
		flag.PrintDefaults()
	}
	flag.Parse()
	c.params = flag.Args()
	c.setDefaults()
	if err := run(&c); err != nil {
		fmt.Fprintln(os.Stderr, "halide-gen:", err)
		os.Exit(1)
	}
}

// setDefaults fills what the environment decides: compiler, Halide's
// location, the cache.
func (c *config) setDefaults() {
	c.cxx = env("CXX", "g++")
	c.include = env("HALIDE_INCLUDE", "/usr/include/halide14")
	c.src = env("HALIDE_SRC", "/usr/src/halide14")
	if !c.noCache {
		c.cacheDir = cacheDir()
	}
}

func env(k, def string) string {
	if v := os.Getenv(k); v != "" {
		return v
	}
	return def
}

// errUsage marks errors in how halide-gen was called.
var errUsage = errors.New("usage")

// simpleName is the function name without C++ namespaces: Halide names the
// output files and the metadata after it.
func simpleName(f string) string {
	if i := strings.LastIndex(f, "::"); i >= 0 {
		return f[i+2:]
	}
	return f
}

// checkSource refuses a generator source that sits in a Go package
// directory: cgo compiles every .cpp there into the package.
func checkSource(gen, outDir string) error {
	dir, err := filepath.Abs(filepath.Dir(gen))
	if err != nil {
		return err
	}
	out, err := filepath.Abs(outDir)
	if err != nil {
		return err
	}
	gos, _ := filepath.Glob(filepath.Join(dir, "*.go"))
	if len(gos) == 0 && dir != out {
		return nil
	}
	return fmt.Errorf("%w: generator source %s is in the Go package directory %s, where cgo would compile it into the package (and fail without Halide's headers): move it to a subdirectory without Go files, e.g. %s",
		errUsage, gen, dir, filepath.Join(filepath.Dir(gen), "gen", filepath.Base(gen)))
}

func run(c *config) error {
	if c.runtime {
		return emitRuntime(c)
	}
	if c.generator == "" {
		return fmt.Errorf("%w: -generator is required (or -runtime)", errUsage)
	}
	if err := checkSource(c.generator, c.outDir); err != nil {
		return err
	}
	if c.genName == "" {
		c.genName = strings.TrimSuffix(strings.TrimSuffix(filepath.Base(c.generator), ".cpp"), "_generator")
	}
	if c.funcName == "" {
		c.funcName = c.genName
	}
	if c.pkg == "" {
		abs, err := filepath.Abs(c.outDir)
		if err != nil {
			return err
		}
		c.pkg = goIdent(filepath.Base(abs))
	}
	targets, err := resolveTargets(c.target, targetOptions{userContext: c.userContext, cplusplus: strings.Contains(c.funcName, "::")})
	if err != nil {
		return err
	}
	tmp, err := os.MkdirTemp("", "halide-gen")
	if err != nil {
		return err
	}
	if !c.keep {
		defer os.RemoveAll(tmp)
	}
	gen, err := buildGenerator(c, c.generator, tmp)
	if err != nil {
		return err
	}
	if err := os.MkdirAll(c.outDir, 0o755); err != nil {
		return err
	}
	args := []string{"-g", c.genName, "-f", c.funcName, "-o", c.outDir,
		"-e", "static_library,c_header,registration", "target=" + strings.Join(targets, ",")}
	if err := c.exec(gen, append(args, c.params...)...); err != nil {
		return err
	}
	// What the pipeline calls besides the runtime: print and trace hooks
	// and extern stages, read from its LLVM assembly (one target is
	// enough: the Funcs and externs are the same for every target).
	ll := filepath.Join(tmp, "ll")
	if err := os.MkdirAll(ll, 0o755); err != nil {
		return err
	}
	if err := c.exec(gen, append([]string{"-g", c.genName, "-f", c.funcName, "-o", ll,
		"-e", "llvm_assembly", "target=" + targets[0]}, c.params...)...); err != nil {
		return err
	}
	src, err := os.ReadFile(filepath.Join(ll, simpleName(c.funcName)+".ll"))
	if err != nil {
		return err
	}
	calls, err := scanCalls(string(src))
	if err != nil {
		return err
	}
	goExterns, err := c.goExterns(calls.externs)
	if err != nil {
		return err
	}
	for _, x := range goExterns {
		if err := writeStub(c.outDir, x); err != nil {
			return err
		}
	}
	if !c.wrapper {
		return nil
	}
	md, err := dumpMetadata(c, tmp)
	if err != nil {
		return err
	}
	w, err := wrapper(c, md, targets, calls, goExterns)
	if err != nil {
		return err
	}
	return os.WriteFile(filepath.Join(c.outDir, simpleName(c.funcName)+".go"), w, 0o644)
}
