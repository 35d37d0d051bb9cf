package bench

import (
	"fmt"

	"github.com/resident-go/resident/array"
	"github.com/resident-go/resident/device/sim"
	"github.com/resident-go/resident/internal/plumb"
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
		res := plumb.Array
		ia, _ := ri.Allocation()
		oa, _ := ro.Allocation()
		hadIn, hadOut := ia != nil, oa != nil
		if err := res.SyncDevice(ri, dev); err != nil {
			return err
		}
		if err := res.Alloc(ro, dev); err != nil {
			return err
		}
		ia, io := ri.Allocation()
		oa, oo := ro.Allocation()
		add(oa.(*sim.Alloc).Mem()[oo:oo+ro.Len()], ia.(*sim.Alloc).Mem()[io:io+ri.Len()])
		res.Wrote(ro, plumb.Device)
		// Host-only values end current on the host, without a device copy
		// they did not have before, as halide.Call leaves them.
		if out.HostOnly() {
			if err := res.SyncHost(ro); err != nil {
				return err
			}
			if !hadOut {
				if err := res.DeviceFree(ro); err != nil {
					return err
				}
			}
		}
		if in.HostOnly() && !hadIn {
			return res.DeviceFree(ri)
		}
		return nil
	}}
}
