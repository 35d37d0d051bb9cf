package devkit

import "math/bits"

// BlockCache keeps freed device blocks (native handles: a cl_mem, a
// CUdeviceptr) by size bin, so a loop that frees and allocates the same
// shapes stops calling the driver's allocator. Not safe for concurrent
// use: the owning device guards it with its mutex. The zero value holds
// nothing (Limit 0).
type BlockCache struct {
	free  map[int][]uintptr // bin size → handles
	bytes int
	// Limit caps the bytes held; Put refuses past it.
	Limit int
}

// BinSize rounds n up so that nearby sizes share a bin: multiples of 512 B
// up to 1 MiB, then four bins per power of two (at most 25% waste).
func BinSize(n int) int {
	const small = 512
	if n <= 1<<20 {
		return (n + small - 1) / small * small
	}
	k := bits.Len(uint(n - 1)) // 2^(k-1) < n ≤ 2^k
	step := 1 << (k - 3)
	return (n + step - 1) / step * step
}

// Get takes a block of exactly size bytes (a BinSize) from the cache.
func (c *BlockCache) Get(size int) (uintptr, bool) {
	l := c.free[size]
	if len(l) == 0 {
		return 0, false
	}
	h := l[len(l)-1]
	c.free[size] = l[:len(l)-1]
	c.bytes -= size
	return h, true
}

// Put keeps h unless that would exceed the limit; false means the caller
// releases it.
func (c *BlockCache) Put(h uintptr, size int) bool {
	if c.bytes+size > c.Limit {
		return false
	}
	if c.free == nil {
		c.free = make(map[int][]uintptr)
	}
	c.free[size] = append(c.free[size], h)
	c.bytes += size
	return true
}

// Drain empties the cache and returns what it held.
func (c *BlockCache) Drain() (hs []uintptr, bytes int) {
	for _, l := range c.free {
		hs = append(hs, l...)
	}
	bytes = c.bytes
	c.free, c.bytes = nil, 0
	return hs, bytes
}
