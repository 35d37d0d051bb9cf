//go:build unix

package engine

import (
	"fmt"
	"syscall"

	"github.com/resident-go/resident/device"
)

// lazyHost maps n bytes of anonymous memory: zero, page-aligned, and
// backed by pages only where touched, so a result that never comes home
// costs one mapping and no host pass.
func lazyHost(_ device.Device, n int) (device.HostBlock, error) {
	b, err := syscall.Mmap(-1, 0, n, syscall.PROT_READ|syscall.PROT_WRITE, syscall.MAP_ANON|syscall.MAP_PRIVATE)
	if err != nil {
		return nil, fmt.Errorf("mapping %d bytes of host memory: %w", n, err)
	}
	return mapped(b), nil
}

// mapped is memory from lazyHost.
type mapped []byte

func (m mapped) Bytes() []byte { return m }
func (m mapped) Free() error   { return syscall.Munmap(m) }
