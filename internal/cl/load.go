package cl

import (
	"fmt"
	"sync"
)

var (
	loadOnce sync.Once
	loadErr  error
)

// Load opens the OpenCL ICD loader (libOpenCL.so.1) with RTLD_GLOBAL, so a
// Halide runtime in the same process uses the same entry points instead of
// dlopening the unversioned libOpenCL.so, which may list fewer platforms.
// It is idempotent and safe for concurrent use; every constructor in this
// package calls it. The error wraps ErrNoOpenCL.
func Load() error {
	loadOnce.Do(func() {
		if err := clLoad(); err != nil {
			loadErr = fmt.Errorf("%w (%v)", ErrNoOpenCL, err)
		}
	})
	return loadErr
}
