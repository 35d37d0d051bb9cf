package cuda_test

import (
	"errors"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/resident-go/resident/device/cuda"
	"github.com/resident-go/resident/device/cuda/cudatest"
	"github.com/resident-go/resident/internal/plumb"
	"github.com/resident-go/resident/internal/plumb/plumbtest"
)

// The upload, compute and download streams keep plumbtest.Streams'
// contract at drawn sizes (after the first, on spare events); after Close
// the streams are refused and a late Release is harmless.
func TestStreams(t *testing.T) {
	d := open(t, cuda.Options{})
	r := rand.New(rand.NewPCG(25, 1))
	for range 4 { // sizes drawn log-uniform from 2 bytes to 4 MiB; from the second on, on spare events
		plumbtest.Streams(t, d, 2+int(math.Exp(r.Float64()*math.Log(4<<20))))
	}
	st, late := marked(t, d, plumb.Download)
	if err := d.Close(); err != nil {
		t.Fatal(err)
	}
	if _, _, err := plumb.StreamsOf(d); !errors.Is(err, cuda.ErrClosed) {
		t.Errorf("StreamsOf a closed device: %v, want ErrClosed", err)
	}
	for _, q := range []plumb.Queue{plumb.Upload, plumb.Compute, plumb.Download} {
		if _, err := st.Mark(q); !errors.Is(err, cuda.ErrClosed) {
			t.Errorf("Mark(%d) after Close: %v, want ErrClosed", q, err)
		}
	}
	if err := st.Release(late); err != nil || st.Live() != 0 {
		t.Errorf("Release after Close: %v, %d live", err, st.Live())
	}
	lateRelease(t)
}

// lateRelease: an event released after its Device closed is destroyed
// while another Device keeps the primary context alive (the mock counts
// its bytes), and never passed to the driver once the context died and
// a new one began (the mock aborts: the handle may name the new one's
// event).
func lateRelease(t *testing.T) {
	mark := func() (*cuda.Device, plumb.Streams, plumb.Event) {
		d := open(t, cuda.Options{})
		st, e := marked(t, d, plumb.Compute)
		return d, st, e
	}
	other := open(t, cuda.Options{})
	free0, _, err := other.MemInfo()
	if err != nil {
		t.Fatal(err)
	}
	d, st, e := mark()
	if err := errors.Join(d.Close(), st.Release(e)); err != nil {
		t.Fatal(err)
	}
	if free, _, _ := other.MemInfo(); cudatest.InChild() && free != free0 {
		t.Errorf("an event released after its Device's Close, the context alive: %d bytes not freed", free0-free)
	}
	if err := other.Close(); err != nil {
		t.Fatal(err)
	}
	d, st, e = mark() // the only Device: its Close ends the context's life
	if err := d.Close(); err != nil {
		t.Fatal(err)
	}
	next := open(t, cuda.Options{})
	if err := st.Release(e); err != nil {
		t.Fatal(err)
	}
	if err := next.Close(); err != nil {
		t.Fatal(err)
	}
	if cudatest.InChild() {
		cudatest.NoLeak(t, "an event released after the last Close")
	}
}

// marked is d's streams and an event marked on queue q of them.
func marked(t *testing.T, d *cuda.Device, q plumb.Queue) (plumb.Streams, plumb.Event) {
	t.Helper()
	st, _, err := plumb.StreamsOf(d)
	if err != nil {
		t.Fatal(err)
	}
	e, err := st.Mark(q)
	if err != nil {
		t.Fatal(err)
	}
	return st, e
}
