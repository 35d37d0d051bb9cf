package guard

import (
	"context"
	"testing"
)

// TestLayers: the process-wide switch, a device's own guard and a
// context's each refuse on their own, and each leaves the others alone.
func TestLayers(t *testing.T) {
	d0, d1 := new(int), new(int)
	if Set(true) || !On() || !OnDevice(nil) || !Any() {
		t.Fatal("Set(true): want the process-wide guard on, was off")
	}
	if !Set(false) || On() || OnDevice(d0) || Any() {
		t.Fatal("Set(false) did not report the previous state or left a guard on")
	}
	if SetDevice(d1, true) || !OnDevice(d1) || OnDevice(d0) || OnDevice(nil) || !Any() {
		t.Fatal("SetDevice(d1, true): want d1 alone guarded")
	}
	if !SetDevice(d1, false) || OnDevice(d1) || Any() {
		t.Fatal("SetDevice(d1, false) did not report the previous state or left the guard on")
	}
	if SetDevice(nil, true) || Any() {
		t.Fatal("a nil device has no guard of its own")
	}
	ctx := With(context.Background())
	if !InContext(ctx) || !Refused(ctx, d0) || InContext(context.Background()) || InContext(nil) || Refused(nil, d0) {
		t.Fatal("With: want the context alone to carry the guard")
	}
}
