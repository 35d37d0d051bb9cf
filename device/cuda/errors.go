package cuda

import (
	"fmt"

	"github.com/resident-go/resident/device"
	"github.com/resident-go/resident/internal/cu"
)

// ErrNoCUDA is wrapped by Open's and Default's error when libcuda.so.1
// cannot be loaded, cuInit fails, or there is no CUDA device; the message
// names which.
var ErrNoCUDA = cu.ErrNoCUDA

// ErrNoBLAS is wrapped by Gemm's error when cuBLAS cannot be loaded.
var ErrNoBLAS = cu.ErrNoBLAS

// ErrClosed is returned by a Device used after Close; it wraps
// device.ErrClosed.
var ErrClosed = fmt.Errorf("cuda: %w", device.ErrClosed)

// ErrForeign is returned when an Allocation from another device (or a
// freed one) is given to a Device; it wraps device.ErrForeign.
var ErrForeign = fmt.Errorf("cuda: %w (or one already freed)", device.ErrForeign)

// Error is a failed CUDA driver or cuBLAS call (the binding's type):
// errors.As(err, new(*cuda.Error)) matches.
type Error = cu.Error
