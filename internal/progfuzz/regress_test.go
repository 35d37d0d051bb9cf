package progfuzz

import (
	"errors"
	"testing"

	"github.com/resident-go/resident/array"
	"github.com/resident-go/resident/ops"
)

// TestOnAfterClose: ops.On of a closed Array (or a view of one) must return
// an error wrapping array.ErrClosed or panic with one; it returned nil.
// Found by FuzzProgram (seed Close-0).
func TestOnAfterClose(t *testing.T) {
	openDevices()
	if clDev == nil {
		t.Skip("no OpenCL device:", devErr)
	}
	r := array.New[uint8](6, 4)
	v := r.Permute(1, 0)
	r.Close()
	for _, b := range []array.Buffer{r, v} {
		var err error
		func() {
			defer func() {
				if p := recover(); p != nil {
					err, _ = p.(error)
				}
			}()
			err = ops.On(clDev, b)
		}()
		if !errors.Is(err, array.ErrClosed) {
			t.Errorf("ops.On(cl, %v of a closed root): got %v, want an error wrapping array.ErrClosed", b.Raw().Dims(), err)
		}
	}
}
