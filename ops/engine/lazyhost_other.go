//go:build !unix

package engine

import (
	"github.com/resident-go/resident/device"
	"github.com/resident-go/resident/device/opencl"
)

// lazyHost is pinned memory where the system has no anonymous mappings.
func lazyHost(dev *opencl.Device, n int) (device.HostBlock, error) {
	return dev.AllocHost(n)
}
