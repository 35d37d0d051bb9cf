package cuda_test

import (
	"errors"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/resident-go/resident/device/cuda"
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
	st, _, err := plumb.StreamsOf(d)
	if err != nil {
		t.Fatal(err)
	}
	late, err := st.Mark(plumb.Download)
	if err != nil {
		t.Fatal(err)
	}
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
}
