package capture

import (
	"bytes"
	"encoding/binary"
	"fmt"

	"github.com/resident-go/resident/device"
	"github.com/resident-go/resident/internal/devkit"
)

// Scalar is a kernel argument of a Graph that Set changes for later
// replays, without recording again.
type Scalar struct {
	g    *Graph
	size int
	at   []argRef
}

type argRef struct {
	s *devkit.Step
	i int
}

// Scalar finds the kernel arguments recorded with the value v (a
// fixed-size integer or float of the element type the op took: the
// factor of ops.BinaryScalar(…, ops.OpMul) on float32 Arrays is a float32) and returns
// them as one Scalar. Record with a value that no other argument has
// (0.123 rather than 1): every argument with the same bytes is found.
// None found is an error wrapping ErrCapture; so is a device/sim Graph,
// whose recorded steps are Go functions with their scalars inside.
func (g *Graph) Scalar(v any) (*Scalar, error) {
	want, err := scalarBytes(v)
	if err != nil {
		return nil, err
	}
	sc := &Scalar{g: g, size: len(want)}
	for _, s := range g.st.rec.Steps() {
		for i, a := range s.Args {
			if b, ok := argBytes(a); ok && bytes.Equal(b, want) {
				sc.at = append(sc.at, argRef{s, i})
			}
		}
	}
	if len(sc.at) == 0 {
		return nil, fmt.Errorf("capture: no kernel argument of the Graph on %s was recorded with the value %v (%T): %w", g.st.dev.Name(), v, v, ErrCapture)
	}
	return sc, nil
}

// Uses is the number of kernel arguments s sets.
func (s *Scalar) Uses() int { return len(s.at) }

// Set makes every argument of s v in later replays; v has the size of
// the value s was found with (a float32 for a float32).
func (s *Scalar) Set(v any) error {
	b, err := scalarBytes(v)
	if err != nil {
		return err
	}
	if len(b) != s.size {
		return fmt.Errorf("capture: Scalar.Set(%v): a %T (%d bytes) for a %d-byte argument: pass the type it was recorded with: %w", v, v, len(b), s.size, device.ErrOutOfRange)
	}
	st := s.g.st
	st.mu.Lock()
	defer st.mu.Unlock()
	if st.closed {
		return fmt.Errorf("capture: Scalar.Set on a closed Graph: %w", device.ErrClosed)
	}
	for _, r := range s.at {
		if err := st.rp.SetArg(r.s, r.i, b); err != nil {
			return fmt.Errorf("capture: Scalar.Set on %s: %w", st.dev.Name(), err)
		}
	}
	return nil
}

// scalarBytes is v's bytes as a kernel takes them (little-endian).
func scalarBytes(v any) ([]byte, error) {
	switch v.(type) {
	case int8, uint8, int16, uint16, int32, uint32, int64, uint64, float32, float64:
		var buf bytes.Buffer
		binary.Write(&buf, binary.LittleEndian, v)
		return buf.Bytes(), nil
	}
	return nil, fmt.Errorf("capture: a scalar of type %T: fixed-size integers and floats are kernel arguments: %w", v, device.ErrOutOfRange)
}

// argBytes is a recorded scalar argument's bytes; false for buffers and
// local memory.
func argBytes(a any) ([]byte, bool) {
	switch a := a.(type) {
	case []byte:
		return a, true
	case device.Buffer, device.Local:
		return nil, false
	}
	b, err := scalarBytes(a)
	return b, err == nil
}
