package device

import (
	"fmt"
	"sync/atomic"
)

// Stats counts a device's allocations and transfers since it was opened.
// H2D is host to device, D2H device to host, D2D within the device, Peer
// from another device into this one without the host (CopyBetween). Cache
// fields are for devices with a caching allocator: a hit reuses a freed
// block, a miss allocates anew, CachedBytes is held but unused. Launches
// counts the work queued or run on the device: package ops' kernel
// launches and device copies, pipeline calls, a simulated device's runs.
type Stats struct {
	AllocsLive, AllocsTotal int64
	BytesLive               int64
	H2DCalls, H2DBytes      int64
	D2HCalls, D2HBytes      int64
	D2DCalls, D2DBytes      int64
	PeerCalls, PeerBytes    int64
	CacheHits, CacheMisses  int64
	CachedBytes             int64
	Launches                int64
}

// Sub returns the counts accumulated between t and s; live and cached
// figures are levels, so they are taken from s as they are.
func (s Stats) Sub(t Stats) Stats {
	return Stats{
		AllocsLive: s.AllocsLive, AllocsTotal: s.AllocsTotal - t.AllocsTotal,
		BytesLive: s.BytesLive,
		H2DCalls:  s.H2DCalls - t.H2DCalls, H2DBytes: s.H2DBytes - t.H2DBytes,
		D2HCalls: s.D2HCalls - t.D2HCalls, D2HBytes: s.D2HBytes - t.D2HBytes,
		D2DCalls: s.D2DCalls - t.D2DCalls, D2DBytes: s.D2DBytes - t.D2DBytes,
		PeerCalls: s.PeerCalls - t.PeerCalls, PeerBytes: s.PeerBytes - t.PeerBytes,
		CacheHits: s.CacheHits - t.CacheHits, CacheMisses: s.CacheMisses - t.CacheMisses,
		CachedBytes: s.CachedBytes,
		Launches:    s.Launches - t.Launches,
	}
}

func (s Stats) String() string {
	return fmt.Sprintf("allocs live %d (%d B) total %d; H2D %d calls %d B; D2H %d calls %d B; D2D %d calls %d B; peer %d calls %d B; cache hits %d misses %d cached %d B; launches %d",
		s.AllocsLive, s.BytesLive, s.AllocsTotal, s.H2DCalls, s.H2DBytes, s.D2HCalls, s.D2HBytes, s.D2DCalls, s.D2DBytes, s.PeerCalls, s.PeerBytes, s.CacheHits, s.CacheMisses, s.CachedBytes, s.Launches)
}

// Counters is the atomic form of Stats that Device implementations embed.
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
func (c *Counters) Snapshot() Stats {
	return Stats{
		AllocsLive: c.allocsLive.Load(), AllocsTotal: c.allocsTotal.Load(), BytesLive: c.bytesLive.Load(),
		H2DCalls: c.h2dCalls.Load(), H2DBytes: c.h2dBytes.Load(),
		D2HCalls: c.d2hCalls.Load(), D2HBytes: c.d2hBytes.Load(),
		D2DCalls: c.d2dCalls.Load(), D2DBytes: c.d2dBytes.Load(),
		PeerCalls: c.peerCalls.Load(), PeerBytes: c.peerBytes.Load(),
		CacheHits: c.cacheHits.Load(), CacheMisses: c.cacheMisses.Load(), CachedBytes: c.cached.Load(),
		Launches: c.launches.Load(),
	}
}
