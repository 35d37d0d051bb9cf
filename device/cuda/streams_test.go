package cuda_test

import (
	"errors"
	"testing"

	"github.com/resident-go/resident/device/cuda"
	"github.com/resident-go/resident/internal/plumb"
	"github.com/resident-go/resident/internal/plumb/plumbtest"
)

// The upload, compute and download streams keep plumbtest.Streams'
// contract, twice (the second time on spare events); after Close the
// streams are refused and a late Release is harmless.
func TestStreams(t *testing.T) {
	d := open(t, cuda.Options{})
	plumbtest.Streams(t, d, 3<<20+17)
	plumbtest.Streams(t, d, 1<<10)
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
