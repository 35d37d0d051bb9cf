package device

import (
	"errors"
	"os"
	"sync/atomic"
)

// GuardEnv names the environment variable that turns the transfer guard on
// at start-up when set to 1 or true.
const GuardEnv = "RESIDENT_TRANSFER_GUARD"

// ErrTransferGuard is wrapped by the error an automatic transfer returns
// while the transfer guard is on.
var ErrTransferGuard = errors.New("automatic transfer refused by the transfer guard")

var guard atomic.Bool

func init() {
	switch os.Getenv(GuardEnv) {
	case "1", "true", "TRUE", "yes":
		guard.Store(true)
	}
}

// SetGuard turns the transfer guard on or off and returns its previous
// state. While it is on, every transfer the library would make on its own
// (a host view's copy to host, a pipeline call's upload or download) fails
// with ErrTransferGuard; explicit CopyToDevice and CopyToHost still work.
// People benchmarking residency use it to prove a loop moves nothing.
func SetGuard(on bool) (was bool) { return guard.Swap(on) }

// Guarded reports whether the transfer guard is on.
func Guarded() bool { return guard.Load() }
