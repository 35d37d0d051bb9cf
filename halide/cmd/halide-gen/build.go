package main

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
)

// buildGenerator returns a generator executable built from src with
// GenGen.cpp against Debian's Halide 14: the cached one when the cache
// holds a build of the same inputs, else a new build, which it caches.
func buildGenerator(c *config, src, tmp string) (string, error) {
	if _, err := os.Stat(filepath.Join(c.include, "Halide.h")); err != nil {
		return "", fmt.Errorf("Halide 14 headers not found in %s (install libhalide14-0-dev: make halide-deps): %w", c.include, err)
	}
	if c.cacheDir == "" {
		exe := filepath.Join(tmp, "gen")
		return exe, c.explainBuild(src, c.exec(c.cxx, c.compileArgs(src, exe)...))
	}
	key, err := c.generatorKey(src)
	if err != nil {
		return "", err
	}
	exe := filepath.Join(c.cacheDir, key, "gen")
	if st, err := os.Stat(exe); err == nil && st.Mode().IsRegular() {
		if c.verbose {
			fmt.Fprintf(os.Stderr, "halide-gen: generator %s from the cache: %s\n", src, exe)
		}
		return exe, nil
	}
	if err := os.MkdirAll(filepath.Dir(exe), 0o755); err != nil {
		// An unwritable cache only costs the build.
		exe := filepath.Join(tmp, "gen")
		return exe, c.explainBuild(src, c.exec(c.cxx, c.compileArgs(src, exe)...))
	}
	// Build next to the final name and rename: concurrent runs (make -j)
	// never see a half-written binary.
	part, err := os.CreateTemp(filepath.Dir(exe), "gen-*.part")
	if err != nil {
		return "", err
	}
	part.Close()
	defer os.Remove(part.Name())
	if err := c.exec(c.cxx, c.compileArgs(src, part.Name())...); err != nil {
		return "", c.explainBuild(src, err)
	}
	if err := os.Rename(part.Name(), exe); err != nil {
		return "", err
	}
	builds++
	return exe, nil
}

// builds counts generator compilations in this process (tests read it).
var builds int

// runtimeGenerator is the smallest generator there is: halide-gen only needs
// a generator executable to ask for the runtime (-r).
const runtimeGenerator = `#include "Halide.h"
struct Nop : Halide::Generator<Nop> {
    Output<Buffer<uint8_t>> out{"out", 1};
    void generate() { Halide::Var x; out(x) = Halide::cast<uint8_t>(0); }
};
HALIDE_REGISTER_GENERATOR(Nop, nop)
`

// emitRuntime writes the runtime's single object as a .syso into
// internal/rt of the output folder (package halide's binding to the
// runtime, which links it), so the Go linker always sees it whatever the
// order of cgo LDFLAGS, and copies the runtime headers the C side compiles
// against into include, so go build needs no Halide.
func emitRuntime(c *config) error {
	tmp, err := os.MkdirTemp("", "halide-gen")
	if err != nil {
		return err
	}
	if !c.keep {
		defer os.RemoveAll(tmp)
	}
	src := filepath.Join(tmp, "nop_generator.cpp")
	if err := os.WriteFile(src, []byte(runtimeGenerator), 0o644); err != nil {
		return err
	}
	gen, err := buildGenerator(c, src, tmp)
	if err != nil {
		return err
	}
	rt := filepath.Join(tmp, "rt")
	if err := os.MkdirAll(rt, 0o755); err != nil {
		return err
	}
	targets, err := resolveTargets(c.target, targetOptions{runtime: true})
	if err != nil {
		return err
	}
	if err := c.exec(gen, "-r", "halide_rt", "-o", rt, "-e", "static_library", "target="+targets[0]); err != nil {
		return err
	}
	if err := c.execIn(rt, "ar", "x", "halide_rt.a"); err != nil {
		return err
	}
	objs, _ := filepath.Glob(filepath.Join(rt, "*.o"))
	if len(objs) != 1 {
		return fmt.Errorf("runtime archive holds %d objects, want 1: %v", len(objs), objs)
	}
	if err := copyFile(objs[0], filepath.Join(c.outDir, "internal", "rt", "halide_rt_linux_amd64.syso")); err != nil {
		return err
	}
	for _, h := range []string{"HalideRuntime.h", "HalideRuntimeOpenCL.h", "HalideRuntimeCuda.h"} {
		if err := copyFile(filepath.Join(c.include, h), filepath.Join(c.outDir, "include", h)); err != nil {
			return err
		}
	}
	return nil
}

func copyFile(from, to string) error {
	b, err := os.ReadFile(from)
	if err != nil {
		return err
	}
	if err := os.MkdirAll(filepath.Dir(to), 0o755); err != nil {
		return err
	}
	return os.WriteFile(to, b, 0o644)
}

func (c *config) exec(name string, args ...string) error { return c.execIn("", name, args...) }

func (c *config) execIn(dir, name string, args ...string) error {
	if c.verbose {
		fmt.Fprintln(os.Stderr, "+", name, strings.Join(args, " "))
	}
	cmd := exec.Command(name, args...)
	cmd.Dir = dir
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Run(); err != nil {
		return fmt.Errorf("%s %s: %w\n%s", name, strings.Join(args, " "), err, out.String())
	}
	return nil
}
