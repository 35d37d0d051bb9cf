package opencl

import "math/bits"

// blockCache keeps freed device buffers by size bin so a loop that frees and
// allocates the same shapes stops calling clCreateBuffer. Guarded by the
// owning state's mutex.
type blockCache struct {
	free  map[int][]uintptr // bin size → cl_mem handles
	bytes int
	limit int
}

// binSize rounds n up so that nearby sizes share a bin: multiples of 512 B up
// to 1 MiB, then four bins per power of two (at most 25% waste).
func binSize(n int) int {
	const small = 512
	if n <= 1<<20 {
		return (n + small - 1) / small * small
	}
	k := bits.Len(uint(n - 1)) // 2^(k-1) < n ≤ 2^k
	step := 1 << (k - 3)
	return (n + step - 1) / step * step
}

func (c *blockCache) get(size int) (uintptr, bool) {
	l := c.free[size]
	if len(l) == 0 {
		return 0, false
	}
	mem := l[len(l)-1]
	c.free[size] = l[:len(l)-1]
	c.bytes -= size
	return mem, true
}

// put keeps mem unless that would exceed the limit; false means the caller
// releases it.
func (c *blockCache) put(mem uintptr, size int) bool {
	if c.bytes+size > c.limit {
		return false
	}
	if c.free == nil {
		c.free = make(map[int][]uintptr)
	}
	c.free[size] = append(c.free[size], mem)
	c.bytes += size
	return true
}

// drain empties the cache and returns what it held.
func (c *blockCache) drain() (mems []uintptr, bytes int) {
	for _, l := range c.free {
		mems = append(mems, l...)
	}
	bytes = c.bytes
	c.free, c.bytes = nil, 0
	return mems, bytes
}
