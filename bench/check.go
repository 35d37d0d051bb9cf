package bench

import (
	"fmt"

	"github.com/resident-go/resident/array"
)

// checkOutput compares out with the stages' references applied to src, when
// every stage has one.
func checkOutput(src, out *array.Array[uint8], stages []Stage) error {
	for _, s := range stages {
		if s.Ref == nil {
			return nil
		}
	}
	sv, err := src.HostReadOnly()
	if err != nil {
		return err
	}
	ov, err := out.HostReadOnly()
	if err != nil {
		return err
	}
	want := make([]uint8, len(sv.Data()))
	tmp := make([]uint8, len(want))
	copy(want, sv.Data())
	for _, s := range stages {
		s.Ref(tmp, want)
		want, tmp = tmp, want
	}
	got := ov.Data()
	for i := range want {
		if got[i] != want[i] {
			return fmt.Errorf("wrong output after %d stages: element %d is %d, want %d", len(stages), i, got[i], want[i])
		}
	}
	return nil
}
