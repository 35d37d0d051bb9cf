//go:build !unix

package engine

import (
	"github.com/resident-go/resident/device"
)

// lazyHost is pinned memory where the system has no anonymous mappings.
func lazyHost(dev device.Device, n int) (device.HostBlock, error) {
	return allocHost(dev, n)
}
