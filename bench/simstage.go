package bench

import (
	"fmt"

	"github.com/resident-go/resident/array"
	"github.com/resident-go/resident/device/sim"
)

// SimBrighter is a Stage that adds k to every uint8 element, saturating at
// 255, "on" a simulated device: it computes in the sim allocation's memory
// and follows the same residency rules as an OpenCL pipeline call, so the
// benchmark's transfer counts can be checked without OpenCL.
func SimBrighter(dev *sim.Device, k uint8) Stage {
	add := SaturatingAdd(k)
	return Stage{Name: "sim_brighter", Ref: add, Run: func(in, out array.Buffer) error {
		ri, ro := in.Raw(), out.Raw()
		if ri.Type() != array.TypeOf[uint8]() || ro.Type() != ri.Type() || ri.Len() != ro.Len() || !ri.Dense() || !ro.Dense() {
			return fmt.Errorf("bench: sim_brighter wants dense uint8 input and output of one size, got %s and %s", ri.Type(), ro.Type())
		}
		hadIn, hadOut := ri.Allocation() != nil, ro.Allocation() != nil
		if err := ri.CopyToDevice(dev); err != nil {
			return err
		}
		if ro.HostDirty() {
			ro.SetHostDirty(false) // every element is about to be replaced
		}
		if err := ro.DeviceMalloc(dev); err != nil {
			return err
		}
		add(ro.Allocation().(*sim.Alloc).Mem()[:ro.Len()], ri.Allocation().(*sim.Alloc).Mem()[:ri.Len()])
		ro.SetDeviceDirty(true)
		// Host-only values end current on the host, without a device copy
		// they did not have before, as halide.Call leaves them.
		if out.HostOnly() {
			if err := ro.CopyToHost(); err != nil {
				return err
			}
			if !hadOut {
				if err := ro.DeviceFree(); err != nil {
					return err
				}
			}
		}
		if in.HostOnly() && !hadIn {
			return ri.DeviceFree()
		}
		return nil
	}}
}
