package sim

import (
	"fmt"

	"github.com/resident-go/resident/internal/devkit"
)

// The capture side (package device/capture): a recorded replay. Every
// launch (Run) and transfer runs as it comes and is recorded as the same
// call, which a replay makes again; Run's functions keep their scalars,
// so a sim Graph has no kernel arguments to update.

var _ devkit.Capturer = (*Device)(nil)

// beginCapture starts recording d's launches and transfers into rec
// (devkit.Capture).
func (d *Device) beginCapture(rec *devkit.Recording) error {
	if !d.gate.Enter() {
		return ErrClosed
	}
	defer d.gate.Leave()
	return d.capture.Begin("sim: "+d.Name(), rec)
}

// endCapture stops recording into rec; the replay makes the recorded
// calls again.
func (d *Device) endCapture(rec *devkit.Recording) (devkit.Replayer, error) {
	if !d.capture.End(rec) {
		return nil, fmt.Errorf("sim: EndCapture on %s without its BeginCapture", d.Name())
	}
	return &devkit.ReplaySteps{Gate: &d.gate, ErrClosed: ErrClosed, Steps: rec.Steps()}, nil
}

// record adds a step that makes a call again, while a capture is on.
func (d *Device) record(name string, again func() error) {
	if rec := d.capture.Load(); rec != nil {
		rec.Add(&devkit.Step{Name: name, Run: func([]any) error { return again() }})
	}
}
