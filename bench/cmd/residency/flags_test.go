package main

import (
	"bytes"
	"errors"
	"flag"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/resident-go/resident/bench"
)

func TestParseFlagsDefaults(t *testing.T) {
	o, err := parseFlags(nil, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	if o.device != "opencl" || o.width != 4096 || o.height != 4096 || o.stages != 8 || o.k != 1 ||
		len(o.modes) != 3 || o.memories != nil || o.sync != nil || !o.ladder || o.out != "bench/out" {
		t.Errorf("defaults %+v: want the lesson-10 chain, 8 × brighter on 4096² into bench/out", o)
	}
	o, err = parseFlags(strings.Fields("-device sim -size 640x480 -stages 3 -modes resident,explicit -memory go -sync 0,1 -iters 2"), io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	if o.width != 640 || o.height != 480 || len(o.modes) != 2 || o.modes[1] != bench.Explicit || len(o.sync) != 2 || o.reps != 2 {
		t.Errorf("parsed %+v", o)
	}
}

func TestParseFlagsRejects(t *testing.T) {
	for _, c := range []struct{ args, want string }{
		{"-device cuda", `-device "cuda": want opencl or sim`},
		{"-type tpu", `-type "tpu": want gpu, cpu`},
		{"-device sim -platform NVIDIA", "not with -device sim"},
		{"-size 0", "want N or WxH"},
		{"-size 12xq", "want N or WxH"},
		{"-stages 0", "-stages 0: want 1…64"},
		{"-stages 65", "want 1…64"},
		{"-k 256", "want 0…255"},
		{"-elem float32", `-elem "float32": only uint8 is supported`},
		{"-modes resident,fast", `unknown mode "fast": want resident, roundtrip or explicit`},
		{"-modes ,", "-modes is empty"},
		{"-memory cuda", `unknown host memory "cuda": want go or pinned`},
		{"-sync 8", "want stage indices 0…7"},
		{"-iters -1", "-iters -1"},
		{"-warmup 0", "-warmup 0: want ≥ 1"},
		{"-name a/b", "without slashes"},
		{"extra", "unexpected arguments"},
		{"-nosuchflag", "flag provided but not defined"},
	} {
		var stderr bytes.Buffer
		_, err := parseFlags(strings.Fields(c.args), &stderr)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: err = %v, want one containing %q", c.args, err, c.want)
		}
	}
	if _, err := parseFlags([]string{"-h"}, io.Discard); !errors.Is(err, flag.ErrHelp) {
		t.Errorf("-h: err = %v, want flag.ErrHelp", err)
	}
	// Several mistakes are reported together.
	_, err := parseFlags(strings.Fields("-stages 0 -elem int8"), io.Discard)
	if err == nil || !strings.Contains(err.Error(), "-stages") || !strings.Contains(err.Error(), "-elem") {
		t.Errorf("err = %v, want both mistakes", err)
	}
}

// The command on the sim device writes the table and all four files.
func TestRunSim(t *testing.T) {
	dir := t.TempDir()
	o, err := parseFlags(strings.Fields("-device sim -size 64x32 -stages 3 -iters 2 -q -name t -out "+dir), io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	var stdout, stderr bytes.Buffer
	if err := run(o, "residency -device sim", &stdout, &stderr); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(stdout.String(), "| roundtrip | go | 3 |") {
		t.Errorf("table:\n%s", stdout.String())
	}
	for _, ext := range []string{".md", ".csv", ".json", ".png"} {
		if st, err := os.Stat(filepath.Join(dir, "t"+ext)); err != nil || st.Size() == 0 {
			t.Errorf("t%s: %v", ext, err)
		}
	}
}
