package bench

import (
	"fmt"
	"strings"
)

// Mode is how a chain moves data between stages.
type Mode int

const (
	// Resident keeps every intermediate on the device: one upload, one
	// download per iteration.
	Resident Mode = iota
	// RoundTrip passes host-only views to every stage: one upload and one
	// download per stage.
	RoundTrip
	// Explicit is Resident plus a CopyToHost after each listed stage.
	Explicit
	// Streamed runs the chain in bands of rows with package stream: the
	// upload of a band, the stages on the band before and the download of
	// the one before that overlap, on three queues (Config.Bands bands).
	// It moves what Resident moves, one transfer per band each way. It
	// needs an OpenCL or CUDA device and a chain of image stages, the last
	// of which may sum (each band's sum comes home; the host adds them).
	Streamed
)

// Modes lists the modes a Config runs by default, in table order.
// Streamed is asked for by name (AllModes): it needs an OpenCL or CUDA
// device and a chain of image stages (the last may sum).
var Modes = []Mode{Resident, RoundTrip, Explicit}

// AllModes lists every Mode in table order.
var AllModes = []Mode{Resident, RoundTrip, Explicit, Streamed}

func (m Mode) String() string {
	switch m {
	case Resident:
		return "resident"
	case RoundTrip:
		return "roundtrip"
	case Explicit:
		return "explicit"
	case Streamed:
		return "streamed"
	}
	return fmt.Sprintf("mode%d", int(m))
}

// ParseMode reads a Mode's String form.
func ParseMode(s string) (Mode, error) {
	for _, m := range AllModes {
		if strings.EqualFold(s, m.String()) {
			return m, nil
		}
	}
	return 0, fmt.Errorf("unknown mode %q: want resident, roundtrip, explicit or streamed", s)
}

// Memory is where the chain's host storage comes from.
type Memory int

const (
	// GoMemory is ordinary Go heap memory (array.New).
	GoMemory Memory = iota
	// Pinned is the device's pinned host memory (array.NewIn with the
	// device's device.HostAllocator), which transfers need not stage.
	Pinned
)

// Memories lists every Memory in table order.
var Memories = []Memory{GoMemory, Pinned}

func (m Memory) String() string {
	switch m {
	case GoMemory:
		return "go"
	case Pinned:
		return "pinned"
	}
	return fmt.Sprintf("memory%d", int(m))
}

// ParseMemory reads a Memory's String form.
func ParseMemory(s string) (Memory, error) {
	for _, m := range Memories {
		if strings.EqualFold(s, m.String()) {
			return m, nil
		}
	}
	return 0, fmt.Errorf("unknown host memory %q: want go or pinned", s)
}

// MarshalText writes the String form, so JSON reads "resident", not 0.
func (m Mode) MarshalText() ([]byte, error) { return []byte(m.String()), nil }

// UnmarshalText reads the String form.
func (m *Mode) UnmarshalText(b []byte) (err error) {
	*m, err = ParseMode(string(b))
	return err
}

// MarshalText writes the String form.
func (m Memory) MarshalText() ([]byte, error) { return []byte(m.String()), nil }

// UnmarshalText reads the String form.
func (m *Memory) UnmarshalText(b []byte) (err error) {
	*m, err = ParseMemory(string(b))
	return err
}
