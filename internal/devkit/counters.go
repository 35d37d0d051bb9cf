package devkit

import (
	"reflect"
	"sync/atomic"

	"github.com/resident-go/resident/device"
	"github.com/resident-go/resident/internal/uffd"
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
	// fillKey names the device's page fills (internal/uffd's Tally): D2H
	// transfers a C thread made, added at each Snapshot.
	fillKey uintptr
}

// FillKey is the key a device's page fills are counted under: the
// device's address (its sources name it with Source.Counted).
func FillKey(d device.Device) uintptr { return reflect.ValueOf(d).Pointer() }

// CountFills makes the page fills from d's memory part of c's D2H
// counts; before any use of c.
func (c *Counters) CountFills(d device.Device) { c.fillKey = FillKey(d) }

// EndFills folds the page fills into c's own counts and forgets them,
// when the device closes: another device may get its address.
func (c *Counters) EndFills() {
	if c.fillKey != 0 {
		calls, bytes := uffd.Tally(c.fillKey, true)
		c.d2hCalls.Add(calls)
		c.d2hBytes.Add(bytes)
	}
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
	var fc, fb int64
	if c.fillKey != 0 {
		fc, fb = uffd.Tally(c.fillKey, false)
	}
	return device.Stats{
		AllocsLive: c.allocsLive.Load(), AllocsTotal: c.allocsTotal.Load(), BytesLive: c.bytesLive.Load(),
		H2DCalls: c.h2dCalls.Load(), H2DBytes: c.h2dBytes.Load(),
		D2HCalls: c.d2hCalls.Load() + fc, D2HBytes: c.d2hBytes.Load() + fb,
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
