package nn

import (
	"fmt"

	"gorgonia.org/gorgonia"
	"gorgonia.org/tensor"

	"github.com/resident-go/resident/ops"
)

// Conv2d is gorgonia.Conv2d (same arguments, shapes and defaults: nil pad
// is 0, nil dilation 1): im (N, C, H, W) convolved with filter (F, C, KH,
// KW) to (N, F, OH, OW), as im2col (on the device here), a reshape, a
// matrix product with the filter reshaped to (F, C·KH·KW) transposed, a
// reshape and a transpose, each of which runs on the engine.
func Conv2d(im, filter *gorgonia.Node, kernelShape tensor.Shape, pad, stride, dilation []int) (*gorgonia.Node, error) {
	if pad == nil {
		pad = []int{0, 0}
	}
	if dilation == nil {
		dilation = []int{1, 1}
	}
	if im.Shape().Dims() != 4 || filter.Shape().Dims() != 4 {
		return nil, fmt.Errorf("nn.Conv2d: im %v and filter %v, want 4-D (N, C, H, W) and (F, C, KH, KW)", im.Shape(), filter.Shape())
	}
	if len(kernelShape) != 2 || len(pad) != 2 || len(stride) != 2 || len(dilation) != 2 {
		return nil, fmt.Errorf("nn.Conv2d: kernel %v, pad %v, stride %v, dilation %v: want 2 values each (height, width)", kernelShape, pad, stride, dilation)
	}
	for i := range 2 {
		if stride[i] <= 0 || pad[i] < 0 || dilation[i] <= 0 || kernelShape[i] <= 0 {
			return nil, fmt.Errorf("nn.Conv2d: kernel %v, pad %v, stride %v, dilation %v: want kernel, stride and dilation ≥ 1, pad ≥ 0", kernelShape, pad, stride, dilation)
		}
	}
	g := ops.Conv2D{Kernel: [2]int{kernelShape[0], kernelShape[1]}, Pad: [2]int{pad[0], pad[1]},
		Stride: [2]int{stride[0], stride[1]}, Dilation: [2]int{dilation[0], dilation[1]}}
	col, err := gorgonia.ApplyOp(im2colOp{g}, im)
	if err != nil {
		return nil, fmt.Errorf("nn.Conv2d: im2col: %w", err)
	}
	fs := filter.Shape()
	cs := col.Shape()
	if cs[3] != fs[1]*fs[2]*fs[3] {
		return nil, fmt.Errorf("nn.Conv2d: filter %v over windows of %d values (C·KH·KW of im %v and kernel %v)", fs, cs[3], im.Shape(), kernelShape)
	}
	flat, err := gorgonia.Reshape(filter, tensor.Shape{fs[0], fs[1] * fs[2] * fs[3]})
	if err != nil {
		return nil, err
	}
	patch, err := gorgonia.Reshape(col, tensor.Shape{cs[0] * cs[1] * cs[2], cs[3]})
	if err != nil {
		return nil, err
	}
	ft, err := gorgonia.Transpose(flat)
	if err != nil {
		return nil, err
	}
	prod, err := gorgonia.Mul(patch, ft)
	if err != nil {
		return nil, err
	}
	res, err := gorgonia.Reshape(prod, tensor.Shape{cs[0], cs[1], cs[2], fs[0]})
	if err != nil {
		return nil, err
	}
	return gorgonia.Transpose(res, 0, 3, 1, 2)
}

// MaxPool2D is gorgonia.MaxPool2D with a 2-element pad (the same above
// and below, left and right): x (N, C, H, W) to (N, C, OH, OW), the
// largest element of each window, on the device. gorgonia's 4-element
// (explicit) pad is refused.
func MaxPool2D(x *gorgonia.Node, kernel tensor.Shape, pad, stride []int) (*gorgonia.Node, error) {
	if x.Shape().Dims() != 4 {
		return nil, fmt.Errorf("nn.MaxPool2D: x %v, want 4-D (N, C, H, W)", x.Shape())
	}
	if len(kernel) != 2 || len(pad) != 2 || len(stride) != 2 {
		return nil, fmt.Errorf("nn.MaxPool2D: kernel %v, pad %v, stride %v: want 2 values each (height, width); a 4-element pad is not supported", kernel, pad, stride)
	}
	for i := range 2 {
		if stride[i] <= 0 || pad[i] < 0 || kernel[i] <= 0 || x.Shape()[2+i]+2*pad[i] < kernel[i] {
			return nil, fmt.Errorf("nn.MaxPool2D: x %v, kernel %v, pad %v, stride %v: want kernel and stride ≥ 1, pad ≥ 0, kernel within the padded image", x.Shape(), kernel, pad, stride)
		}
	}
	op := &maxPoolOp{g: ops.Pool2D{Kernel: [2]int{kernel[0], kernel[1]}, Pad: [2]int{pad[0], pad[1]}, Stride: [2]int{stride[0], stride[1]}}}
	return gorgonia.ApplyOp(op, x)
}
