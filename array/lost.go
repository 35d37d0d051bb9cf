package array

import (
	"fmt"
	"strings"

	"github.com/resident-go/resident/internal/plumb"
)

// Lost values. When a device closes, each Array resident there brings its
// device-dirty regions home (evict). A download that fails there (the
// driver failing as the device goes away) leaves the host bytes of that
// region stale and no device copy: the values are nowhere. Such a region
// is remembered, by box as the dirty sets are, and every host read that
// would see it — a host view, At, Data, printing, Compact, Equal, an
// upload to another device, an op or pipeline reading it — fails with an
// error wrapping ErrLost (so device.ErrClosed) and the download's error,
// instead of returning the stale bytes. A write that replaces every
// element of the box (an op's or a pipeline's output, a host view's
// Fill, a covering CopyFrom) makes it readable again; a partial write
// keeps the rest lost. Views whose elements avoid the box read as before.

// lostBox is a region whose newest values are nowhere: they were device
// dirty when the device closed and their download failed (evict), or the
// device a MoveTo copied them to closed under it.
type lostBox struct {
	b   box
	dev string // the device that closed
	err error  // why the values did not come home
}

// loseLocked records box b lost; the caller holds st.mu and takes b out
// of dirty[deviceSide] next (detach), which keeps them disjoint.
func (st *storage) loseLocked(b box, dev string, err error) {
	st.lost = append(st.lost, lostBox{append(box(nil), b...), dev, err})
	st.count()
}

// clearLost forgets the lost values in box b, which a write has just
// replaced entirely; the caller holds st.mu.
func (st *storage) clearLost(b box) {
	if len(st.lost) == 0 || len(b) == 0 {
		return
	}
	var out []lostBox
	for _, l := range st.lost {
		if !l.b.overlaps(b) {
			out = append(out, l)
			continue
		}
		for _, p := range l.b.minus(b, nil) {
			out = append(out, lostBox{p, l.dev, l.err})
		}
	}
	st.lost = out
	st.count()
}

// errLost is the error of a host read of r's elements where some were
// lost, else nil: one atomic load when nothing is lost or device dirty.
func (r *Raw) errLost() error {
	if r.st.nAway.Load() == 0 {
		return nil
	}
	r.st.mu.Lock()
	defer r.st.mu.Unlock()
	return r.errLostLocked()
}

// errLostLocked is errLost for a caller holding st.mu.
func (r *Raw) errLostLocked() error {
	if len(r.st.lost) == 0 {
		return nil
	}
	var buf [inlineDims]span
	b := r.box(buf[:0])
	for _, l := range r.st.lost {
		if l.b.overlaps(b) {
			return fmt.Errorf("%w: values of this %s%s Array (root positions %v) were lost when device %s closed before they could come home (%w); write them again before reading them, with a whole write (an op or a pipeline with the Array as its output, such as ops.Fill or ops.Copy into it), or read views that avoid them", ErrLost, r.typ, pyShape(r.shape()), l.b, l.dev, l.err)
		}
	}
	return nil
}

// rewritten records that every element of r has just been written (an
// op's or a pipeline's whole output, a host view's Fill): values lost
// there are no longer. A view whose elements are not all of its box (a
// strided view) clears nothing, as the elements between were not
// written. One atomic load when nothing is lost or device dirty.
func (r *Raw) rewritten() {
	st := r.st
	if st.nAway.Load() == 0 || r.Len() == 0 {
		return
	}
	st.mu.Lock()
	defer st.mu.Unlock()
	r.rewrittenLocked()
}

// rewrittenLocked is rewritten for a caller holding st.mu.
func (r *Raw) rewrittenLocked() {
	if len(r.st.lost) == 0 || r.Len() == 0 {
		return
	}
	if b, exact := r.exactBox(); exact {
		r.st.clearLost(b)
	}
}

// String prints a box as its spans of root positions, dimension 0 first.
func (b box) String() string {
	parts := make([]string, len(b))
	for k, s := range b {
		parts[k] = fmt.Sprintf("%d…%d", s.lo, s.hi)
	}
	return "[" + strings.Join(parts, ", ") + "]"
}

// hostDst readies r's host memory for a consumer that writes every
// element of it (an op's host output with a device copy): as Host does,
// device-dirty parts come home (refused under the transfer guard) and the
// host is marked newest, but values lost there do not stop it: it
// replaces them. A view that is not all of its box (a strided view) still
// gets their error, as its write leaves the elements between lost.
func (r *Raw) hostDst() error {
	r.expose()
	if err := r.errWritable(); err != nil {
		return err
	}
	if err := r.errOpen(); err != nil {
		return err
	}
	if r.DeviceDirty() {
		if err := plumb.CheckAutomatic(r.Device(), "host view of a device-dirty "+r.typ.String()+" Array"); err != nil {
			return err
		}
		if err := r.syncHostLost(true); err != nil {
			return err
		}
	}
	r.markHostWrite()
	r.rewritten()
	return r.errLost()
}
