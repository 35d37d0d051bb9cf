package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// halideConfig is a config for this machine's Halide 14; it skips the test where Halide is not installed (CI machines
// need not have it: make halide-deps installs it).
func halideConfig(t *testing.T) config {
	t.Helper()
	var c config
	c.setDefaults()
	if _, err := os.Stat(filepath.Join(c.include, "Halide.h")); err != nil {
		t.Skipf("Halide 14 is not installed (%v): make halide-deps installs libhalide14-0-dev", err)
	}
	if _, err := exec.LookPath(c.cxx); err != nil {
		t.Skipf("no C++ compiler %s", c.cxx)
	}
	// A cache of the tests' own, kept between runs: the first run builds
	// the test generator once, later runs none.
	c.cacheDir = filepath.Join(cacheDir(), "test")
	if c.cacheDir == "test" {
		c.cacheDir = t.TempDir()
	}
	c.generator = filepath.Join("testdata", "probe_generator.cpp")
	c.includes = listFlag{filepath.Join("testdata", "include")} // probe_config.h
	c.halidePkg = "github.com/resident-go/resident/halide"
	c.userContext, c.wrapper, c.pkg = true, true, "probe"
	return c
}

// Variants of one generator source — names, targets, multi-target lists,
// C++ namespaces, no user_context, print and Go externs — cost one
// compile, and each comes out right.
func TestVariantsShareOneBuild(t *testing.T) {
	base := halideConfig(t)
	out := t.TempDir()
	before := builds
	for _, v := range []struct {
		f, target string
		params    []string
		noUC      bool
		check     func(t *testing.T, wrapper string)
	}{
		{f: "probe", check: func(t *testing.T, w string) {
			must(t, w, `halide.MustLookup("probe")`+"\n", "func Probe(input array.Buffer, gain float32, output array.Buffer) error")
		}},
		{f: "probe_mt", target: "host,x86-64-linux-sse41", check: func(t *testing.T, w string) {
			must(t, w, "a multi-target object", "x86-64-linux-sse41-user_context-no_runtime")
		}},
		{f: "resident::probe_ns", target: "host,x86-64-linux", check: func(t *testing.T, w string) {
			must(t, w, `halide.MustLookup("probe_ns")`, "c_plus_plus_name_mangling")
		}},
		{f: "probe_nouc", noUC: true, check: func(t *testing.T, w string) {
			must(t, w, "func ProbeNouc(input array.Buffer, gain float32, output array.Buffer) error")
		}},
		{f: "probe_print", params: []string{"uses_print=true"}, check: func(t *testing.T, w string) {
			must(t, w, ".WithCallbacks()", "print, trace")
		}},
		{f: "probe_x", params: []string{"uses_extern=true"}, check: func(t *testing.T, w string) {
			must(t, w, ".WithCallbacks()", "probe_ext(buffer, int32, float32, buffer)")
			stub, err := os.ReadFile(filepath.Join(out, "probe_ext.extern.c"))
			if err != nil {
				t.Fatal(err)
			}
			must(t, string(stub), `gohl_extern_dispatch("probe_ext", 4, kinds, v)`)
		}},
	} {
		t.Run(strings.ReplaceAll(v.f, "::", "_"), func(t *testing.T) {
			c := base
			c.funcName, c.target, c.params, c.outDir = v.f, v.target, v.params, out
			c.userContext = !v.noUC
			if err := run(&c); err != nil {
				t.Fatal(err)
			}
			name := simpleName(v.f)
			for _, ext := range []string{".a", ".h", ".registration.cpp", ".go"} {
				if _, err := os.Stat(filepath.Join(out, name+ext)); err != nil {
					t.Error(err)
				}
			}
			w, err := os.ReadFile(filepath.Join(out, name+".go"))
			if err != nil {
				t.Fatal(err)
			}
			v.check(t, string(w))
		})
	}
	if n := builds - before; n > 1 {
		t.Errorf("%d generator builds for one source, want at most 1 (0 with a warm cache)", n)
	}
}

func must(t *testing.T, s string, wants ...string) {
	t.Helper()
	for _, w := range wants {
		if !strings.Contains(s, w) {
			t.Errorf("missing %q in:\n%s", w, s)
		}
	}
}
