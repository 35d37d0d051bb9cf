package devkit

import (
	"sync/atomic"

	"github.com/resident-go/resident/device"
)

// Counters is the atomic form of device.Stats that Device implementations hold.
// The zero value is ready to use.
type Counters struct {
	allocsLive, allocsTotal, bytesLive atomic.Int64
	h2dCalls, h2dBytes                 atomic.Int64
	d2hCalls, d2hBytes                 atomic.Int64
	d2dCalls, d2dBytes                 atomic.Int64
	peerCalls, peerBytes               atomic.Int64
	cacheHits, cacheMisses, cached     atomic.Int64
	launches                           atomic.Int64
}

// Alloc records a new live allocation of n bytes.
func (c *Counters) Alloc(n int) {
	c.allocsLive.Add(1)
	c.allocsTotal.Add(1)
	c.bytesLive.Add(int64(n))
}

// Release records that a live allocation of n bytes ended.
func (c *Counters) Release(n int) {
	c.allocsLive.Add(-1)
	c.bytesLive.Add(-int64(n))
}

// H2D records a host-to-device transfer of n bytes.
func (c *Counters) H2D(n int) { c.h2dCalls.Add(1); c.h2dBytes.Add(int64(n)) }

// D2H records a device-to-host transfer of n bytes.
func (c *Counters) D2H(n int) { c.d2hCalls.Add(1); c.d2hBytes.Add(int64(n)) }

// D2D records a copy of n bytes within the device.
func (c *Counters) D2D(n int) { c.d2dCalls.Add(1); c.d2dBytes.Add(int64(n)) }

// Peer records a copy of n bytes into the device from another device.
func (c *Counters) Peer(n int) { c.peerCalls.Add(1); c.peerBytes.Add(int64(n)) }

// Launch records one piece of work queued or run on the device.
func (c *Counters) Launch() { c.launches.Add(1) }

// CacheHit records an allocation served from the cache.
func (c *Counters) CacheHit() { c.cacheHits.Add(1) }

// CacheMiss records an allocation the cache could not serve.
func (c *Counters) CacheMiss() { c.cacheMisses.Add(1) }

// Cached adds delta bytes to the bytes held by the cache.
func (c *Counters) Cached(delta int) { c.cached.Add(int64(delta)) }

// Snapshot returns the counters as Stats.
func (c *Counters) Snapshot() device.Stats {
	return device.Stats{
		AllocsLive: c.allocsLive.Load(), AllocsTotal: c.allocsTotal.Load(), BytesLive: c.bytesLive.Load(),
		H2DCalls: c.h2dCalls.Load(), H2DBytes: c.h2dBytes.Load(),
		D2HCalls: c.d2hCalls.Load(), D2HBytes: c.d2hBytes.Load(),
		D2DCalls: c.d2dCalls.Load(), D2DBytes: c.d2dBytes.Load(),
		PeerCalls: c.peerCalls.Load(), PeerBytes: c.peerBytes.Load(),
		CacheHits: c.cacheHits.Load(), CacheMisses: c.cacheMisses.Load(), CachedBytes: c.cached.Load(),
		Launches: c.launches.Load(),
	}
}

// Transfer records a host-to-device (write) or device-to-host transfer of
// n bytes.
func (c *Counters) Transfer(write bool, n int) {
	if write {
		c.H2D(n)
	} else {
		c.D2H(n)
	}
}
