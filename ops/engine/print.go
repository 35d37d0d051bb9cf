package engine

import (
	"fmt"

	"gorgonia.org/tensor"

	"github.com/resident-go/resident/array"
)

// Formatter returns d as a fmt.Formatter that prints d's values the way
// NumPy prints an array (rows are d's last axis), where tensor's own
// String prints "Inaccesible data" for the engine's Denses:
// fmt.Sprint(engine.Formatter(d)), fmt.Printf("%.3f", …) and
// the other verbs package array's Array.Format takes. The values come from
// the device-aware Array view's HostReadOnly: printing device-newer data
// is a counted copy to host (D2H in the device's Stats), and under the
// transfer guard that copy is refused and the error is printed in place of
// the values, as %!v(…). Bool Denses print 0 and 1. A Dense of another
// engine (tensor's standard one included) prints with tensor's own
// Format.
func Formatter(d *tensor.Dense) fmt.Formatter {
	e, ok := d.Engine().(*Engine)
	if !ok {
		return d
	}
	t := d.Dtype().Type
	if a := alias(t); a != nil {
		t = a
	}
	f, err := formatFns.get(t, "Sprint")
	if err != nil {
		return errFormatter{err}
	}
	return f(e, d)
}

var formatFns = all(formatT[float32], formatT[float64], formatT[int8], formatT[int16], formatT[int32], formatT[int64], formatT[uint8], formatT[uint16], formatT[uint32], formatT[uint64])

func formatT[T array.Elem](e *Engine, d *tensor.Dense) fmt.Formatter {
	a, err := viewOf[T](e.h, d)
	if err != nil {
		return errFormatter{err}
	}
	return a
}

// errFormatter prints an error the way fmt prints a failed verb.
type errFormatter struct{ err error }

func (f errFormatter) Format(s fmt.State, verb rune) { fmt.Fprintf(s, "%%!%c(%v)", verb, f.err) }
