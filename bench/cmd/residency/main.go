package main

import (
	"bytes"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/resident-go/resident/bench"
	"github.com/resident-go/resident/device"
	"github.com/resident-go/resident/device/opencl"
	"github.com/resident-go/resident/device/sim"
	_ "github.com/resident-go/resident/halide/examples/brighter" // registers the "brighter" pipeline the chains run
)

func main() {
	o, err := parseFlags(os.Args[1:], os.Stderr)
	if errors.Is(err, flag.ErrHelp) {
		os.Exit(0)
	}
	if err != nil {
		fmt.Fprintf(os.Stderr, "residency: %v\n(run with -h for every flag)\n", err)
		os.Exit(2)
	}
	cmd := strings.Join(append([]string{filepath.Base(os.Args[0])}, os.Args[1:]...), " ")
	if err := run(o, cmd, os.Stdout, os.Stderr); err != nil {
		fmt.Fprintf(os.Stderr, "residency: %v\n", err)
		os.Exit(1)
	}
}

// run benchmarks what o describes and writes the table to stdout and the
// files under o.out.
func run(o options, cmd string, stdout, stderr io.Writer) error {
	cfg := bench.Config{
		Width: o.width, Height: o.height, Modes: o.modes, Memories: o.memories, Sync: o.sync,
		Ladder: o.ladder, Warmup: o.warmup, Reps: o.reps, Bands: o.bands, First: o.first, Last: o.last,
	}
	if o.trace != "" {
		f, err := os.Create(o.trace)
		if err != nil {
			return err
		}
		defer f.Close()
		cfg.Trace = f
	}
	var torch *bench.Torch
	if o.torch != "" {
		f, err := os.Open(o.torch)
		if err != nil {
			return err
		}
		torch, err = bench.ReadTorch(f)
		f.Close()
		if err != nil {
			return err
		}
	}
	cpu := true
	mixed := o.chain == "mixed"
	switch o.device {
	case "cuda":
		s, dev, err := bench.BrighterCUDA(uint8(o.k))
		if err != nil {
			return err
		}
		cfg.Stages, cfg.Device, cpu = bench.Repeat(s, o.stages), dev, false
		if mixed && o.fuse {
			cfg.Stages, err = bench.MixedFusedOn(dev, uint8(o.k), float32(o.scale))
		} else if mixed {
			cfg.Stages, err = bench.MixedOn(dev, uint8(o.k), float32(o.scale))
		}
		if err != nil {
			return err
		}
	case "sim":
		d := sim.New("bench", 0)
		defer d.Close()
		cfg.Device = d
		if mixed && o.fuse {
			cfg.Stages = bench.SimMixedFused(d, uint8(o.k), float32(o.scale))
		} else if mixed {
			cfg.Stages = bench.SimMixed(d, uint8(o.k), float32(o.scale))
		} else {
			cfg.Stages = bench.Repeat(bench.SimBrighter(d, uint8(o.k)), o.stages)
		}
	default:
		// The Halide runtime shares opencl.Default(), which reads these,
		// as opencl.Several does for the split.
		if o.platform != "" {
			os.Setenv(opencl.EnvPlatformName, o.platform)
		}
		if o.devType != "" {
			os.Setenv(opencl.EnvDeviceType, o.devType)
		}
		if o.devices > 1 {
			return runSplit(o, cmd, stdout, stderr)
		}
		var dev device.Device
		var err error
		if mixed && o.fuse {
			cfg.Stages, dev, err = bench.MixedFused(uint8(o.k), float32(o.scale))
		} else if mixed {
			cfg.Stages, dev, err = bench.Mixed(uint8(o.k), float32(o.scale))
		} else {
			var s bench.Stage
			s, dev, err = bench.Brighter(uint8(o.k))
			cfg.Stages = bench.Repeat(s, o.stages)
		}
		if err != nil {
			return err
		}
		cfg.Device = dev
		if d, ok := dev.(*opencl.Device); ok {
			cpu = d.Type()&opencl.DeviceGPU == 0
		}
	}
	if cfg.Reps == 0 {
		cfg.Reps = 30
		if cpu {
			cfg.Reps = 7
		}
	}
	if !o.quiet {
		cfg.Progress = bench.LineProgress(stderr)
		chain := fmt.Sprintf("%d × %s", o.stages, cfg.Stages[0].Name)
		if mixed {
			var names []string
			for _, s := range cfg.Stages {
				names = append(names, s.Name)
			}
			chain = strings.Join(names, " → ")
		}
		fmt.Fprintf(stderr, "residency: %s, %s on %d×%d uint8, %d repetitions\n", cfg.Device.Name(), chain, o.width, o.height, cfg.Reps)
	}
	rep, err := bench.Run(cfg)
	if err != nil {
		return err
	}
	rep.Command = cmd
	var table bytes.Buffer
	if err := bench.WriteTable(&table, rep, o.all); err != nil {
		return err
	}
	if torch != nil {
		if err := bench.WriteComparison(&table, rep, torch); err != nil {
			return err
		}
	}
	if _, err := stdout.Write(table.Bytes()); err != nil {
		return err
	}
	if o.out == "" {
		return nil
	}
	return writeFiles(o.out, o.name, rep, table.Bytes())
}

func writeFiles(dir, name string, rep *bench.Report, table []byte) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	files := []struct {
		ext   string
		write func(io.Writer) error
	}{
		{".md", func(w io.Writer) error { _, err := w.Write(table); return err }},
		{".csv", func(w io.Writer) error { return bench.WriteCSV(w, rep) }},
		{".json", func(w io.Writer) error { return bench.WriteJSON(w, rep) }},
		{".png", func(w io.Writer) error { return bench.WritePlot(w, rep) }},
	}
	for _, f := range files {
		if err := writeFile(filepath.Join(dir, name+f.ext), f.write); err != nil {
			return err
		}
	}
	return nil
}

func writeFile(path string, write func(io.Writer) error) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	if err := write(f); err != nil {
		f.Close()
		return fmt.Errorf("writing %s: %w", path, err)
	}
	return f.Close()
}
