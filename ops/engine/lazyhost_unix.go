//go:build unix

package engine

import (
	"fmt"
	"syscall"
	"unsafe"

	"github.com/resident-go/resident/device"
	"github.com/resident-go/resident/internal/uffd"
)

// lazyHost maps n bytes of anonymous memory: zero, page-aligned, and
// backed by pages only where touched, so a result that never comes home
// costs one mapping and no host pass. Where writes can be watched, the
// mapping's pages are watched for its life (trip): the pool hands it from
// result to result still protected, so a result that stays on the device
// costs no protection of its own.
func lazyHost(_ device.Device, n int) (device.HostBlock, error) {
	b, err := syscall.Mmap(-1, 0, n, syscall.PROT_READ|syscall.PROT_WRITE, syscall.MAP_ANON|syscall.MAP_PRIVATE)
	if err != nil {
		return nil, fmt.Errorf("mapping %d bytes of host memory: %w", n, err)
	}
	m := &mapped{b: b}
	if uffd.Available() {
		p, l := uintptr(unsafe.Pointer(unsafe.SliceData(b))), (uintptr(n)+pageSize-1)&^(pageSize-1)
		if uffd.RegisterFill(p, l) == nil {
			m.w, _ = uffd.New(p, l)
		}
	}
	return m, nil
}

// mapped is memory from lazyHost, and the watch over its pages (nil where
// there is none).
type mapped struct {
	b []byte
	w *uffd.Watch
}

func (m *mapped) Bytes() []byte          { return m.b }
func (m *mapped) pageWatch() *uffd.Watch { return m.w }
func (m *mapped) Free() error {
	if m.w != nil {
		m.w.Close()
	}
	return syscall.Munmap(m.b)
}
