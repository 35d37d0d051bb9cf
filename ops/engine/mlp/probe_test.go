package main

import (
	"testing"

	"gorgonia.org/gorgonia"
	"gorgonia.org/tensor"

	"github.com/resident-go/resident/device"
	"github.com/resident-go/resident/device/opencl"
	"github.com/resident-go/resident/ops/engine"
)

func TestProbe(t *testing.T) {
	dev, _ := opencl.Default()
	e := engine.New(dev)
	defer e.Close()
	probes := map[string]func(x, b *gorgonia.Node) (*gorgonia.Node, error){
		"SoftMax":      func(x, b *gorgonia.Node) (*gorgonia.Node, error) { return gorgonia.SoftMax(x) },
		"BroadcastAdd": func(x, b *gorgonia.Node) (*gorgonia.Node, error) { return gorgonia.BroadcastAdd(x, b, nil, []byte{0}) },
		"Sigmoid":      func(x, b *gorgonia.Node) (*gorgonia.Node, error) { return gorgonia.Sigmoid(x) },
		"Tanh":         func(x, b *gorgonia.Node) (*gorgonia.Node, error) { return gorgonia.Tanh(x) },
		"LeakyRelu":    func(x, b *gorgonia.Node) (*gorgonia.Node, error) { return gorgonia.LeakyRelu(x, 0.1) },
		"Square":       func(x, b *gorgonia.Node) (*gorgonia.Node, error) { return gorgonia.Square(x) },
		"Max":          func(x, b *gorgonia.Node) (*gorgonia.Node, error) { return gorgonia.Max(x, 1) },
		"Dropout":      func(x, b *gorgonia.Node) (*gorgonia.Node, error) { return gorgonia.Dropout(x, 0.5) },
		"Transpose":    func(x, b *gorgonia.Node) (*gorgonia.Node, error) { return gorgonia.Transpose(x) },
		"Softplus":     func(x, b *gorgonia.Node) (*gorgonia.Node, error) { return gorgonia.Softplus(x) },
	}
	for name, f := range probes {
		g := gorgonia.NewGraph()
		xd := tensor.New(tensor.Of(tensor.Float32), tensor.WithShape(4, 3), tensor.WithEngine(e))
		h, _ := engine.Host(xd)
		copy(h.Data().([]float32), []float32{1, -2, 3, 4, -5, 6, 7, 8, -9, 1, 2, 3})
		bd := tensor.New(tensor.Of(tensor.Float32), tensor.WithShape(3), tensor.WithEngine(e))
		x := gorgonia.NewMatrix(g, tensor.Float32, gorgonia.WithShape(4, 3), gorgonia.WithName("x"), gorgonia.WithValue(xd))
		b := gorgonia.NewVector(g, tensor.Float32, gorgonia.WithShape(3), gorgonia.WithName("b"), gorgonia.WithValue(bd))
		y, err := f(x, b)
		if err != nil {
			t.Logf("%s: build: %v", name, err)
			continue
		}
		s, err := gorgonia.Sum(y)
		if err != nil {
			t.Logf("%s: sum: %v", name, err)
			continue
		}
		if _, err := gorgonia.Grad(s, x); err != nil {
			t.Logf("%s: grad: %v", name, err)
			continue
		}
		vm := gorgonia.NewTapeMachine(g, gorgonia.WithEngine(e))
		err = vm.RunAll()
		vm.Reset()
		st := dev.Stats()
		was := device.SetGuard(true)
		if err == nil {
			err = vm.RunAll()
		}
		device.SetGuard(was)
		m := dev.Stats().Sub(st)
		t.Logf("%s: %v; second run H2D %d D2H %d", name, err, m.H2DCalls, m.D2HCalls)
		vm.Close()
	}
}
