package devkit

import (
	"fmt"

	"github.com/resident-go/resident/device"
)

// Malloc is a backend's Malloc: a block of the size bin of bytes, from the
// cache when a freed one is there (a miss counted unless noCache), else
// from the driver, which gets one more try after the cache is freed when
// it is out of memory. fit, when not nil, checks n (bytes, at least 1)
// against the device's limit and returns the block size to use.
func Malloc[D Dev](c *Core, dev D, bytes int, noCache bool, fit func(n int) (size int, err error)) (device.Allocation, error) {
	if bytes < 0 {
		return nil, fmt.Errorf("%s: Malloc(%d): %w", c.Pkg, bytes, device.ErrOutOfRange)
	}
	if err := c.Enter(); err != nil {
		return nil, err
	}
	defer c.Gate.Leave()
	n := max(bytes, 1)
	size := BinSize(n)
	if fit != nil {
		var err error
		if size, err = fit(n); err != nil {
			return nil, err
		}
	}
	h, hit, err := c.Pool.Take(size, !noCache)
	if err != nil {
		return nil, err
	}
	if !hit {
		h, err = c.drv.NewBlock(size)
		if c.drv.OutOfMemory(err) {
			c.ReleaseCache()
			h, err = c.drv.NewBlock(size)
		}
		if err != nil {
			return nil, fmt.Errorf("%s: Malloc(%d) on %s: %w", c.Pkg, bytes, c.Name, err)
		}
	}
	return TrackRoot(c, dev, &Root{H: h, Size: size, User: bytes})
}

// TrackRoot makes r live and returns its whole-root allocation; on a
// device closed meanwhile it releases r's block instead, so nothing leaks.
func TrackRoot[D Dev](c *Core, dev D, r *Root) (device.Allocation, error) {
	a, ok := Track(&c.Pool, dev, r)
	if !ok {
		c.drv.FreeBlock(r.H)
		return nil, c.ErrClosed
	}
	return a, nil
}

// FreeAlloc releases dev's allocation or crop a: its root goes to the
// cache, or to the driver, once the root and all its crops are freed.
// Freeing twice, or after Close, does nothing.
func FreeAlloc[D Dev](c *Core, dev D, a device.Allocation) error {
	if err := c.Enter(); err != nil {
		return nil // Close freed it
	}
	defer c.Gate.Leave()
	r, err := Free(&c.Pool, dev, a)
	if r == nil || err != nil {
		return err
	}
	return c.drv.FreeBlock(r.H)
}

// CropAlloc is Crop with the backend's name on its errors.
func CropAlloc[D Dev](c *Core, dev D, a device.Allocation, off, bytes int) (device.Allocation, error) {
	x, err := Crop(&c.Pool, dev, a, off, bytes)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", c.Pkg, err)
	}
	return x, nil
}
