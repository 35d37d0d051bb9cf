package rt

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// The package's C units (a .c and its .h) form layers, with no cycle:
// ctx below shim below the device glue (cl, cuda), setters and hooks.
// An include of a unit's header is a dependency on that unit.
func TestCUnitsAcyclic(t *testing.T) {
	inc := regexp.MustCompile(`(?m)^#include "([a-z_]+)\.h"`)
	deps := map[string]map[string]bool{}
	for _, pat := range []string{"*.c", "*.h"} {
		files, _ := filepath.Glob(pat)
		for _, f := range files {
			src, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			u := strings.TrimSuffix(f, filepath.Ext(f))
			if deps[u] == nil {
				deps[u] = map[string]bool{}
			}
			for _, m := range inc.FindAllStringSubmatch(string(src), -1) {
				if d := m[1]; d != u && !strings.HasPrefix(d, "_cgo") {
					deps[u][d] = true
				}
			}
		}
	}
	if len(deps) < 5 {
		t.Fatalf("found %d C units: run in package halide's directory", len(deps))
	}
	const (
		unseen = iota
		open
		done
	)
	state := map[string]int{}
	var path []string
	var visit func(u string)
	visit = func(u string) {
		switch state[u] {
		case open:
			t.Errorf("C units depend on each other: %s -> %s", strings.Join(path, " -> "), u)
			return
		case done:
			return
		}
		state[u] = open
		path = append(path, u)
		for d := range deps[u] {
			visit(d)
		}
		path = path[:len(path)-1]
		state[u] = done
	}
	for u := range deps {
		visit(u)
	}
}

// Every Go mirror has its C struct's layout (init panics otherwise).
func TestLayout(t *testing.T) {
	if err := CheckLayout(); err != nil {
		t.Fatal(err)
	}
}
