package opencl

import (
	"errors"
	"math"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/resident-go/resident/internal/cl"
	"github.com/resident-go/resident/internal/plumb"
	"github.com/resident-go/resident/internal/plumb/plumbtest"
)

// The three stream queues keep plumbtest.Streams' contract at drawn
// sizes, and Close releases the extra queues (the caller's context is
// back to its references).
func TestStreams(t *testing.T) {
	owner := open(t, Options{})
	ctx, err := cl.CreateContext(owner.clDeviceID())
	if err != nil {
		t.Fatal(err)
	}
	defer ctx.Release()
	q, err := ctx.CreateQueue(owner.clDeviceID(), 0)
	if err != nil {
		t.Fatal(err)
	}
	defer q.Release()
	before, err := ctx.ReferenceCount()
	if err != nil {
		t.Fatal(err)
	}
	d, err := Wrap(ctx.Handle(), q.Handle(), Options{})
	if err != nil {
		t.Fatal(err)
	}
	r := rand.New(rand.NewPCG(24, 9))
	for range 3 { // sizes drawn log-uniform from 2 bytes to 4 MiB
		plumbtest.Streams(t, d, 2+int(math.Exp(r.Float64()*math.Log(4<<20))))
	}
	st, _, err := plumb.StreamsOf(d)
	if err != nil {
		t.Fatal(err)
	}
	if err := d.Close(); err != nil {
		t.Fatal(err)
	}
	if _, _, err := plumb.StreamsOf(d); !errors.Is(err, ErrClosed) {
		t.Errorf("Streams on a closed device: %v, want ErrClosed", err)
	}
	if _, err := st.Mark(plumb.Upload); !errors.Is(err, ErrClosed) {
		t.Errorf("Mark after Close: %v, want ErrClosed", err)
	}
	// PoCL drops the references its finished commands hold on the context
	// from its own threads, a little after Close under load: wait for them
	// (a queue left behind keeps its reference for good).
	after, err := ctx.ReferenceCount()
	for i := 0; err == nil && after != before && i < 200; i++ {
		time.Sleep(5 * time.Millisecond)
		after, err = ctx.ReferenceCount()
	}
	if err != nil {
		t.Fatal(err)
	}
	if after != before {
		t.Errorf("context references %d → %d: Close left the stream queues behind", before, after)
	}
}
