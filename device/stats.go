package device

import "fmt"

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
