package array

import (
	"fmt"
	"math/rand/v2"
	"testing"
)

// typeModel is Type.String written with fmt, as it was before AppendText.
func typeModel(t Type) string {
	s := map[Code]string{Int: "int", UInt: "uint", Float: "float", Handle: "handle", BFloat: "bfloat"}[t.Code]
	if s == "" {
		s = fmt.Sprintf("code%d-", t.Code)
	}
	if t.Code == UInt && t.Bits == 1 {
		s = "bool"
	} else {
		s += fmt.Sprint(t.Bits)
	}
	if t.Lanes > 1 {
		s += fmt.Sprintf("x%d", t.Lanes)
	}
	return s
}

// Type's text (String, AppendText after other bytes) equals the model's
// for drawn codes, bits and lanes, and AppendText allocates nothing into
// a buffer with room.
func TestTypeText(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	buf := make([]byte, 0, 64)
	for range 2000 {
		ty := Type{Code: Code(r.IntN(8)), Bits: uint8(r.IntN(256)), Lanes: uint16(r.IntN(300))}
		if r.IntN(4) == 0 {
			ty.Bits = 1
		}
		want := typeModel(ty)
		if got := ty.String(); got != want {
			t.Fatalf("%#v: String %q, want %q", ty, got, want)
		}
		b, err := ty.AppendText(append(buf[:0], "x: "...))
		if err != nil || string(b) != "x: "+want {
			t.Fatalf("%#v: AppendText %q, %v", ty, b, err)
		}
	}
	if n := testing.AllocsPerRun(100, func() { buf, _ = TypeOf[float32]().AppendText(buf[:0]) }); n != 0 {
		t.Errorf("AppendText allocated %v times into a buffer with room", n)
	}
}
