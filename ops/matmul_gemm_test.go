package ops_test

import (
	"testing"

	"github.com/resident-go/resident/array"
	"github.com/resident-go/resident/device"
	"github.com/resident-go/resident/ops"
)

// TestMatMulWith16 multiplies float16 and bfloat16 matrices of small
// integers (every product and sum exact in float32) on every placement
// and checks each element against the float64 definition, and that the
// result stays where the operands were.
func TestMatMulWith16(t *testing.T) {
	for _, d := range placements(t) {
		t.Run(devName(d), func(t *testing.T) {
			testMatMulWith16[array.Float16](t, d, array.F16)
			testMatMulWith16[array.BFloat16](t, d, array.BF16)
		})
	}
}

func testMatMulWith16[T interface{ array.Float16 | array.BFloat16 }](t *testing.T, d device.Device, conv func(float32) T) {
	const K, M, N = 5, 4, 3
	a, b, dst := array.New[T](K, M), array.New[T](N, K), array.New[T](N, M)
	defer a.Close()
	defer b.Close()
	defer dst.Close()
	av, _ := a.Host()
	bv, _ := b.Host()
	for p := range K {
		for i := range M {
			av.Set(conv(float32((p+2*i)%5-2)), p, i)
		}
		for j := range N {
			bv.Set(conv(float32((3*p+j)%4-1)), j, p)
		}
	}
	if d != nil {
		if err := ops.On(d, a, b); err != nil {
			t.Fatal(err)
		}
	}
	if err := ops.MatMulWith(dst, a, b, device.PrecisionExact); err != nil {
		t.Fatal(err)
	}
	if d != nil && dst.Device() != d {
		t.Errorf("dst on %v, want %s", dst.Device(), d.Name())
	}
	dv, err := dst.HostReadOnly()
	if err != nil {
		t.Fatal(err)
	}
	for i := range M {
		for j := range N {
			want := float32(0)
			for p := range K {
				want += float32((p+2*i)%5-2) * float32((3*p+j)%4-1)
			}
			if got := dv.At(j, i); got != conv(want) {
				t.Fatalf("%T dst(%d, %d) = %v, want %v", got, j, i, got, want)
			}
		}
	}
}

// TestMatMulWithTF32Host: asking for TF32 where there are no tensor cores
// computes exactly, bit for bit MatMul's result.
func TestMatMulWithTF32Host(t *testing.T) {
	const K, M, N = 33, 7, 9
	a, b := array.New[float32](K, M), array.New[float32](N, K)
	if err := ops.RandUniform(a, 1, 0); err != nil {
		t.Fatal(err)
	}
	if err := ops.RandUniform(b, 2, 0); err != nil {
		t.Fatal(err)
	}
	exact, tf := array.New[float32](N, M), array.New[float32](N, M)
	if err := ops.MatMul(exact, a, b); err != nil {
		t.Fatal(err)
	}
	if err := ops.MatMulWith(tf, a, b, device.PrecisionTF32); err != nil {
		t.Fatal(err)
	}
	ev, _ := exact.HostReadOnly()
	tv, _ := tf.HostReadOnly()
	if !ev.Equal(tv) {
		t.Fatal("MatMulWith(PrecisionTF32) on the host differs from MatMul")
	}
}
