package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/resident-go/resident/bench"
	"github.com/resident-go/resident/device"
	"github.com/resident-go/resident/device/opencl"
)

// runSplit measures the chain split over o.devices OpenCL devices of one
// context (opencl.Several) against the whole image on the first, for each
// host memory, and writes NAME-split.md and NAME-split.json. The platform
// and device type come from the environment, which run sets from -platform
// and -type.
func runSplit(o options, cmd string, stdout, stderr io.Writer) error {
	cls, err := opencl.Several(opencl.Options{}, o.devices)
	if err != nil {
		return fmt.Errorf("-devices %d: %w", o.devices, err)
	}
	defer func() {
		for _, d := range cls {
			d.Close()
		}
	}()
	devs := make([]device.Device, len(cls))
	for i, d := range cls {
		devs[i] = d
	}
	stages := func(d device.Device) ([]bench.Stage, error) {
		if o.chain == "mixed" && o.fuse {
			return bench.MixedFusedOn(d, uint8(o.k), float32(o.scale))
		}
		if o.chain == "mixed" {
			return bench.MixedOn(d, uint8(o.k), float32(o.scale))
		}
		s, _, err := bench.Brighter(uint8(o.k))
		return bench.Repeat(s, o.stages), err
	}
	reps := o.reps
	if reps == 0 {
		reps = 7
		if cls[0].Type()&opencl.DeviceGPU != 0 {
			reps = 30
		}
	}
	mems := o.memories
	if len(mems) == 0 {
		mems = bench.Memories
	}
	var md bytes.Buffer
	fmt.Fprintf(&md, "Command: `%s`\n\n", cmd)
	var reports []*bench.SplitReport
	for _, mem := range mems {
		if !o.quiet {
			fmt.Fprintf(stderr, "residency: %s chain split over %d devices (%s …), %s memory, %d repetitions\n", o.chain, len(devs), devs[0].Name(), mem, reps)
		}
		rep, err := bench.RunSplit(bench.SplitConfig{Devices: devs, Stages: stages, Width: o.width, Height: o.height,
			Memory: mem, Warmup: o.warmup, Reps: reps})
		if err != nil {
			return err
		}
		reports = append(reports, rep)
		md.WriteString(rep.Markdown())
		md.WriteString("\n")
	}
	if _, err := stdout.Write(md.Bytes()); err != nil {
		return err
	}
	if o.out == "" {
		return nil
	}
	if err := os.MkdirAll(o.out, 0o755); err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(o.out, o.name+"-split.md"), md.Bytes(), 0o644); err != nil {
		return err
	}
	js, err := json.MarshalIndent(struct {
		Command string
		Reports []*bench.SplitReport
	}{cmd, reports}, "", "  ")
	if err != nil {
		return err
	}
	return os.WriteFile(filepath.Join(o.out, o.name+"-split.json"), append(js, '\n'), 0o644)
}
