package opencl

import (
	"sync"
	"testing"
)

// Closes at once from many goroutines run close's work once; each returns
// only after the device is closed and everything is freed (a second Close
// used to return early, reading closeErr while the first wrote it).
func TestConcurrentClose(t *testing.T) {
	for range 20 {
		d := open(t, Options{})
		for range 4 {
			a, err := d.Malloc(1 << 12)
			if err != nil {
				t.Fatal(err)
			}
			_ = a
		}
		var wg sync.WaitGroup
		for range 8 {
			wg.Add(1)
			go func() {
				defer wg.Done()
				if err := d.Close(); err != nil {
					t.Error(err)
				}
				if s := d.Stats(); s.AllocsLive != 0 || !d.Closed() {
					t.Errorf("Close returned with %d allocations live, closed %v", s.AllocsLive, d.Closed())
				}
			}()
		}
		wg.Wait()
	}
}
