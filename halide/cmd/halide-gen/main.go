package main

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/resident-go/resident/halide/internal/target"
)

type config struct {
	generator, genName, funcName string
	outDir, pkg, halidePkg       string
	target                       string
	params                       []string
	runtime, wrapper, keep       bool
	cxx, include, src            string
	verbose                      bool
}

func main() {
	var c config
	flag.StringVar(&c.generator, "generator", "", "generator source `file` (C++ with HALIDE_REGISTER_GENERATOR)")
	flag.StringVar(&c.genName, "g", "", "generator `name` (default: file name without _generator.cpp)")
	flag.StringVar(&c.funcName, "f", "", "pipeline function `name` (default: the generator name)")
	flag.StringVar(&c.outDir, "o", ".", "output `dir`: the Go package that links the pipeline")
	flag.StringVar(&c.pkg, "pkg", "", "Go package `name` of the wrapper (default: last element of -o)")
	flag.StringVar(&c.target, "target", "", "host, opencl, native, or a Halide target string (default host; opencl for -runtime)")
	flag.BoolVar(&c.runtime, "runtime", false, "emit the Halide runtime object (halide_rt_linux_amd64.syso) and headers into -o")
	flag.BoolVar(&c.wrapper, "go", true, "write the typed Go wrapper FUNC.go")
	flag.StringVar(&c.halidePkg, "halide", "github.com/resident-go/resident/halide", "import `path` of package halide")
	flag.BoolVar(&c.keep, "keep", false, "keep the temporary build directory")
	flag.BoolVar(&c.verbose, "v", false, "print the commands run")
	flag.Usage = func() {
		fmt.Fprintf(flag.CommandLine.Output(), "usage: halide-gen [flags] [generator-param=value ...]\n")
		flag.PrintDefaults()
	}
	flag.Parse()
	c.params = flag.Args()
	c.cxx = env("CXX", "g++")
	c.include = env("HALIDE_INCLUDE", "/usr/include/halide14")
	c.src = env("HALIDE_SRC", "/usr/src/halide14")
	if err := run(&c); err != nil {
		fmt.Fprintln(os.Stderr, "halide-gen:", err)
		os.Exit(1)
	}
}

func env(k, def string) string {
	if v := os.Getenv(k); v != "" {
		return v
	}
	return def
}

// resolveTarget expands the short target names. Pipelines always get
// user_context (so errors reach the right call) and no_runtime (package
// halide provides the one runtime); the runtime gets neither.
func resolveTarget(t string, runtime bool) string {
	if t == "" {
		t = "host"
		if runtime {
			t = "opencl"
		}
	}
	switch t {
	case "host":
		t = target.Portable
	case "opencl":
		t = target.Portable + "-opencl"
	case "native":
		t = target.Host()
	case "native-opencl":
		t = target.Host() + "-opencl"
	}
	if runtime {
		return t
	}
	for _, f := range []string{"user_context", "no_runtime"} {
		if !strings.Contains(t, f) {
			t += "-" + f
		}
	}
	return t
}

func run(c *config) error {
	if c.runtime {
		return emitRuntime(c)
	}
	if c.generator == "" {
		return fmt.Errorf("-generator is required (or -runtime)")
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
		"-e", "static_library,c_header,registration", "target=" + resolveTarget(c.target, false)}
	if err := c.exec(gen, append(args, c.params...)...); err != nil {
		return err
	}
	if !c.wrapper {
		return nil
	}
	md, err := dumpMetadata(c, tmp)
	if err != nil {
		return err
	}
	src, err := wrapper(c, md)
	if err != nil {
		return err
	}
	return os.WriteFile(filepath.Join(c.outDir, c.funcName+".go"), src, 0o644)
}
