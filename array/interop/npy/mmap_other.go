//go:build !(linux || darwin || freebsd || netbsd || openbsd)

package npy

import (
	"os"

	"github.com/resident-go/resident/array"
)

func mapFile[T array.Elem](f *os.File, _ MapMode) (*array.Array[T], error) {
	return readMapped[T](f)
}
