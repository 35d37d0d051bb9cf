package main

import (
	"fmt"
	"testing"

	"gorgonia.org/gorgonia"
	"gorgonia.org/tensor"

	"github.com/resident-go/resident/device/opencl"
	"github.com/resident-go/resident/ops/engine"
)

func TestDbg(t *testing.T) {
	dev, _ := opencl.Default()
	e := engine.New(dev)
	g := gorgonia.NewGraph()
	xd := tensor.New(tensor.Of(tensor.Float32), tensor.WithShape(4, 16), tensor.WithEngine(e))
	wd := tensor.New(tensor.Of(tensor.Float32), tensor.WithShape(16, 8), tensor.WithEngine(e))
	x := gorgonia.NewMatrix(g, tensor.Float32, gorgonia.WithShape(4, 16), gorgonia.WithName("x"), gorgonia.WithValue(xd))
	w := gorgonia.NewMatrix(g, tensor.Float32, gorgonia.WithShape(16, 8), gorgonia.WithName("w"), gorgonia.WithValue(wd))
	h := gorgonia.Must(gorgonia.Mul(x, w))
	l := gorgonia.Must(gorgonia.Mean(gorgonia.Must(gorgonia.Rectify(h))))
	gorgonia.Grad(l, w)
	vm := gorgonia.NewTapeMachine(g, gorgonia.BindDualValues(w), gorgonia.WithEngine(e))
	if err := vm.RunAll(); err != nil {
		t.Fatal(err)
	}
	solver := gorgonia.NewVanillaSolver(gorgonia.WithLearnRate(0.1))
	if err := solver.Step(gorgonia.NodesToValueGrads(gorgonia.Nodes{w})); err != nil {
		t.Fatal(err)
	}
	vm.Reset()
	for _, n := range g.AllNodes() {
		v := n.Value()
		s := fmt.Sprintf("%T", v)
		if d, ok := v.(*tensor.Dense); ok {
			s = fmt.Sprintf("%T %v %p", d.Engine(), d.Shape(), d)
			if a, err := engine.Array[float32](e, d); err == nil {
				s += fmt.Sprintf(" hostonly %v dev %v hd %v dd %v", a.HostOnly(), a.Device() != nil, a.HostDirty(), a.DeviceDirty())
			}
		}
		gv, _ := n.Grad()
		gs := ""
		if d, ok := gv.(*tensor.Dense); ok {
			gs = fmt.Sprintf("grad %T", d.Engine())
		}
		t.Logf("%-30s %s %s", n.Name(), s, gs)
	}
}
