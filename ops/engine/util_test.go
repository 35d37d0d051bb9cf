package engine_test

import (
	"reflect"
	"testing"

	"github.com/resident-go/resident/device/sim"
	"github.com/resident-go/resident/internal/guard"
	"github.com/resident-go/resident/internal/uffd"
	"github.com/resident-go/resident/ops/engine"
)

func typeOf[T any]() reflect.Type { return reflect.TypeFor[T]() }

// resident reports whether the engine keeps results on the device
// between calls here. Without userfaultfd (a process without the
// privilege) it copies each call's device-newer blocks home when the call
// ends (doc.go), so the tests' counts of transfers hold only with it;
// their values hold either way.
func resident() bool { return uffd.Available() }

// guardResident turns the transfer guard on where results stay resident,
// and returns its state before. Without userfaultfd, host-current memory
// the engine parks when a collection takes its Denses goes up again at
// its next use (adopted.go), at the collector's moment, so the guard
// would refuse at random there (TestDotMatchesStdEngine, as nobody, once
// in CI).
func guardResident() bool { return guard.Set(resident()) }

// simEngine is an engine on a fresh simulated device (exact transfer and
// launch counts), closed when t ends.
func simEngine(t *testing.T) (*engine.Engine, *sim.Device) {
	dev := sim.NewCompute("sim", 256<<20)
	e := engine.New(dev)
	t.Cleanup(func() { e.Close() })
	return e, dev
}
