package main

import (
	"bytes"
	"errors"
	"flag"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/resident-go/resident/bench"
	"github.com/resident-go/resident/device/opencl"
	"github.com/resident-go/resident/halide"
)

func TestParseFlagsDefaults(t *testing.T) {
	o, err := parseFlags(nil, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	if o.device != "opencl" || o.width != 4096 || o.height != 4096 || o.chain != "brighter" || o.stages != 8 || o.k != 1 ||
		len(o.modes) != 4 || o.modes[3] != bench.Streamed || o.bands != 2 || o.memories != nil || o.sync != nil || !o.ladder || o.out != "out" {
		t.Errorf("defaults %+v: want the lesson-10 chain, 8 × brighter on 4096² into out", o)
	}
	// Streamed needs OpenCL: not a default elsewhere.
	for _, args := range []string{"-device sim", "-device sim -chain mixed"} {
		if o, err := parseFlags(strings.Fields(args), io.Discard); err != nil || slices.Contains(o.modes, bench.Streamed) || len(o.modes) != 3 {
			t.Errorf("%s: modes %v, %v; want the three others", args, o.modes, err)
		}
	}
	o, err = parseFlags(strings.Fields("-device sim -size 640x480 -stages 3 -modes resident,explicit -memory go -sync 0,1 -iters 2"), io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	if o.width != 640 || o.height != 480 || len(o.modes) != 2 || o.modes[1] != bench.Explicit || len(o.sync) != 2 || o.reps != 2 {
		t.Errorf("parsed %+v", o)
	}
	// The mixed chain has 4 stages, so -sync indices up to 3 are allowed.
	for _, args := range []string{"-chain mixed -sync 2", "-chain mixed -stages 4 -scale 0.5 -sync 2"} {
		o, err = parseFlags(strings.Fields(args), io.Discard)
		if err != nil {
			t.Fatal(err)
		}
		if o.chain != "mixed" || o.stages != 4 || len(o.sync) != 1 {
			t.Errorf("%s: parsed %+v", args, o)
		}
	}
	if o.scale != 0.5 {
		t.Errorf("-scale 0.5: scale %g", o.scale)
	}
	if o, _ := parseFlags([]string{"-chain", "mixed"}, io.Discard); o.scale != bench.DefaultScale {
		t.Errorf("-chain mixed: scale %g, want bench.DefaultScale", o.scale)
	}
}

func TestParseFlagsRejects(t *testing.T) {
	for _, c := range []struct{ args, want string }{
		{"-device gpu", `-device "gpu": want opencl, cuda or sim`},
		{"-device cuda -type gpu", "not with -device cuda"},
		{"-type tpu", `-type "tpu": want gpu, cpu`},
		{"-device sim -platform NVIDIA", "not with -device sim"},
		{"-size 0", "want N or WxH"},
		{"-size 12xq", "want N or WxH"},
		{"-stages 0", "-stages 0: want 1…64"},
		{"-stages 65", "want 1…64"},
		{"-k 256", "want 0…255"},
		{"-chain fast", `-chain "fast": want brighter or mixed`},
		{"-devices 0", "-devices 0: want 1…64"},
		{"-devices 2 -device sim", "use -device opencl"},
		{"-devices 2 -torch t.json", "leave it out"},
		{"-devices 3 -size 8x2", "cannot be cut into 3 bands"},
		{"-chain mixed -stages 8", "-stages 8: the mixed chain has 4 stages"},
		{"-chain mixed -sync 4", "want stage indices 0…3"},
		{"-chain mixed -scale 1e39", "-scale 1e+39: want a finite float32"},
		{"-scale 2", "-scale is the mixed chain's: use it with -chain mixed"},
		{"-fuse", "-fuse fuses the mixed chain's ops stages: use it with -chain mixed"},
		{"-elem float32", `-elem "float32": only uint8 is supported`},
		{"-modes resident,fast", `unknown mode "fast": want resident, roundtrip, explicit or streamed`},
		{"-device sim -modes streamed", "-modes streamed: the streamed mode cuts the chain in bands on an OpenCL or CUDA device"},
		{"-device sim -chain mixed -modes resident,streamed", "-modes streamed: the streamed mode cuts the chain in bands on an OpenCL or CUDA device"},
		{"-bands 0", "-bands 0: want 1…65536"},
		{"-first 1", "-first 1: want 0 (equal bands) or a fraction in (0, 1)"},
		{"-last -0.25", "-last -0.25: want 0"},
		{"-last NaN", "-last NaN: want 0"},
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

// -chain mixed on the sim device: the same table, with PyTorch's mixed
// chain compared when -torch names its JSON.
func TestRunSimMixed(t *testing.T) {
	dir := t.TempDir()
	torch := filepath.Join(dir, "torch.json")
	js := `{"device": "fake GPU", "torch": "2.11", "chain": "mixed", "width": 64, "height": 32, "stages": 4, "reps": 5,
	  "results": [{"mode": "resident", "memory": "pageable", "stages": 4, "median_ms": 1}]}`
	if err := os.WriteFile(torch, []byte(js), 0o644); err != nil {
		t.Fatal(err)
	}
	o, err := parseFlags(strings.Fields("-device sim -chain mixed -size 64x32 -iters 2 -q -torch "+torch), io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	o.out = ""
	var stdout, stderr bytes.Buffer
	if err := run(o, "residency -device sim -chain mixed", &stdout, &stderr); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"sim_brighter → sim_cast_f32 → sim_scale → sim_sum (4 stages)", "| roundtrip | go | 4 |", "| explicit (sync 1) | pinned | 4 |",
		"same chain: saturating +k → float32 → × scale → sum", "| resident | go / pageable |"} {
		if !strings.Contains(stdout.String(), want) {
			t.Errorf("output lacks %q:\n%s", want, stdout.String())
		}
	}
}

// -devices 2 on the halves of the CPU device: the split table for each
// memory and NAME-split.md/json. Skips where the device cannot be split.
func TestRunSplitDevices(t *testing.T) {
	if _, err := opencl.Default(); err != nil {
		t.Skipf("no OpenCL device: %v", err)
	}
	dir := t.TempDir()
	o, err := parseFlags(strings.Fields("-devices 2 -type cpu -platform Portable -chain mixed -size 64x33 -iters 2 -q -name t -out "+dir), io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	var stdout bytes.Buffer
	err = run(o, "residency -devices 2", &stdout, io.Discard)
	if errors.Is(err, opencl.ErrCannotSplit) {
		t.Skip(err)
	}
	if err != nil {
		t.Fatal(err)
	}
	if n := strings.Count(stdout.String(), "**Split over 2 devices**"); n != 2 {
		t.Errorf("%d split tables, want one per memory:\n%s", n, stdout.String())
	}
	for _, f := range []string{"t-split.md", "t-split.json"} {
		if _, err := os.Stat(filepath.Join(dir, f)); err != nil {
			t.Error(err)
		}
	}
}

// -device cuda runs the brighter chain with brighter_cuda and writes the
// same table; it skips where there is no CUDA device, naming what is
// missing.
func TestRunCUDA(t *testing.T) {
	if _, err := halide.DefaultDevice("CUDA"); err != nil {
		t.Skip("no CUDA device:", err)
	}
	dir := t.TempDir()
	o, err := parseFlags(strings.Fields("-device cuda -size 256x128 -stages 3 -iters 2 -q -name t -out "+dir), io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	var stdout, stderr bytes.Buffer
	if err := run(o, "residency -device cuda", &stdout, &stderr); err != nil {
		t.Fatal(err)
	}
	for _, row := range []string{"| resident | go | 3 |", "| resident | pinned | 3 |"} {
		if !strings.Contains(stdout.String(), row) {
			t.Errorf("no %q row in the table:\n%s", row, stdout.String())
		}
	}
}
