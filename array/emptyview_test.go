package array_test

import (
	"testing"

	"github.com/resident-go/resident/array"
)

// Data of an empty view is empty, wherever the view's offset lies (it
// panicked with slice bounds on views of an empty root, found by ops'
// differential test).
func TestEmptyViewData(t *testing.T) {
	v := array.New[float32](2, 2, 0, 4).Permute(1, 2, 3, 0).Slice(3, 1).Crop(2, 0, 1)
	r, err := v.HostReadOnly()
	if err != nil {
		t.Fatal(err)
	}
	if d := r.Data(); len(d) != 0 {
		t.Errorf("Data of an empty view: %d elements", len(d))
	}
}
