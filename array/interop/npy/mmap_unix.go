//go:build linux || darwin || freebsd || netbsd || openbsd

package npy

import (
	"fmt"
	"os"
	"sync"
	"syscall"

	"github.com/resident-go/resident/array"
)

func mapFile[T array.Elem](f *os.File, mode MapMode) (*array.Array[T], error) {
	ext, off, n, err := mapLayout[T](f)
	if err != nil {
		return nil, err
	}
	if n == 0 {
		return array.New[T](ext...), nil
	}
	// The mapping starts at a page boundary; the data at off within it.
	page := int64(os.Getpagesize())
	start := off / page * page
	flags := syscall.MAP_PRIVATE
	if mode == WriteThrough {
		flags = syscall.MAP_SHARED
	}
	m, err := syscall.Mmap(int(f.Fd()), start, int(off-start+n), syscall.PROT_READ|syscall.PROT_WRITE, flags)
	if err != nil {
		return nil, fmt.Errorf("npy: mmap of %d bytes: %w", off-start+n, err)
	}
	blk := &mapping{m: m, data: m[off-start:]}
	a, err := array.NewOver[T](blk, ext...)
	if err != nil {
		blk.Free()
		return nil, err
	}
	return a, nil
}

// mapping is a memory map as a device.HostBlock: Bytes is the .npy data
// within it, Free unmaps it, once.
type mapping struct {
	once sync.Once
	m    []byte
	data []byte
	err  error
}

func (b *mapping) Bytes() []byte { return b.data }

func (b *mapping) Free() error {
	b.once.Do(func() { b.err = syscall.Munmap(b.m) })
	return b.err
}
