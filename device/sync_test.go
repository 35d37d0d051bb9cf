package device_test

import (
	"context"
	"errors"
	"runtime"
	"sync/atomic"
	"testing"
	"time"

	"github.com/resident-go/resident/array"
	"github.com/resident-go/resident/device"
	"github.com/resident-go/resident/device/opencl"
	"github.com/resident-go/resident/device/sim"
	"github.com/resident-go/resident/ops"
)

// blockingSync is a device whose Sync waits until release is closed, as a
// driver's wait does for a long queue.
type blockingSync struct {
	device.Device
	release chan struct{}
	entered atomic.Int32
}

func (b *blockingSync) Sync() error {
	b.entered.Add(1)
	<-b.release
	return b.Device.Sync()
}

// TestSyncContext: a done ctx returns its error without waiting; a cancel
// while the device works returns at once, the wait ending on its own once
// the queue drains (no goroutine left); a deadline reports itself; after
// a cancel the device syncs as usual; a ctx never done is a plain Sync.
func TestSyncContext(t *testing.T) {
	s := sim.New("sync", 0)
	defer s.Close()
	d := &blockingSync{Device: s, release: make(chan struct{})}
	base := runtime.NumGoroutine()

	done, cancel := context.WithCancel(context.Background())
	cancel()
	if err := device.SyncContext(done, d); !errors.Is(err, context.Canceled) || d.entered.Load() != 0 {
		t.Errorf("a done ctx: %v, %d waits begun; want context.Canceled and none", err, d.entered.Load())
	}

	ctx, cancel := context.WithCancel(context.Background())
	time.AfterFunc(20*time.Millisecond, cancel)
	t0 := time.Now()
	if err := device.SyncContext(ctx, d); !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled while waiting: %v, want context.Canceled", err)
	}
	if el := time.Since(t0); el > 2*time.Second {
		t.Errorf("the cancelled wait returned after %v", el)
	}
	tctx, tcancel := context.WithTimeout(context.Background(), 10*time.Millisecond)
	defer tcancel()
	if err := device.SyncContext(tctx, d); !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("past its deadline: %v, want context.DeadlineExceeded", err)
	}
	close(d.release) // the queue drains: the abandoned waits end
	deadline := time.Now().Add(2 * time.Second)
	for runtime.NumGoroutine() > base && time.Now().Before(deadline) {
		time.Sleep(time.Millisecond)
	}
	if n := runtime.NumGoroutine(); n > base {
		t.Errorf("%d goroutines left, %d before", n, base)
	}
	if err := device.SyncContext(context.Background(), d); err != nil {
		t.Errorf("a plain Sync after the cancels: %v", err)
	}
	live, lcancel := context.WithCancel(context.Background())
	defer lcancel()
	if err := device.SyncContext(live, d); err != nil {
		t.Errorf("a live ctx on an idle device: %v", err)
	}
}

// TestWithGuard: a ctx from WithGuard guards every device for the calls
// given it, and nothing else: the process-wide and per-device guards stay
// as they were.
func TestWithGuard(t *testing.T) {
	s := sim.New("guard", 0)
	defer s.Close()
	ctx := device.WithGuard(context.Background())
	if !device.Guarded(ctx, s) || !device.Guarded(ctx, nil) {
		t.Error("WithGuard's ctx: not guarded")
	}
	if device.Guarded(context.Background(), s) || device.Guarded(nil, s) || device.Guarded(nil, nil) {
		t.Error("a plain ctx, or the process, is guarded")
	}
	was := device.SetDeviceGuard(s, true)
	defer device.SetDeviceGuard(s, was)
	if !device.Guarded(context.Background(), s) {
		t.Error("a device's own guard does not show through Guarded")
	}
}

// On a real device (PoCL in CI), a wait abandoned under a short deadline
// leaves the device consistent: the queued ops finish, a plain Sync after
// it works, the results are right, and no goroutine stays behind.
func TestSyncContextDevice(t *testing.T) {
	d, err := opencl.Default()
	if err != nil {
		t.Skip(err)
	}
	const n = 1 << 20
	a, b := array.New[float32](n), array.New[float32](n)
	defer a.Close()
	defer b.Close()
	if err := ops.Fill(a, 1); err != nil {
		t.Fatal(err)
	}
	if err := ops.On(d, a, b); err != nil {
		t.Fatal(err)
	}
	if err := ops.Fill(b, 0); err != nil {
		t.Fatal(err)
	}
	if err := d.Sync(); err != nil {
		t.Fatal(err)
	}
	base := runtime.NumGoroutine()
	for range 16 {
		if err := ops.Binary(b, b, a, ops.OpAdd); err != nil {
			t.Fatal(err)
		}
	}
	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Microsecond)
	defer cancel()
	t0 := time.Now()
	err = device.SyncContext(ctx, d)
	if err != nil && !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("SyncContext under a deadline: %v", err)
	}
	t.Logf("SyncContext under a 50 µs deadline: %v after %v", err, time.Since(t0))
	if err := d.Sync(); err != nil {
		t.Fatalf("Sync after an abandoned wait: %v", err)
	}
	if got, err := ops.Value(ops.Sum, b); err != nil || got != 16*n {
		t.Errorf("after the abandoned wait: sum %v (%v), want %d", got, err, 16*n)
	}
	deadline := time.Now().Add(2 * time.Second)
	for runtime.NumGoroutine() > base && time.Now().Before(deadline) {
		time.Sleep(time.Millisecond)
	}
	if g := runtime.NumGoroutine(); g > base {
		t.Errorf("%d goroutines left, %d before", g, base)
	}
}
