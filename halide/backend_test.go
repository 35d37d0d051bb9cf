package halide_test

import (
	"errors"
	"go/parser"
	"go/token"
	"path/filepath"
	"strings"
	"testing"

	"github.com/resident-go/resident/device"
	"github.com/resident-go/resident/halide"
	"github.com/resident-go/resident/internal/plumb"
)

// A pipeline's device API follows from its target, and the backends
// behind OpenCL and CUDA are found by name: importing halide links and
// registers them, and no file of package halide imports one.
func TestBackends(t *testing.T) {
	for _, n := range halide.Pipelines() {
		p := halide.MustLookup(n)
		want := ""
		switch t := p.Target(); {
		case strings.Contains(t, "opencl"):
			want = "OpenCL"
		case strings.Contains(t, "-cuda"):
			want = "CUDA"
		}
		if p.API() != want {
			t.Errorf("%s (%s): API %q; want %q", n, p.Target(), p.API(), want)
		}
	}
	for _, api := range []string{"OpenCL", "CUDA"} {
		b, ok := plumb.BackendOf(api)
		if !ok || b.Default == nil || b.Owns == nil || !errors.Is(b.Closed, device.ErrClosed) {
			t.Errorf("backend %q: %+v, %v; want one registered, its closed error wrapping device.ErrClosed", api, b, ok)
		}
	}
	files, _ := filepath.Glob("*.go")
	for _, f := range files {
		if strings.HasSuffix(f, "_test.go") {
			continue
		}
		ast, err := parser.ParseFile(token.NewFileSet(), f, nil, parser.ImportsOnly)
		if err != nil {
			t.Fatal(err)
		}
		for _, im := range ast.Imports {
			if p := strings.Trim(im.Path.Value, `"`); strings.HasPrefix(p, "github.com/resident-go/resident/device/") {
				t.Errorf("%s imports %s: reach backends through the registry (internal/plumb)", f, p)
			}
		}
	}
}
