package device

import (
	"fmt"
	"testing"
)

func TestRegion(t *testing.T) {
	tests := []struct {
		name       string
		r          Region
		simple     string
		rows       string
		bytes      int
		span       int
		validation bool
	}{
		{"dense", Region{4, []Span{{8, 1}, {3, 8}}}, "[{24 1}]", "[0+96]", 96, 96, true},
		{"crop", Region{1, []Span{{4, 1}, {2, 10}}}, "[{4 1} {2 10}]", "[0+4 10+4]", 8, 14, true},
		{"unit dims", Region{2, []Span{{1, 1}, {5, 1}, {1, 5}}}, "[{5 1}]", "[0+10]", 10, 10, true},
		{"strided inner", Region{1, []Span{{3, 2}}}, "[{1 1} {3 2}]", "[0+1 2+1 4+1]", 3, 5, true},
		{"empty", Region{1, []Span{{0, 1}, {4, 0}}}, "[{0 1}]", "[]", 0, 0, true},
		{"scalar", Region{8, nil}, "[{1 1}]", "[0+8]", 8, 8, true},
		{"negative", Region{1, []Span{{-1, 1}}}, "", "", 0, 0, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if err := tt.r.validate(); (err == nil) != tt.validation {
				t.Fatalf("Validate: %v", err)
			}
			if !tt.validation {
				return
			}
			s := tt.r.Simplify()
			if fmt.Sprint(s.Shape) != tt.simple {
				t.Errorf("Simplify %v, want %s", s.Shape, tt.simple)
			}
			var rows []string
			s.Rows(func(off, n int) { rows = append(rows, fmt.Sprintf("%d+%d", off, n)) })
			if fmt.Sprint(rows) != tt.rows {
				t.Errorf("Rows %v, want %s", rows, tt.rows)
			}
			if tt.r.Bytes() != tt.bytes || tt.r.SpanBytes() != tt.span {
				t.Errorf("bytes %d span %d", tt.r.Bytes(), tt.r.SpanBytes())
			}
		})
	}
}

// TestGuard: SetDeviceGuard reports the previous state and guards its
// device alone; a nil device has no guard of its own.
func TestGuard(t *testing.T) {
	d0, d1 := &fakeGuarded{}, &fakeGuarded{}
	if SetDeviceGuard(d1, true) || !SetDeviceGuard(d1, true) || !Guarded(nil, d1) || Guarded(nil, d0) || Guarded(nil, nil) {
		t.Fatal("SetDeviceGuard(d1, true): want d1 alone guarded, the previous state reported")
	}
	if !SetDeviceGuard(d1, false) || SetDeviceGuard(d1, false) || Guarded(nil, d1) {
		t.Fatal("SetDeviceGuard(d1, false) did not report the previous state or left the guard on")
	}
	if SetDeviceGuard(nil, true) || Guarded(nil, nil) {
		t.Fatal("a nil device has no guard of its own")
	}
}

// fakeGuarded is a Device for guard tests: only its identity is used.
type fakeGuarded struct {
	Device
	_ int // non-zero size: distinct pointers
}
