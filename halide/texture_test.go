package halide_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/resident-go/resident/array"
	"github.com/resident-go/resident/halide"
	"github.com/resident-go/resident/halide/examples/texture"
)

// A pipeline that stores its input as a GPU texture is refused before the
// call, naming the argument and the limitation, instead of failing inside
// the runtime with incompatible_device_interface (-42); nothing moves.
func TestTextureRefused(t *testing.T) {
	dev := clDevice(t)
	const w, h = 16, 16
	in, out := array.New[float32](w, h), array.New[float32](w, h)
	defer in.Close()
	defer out.Close()
	iv, _ := in.Host()
	iv.Fill(1)
	for i := 0; i < 2; i++ { // the first call probes, the second knows
		before := dev.Stats()
		err := texture.Texture(in, out)
		if !errors.Is(err, halide.ErrTexture) {
			t.Fatalf("call %d: %v, want ErrTexture", i, err)
		}
		var he *halide.Error
		errors.As(err, &he)
		for _, frag := range []string{`argument "input"`, "GPUTexture", "-42", "store_in"} {
			if !strings.Contains(he.Msg, frag) {
				t.Errorf("message %q lacks %q", he.Msg, frag)
			}
		}
		if d := dev.Stats().Sub(before); d.H2DCalls != 0 || in.Device() != nil || out.Device() != nil {
			t.Errorf("call %d moved data before refusing: %v", i, d)
		}
	}
	t.Log(texture.Texture(in, out))
}
