package devkit

import (
	"strings"
	"testing"
)

func TestCounters(t *testing.T) {
	var c Counters
	c.Alloc(100)
	c.H2D(10)
	before := c.Snapshot()
	c.H2D(20)
	c.D2H(5)
	c.D2D(7)
	c.CacheHit()
	c.CacheMiss()
	c.Cached(64)
	c.Release(100)
	d := c.Snapshot().Sub(before)
	if d.H2DCalls != 1 || d.H2DBytes != 20 || d.D2HBytes != 5 || d.D2DBytes != 7 || d.AllocsLive != 0 || d.CacheHits != 1 || d.CachedBytes != 64 {
		t.Fatalf("delta %v", d)
	}
	if got := d.String(); !strings.Contains(got, "H2D 1 calls 20 B; D2H 1 calls 5 B") {
		t.Fatalf("String %q", got)
	}
}
