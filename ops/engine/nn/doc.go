// Package nn is gorgonia's convolution family on the device: Conv2d,
// MaxPool2D and BatchNorm with gorgonia's signatures and shapes, whose
// ops (im2col and its gradient col2im, max-pooling and its gradient, the
// per-channel normalization and its gradient) run through package ops on
// the Arrays of package engine's Denses, so that every op of a
// convolutional network trained through gorgonia.WithEngine(e) runs on
// the device.
//
// gorgonia v0.9.18's own Conv2d, MaxPool2D and BatchNorm compute on the
// host by reading and writing Dense.Data() directly, an interface no
// tensor engine sees: on an engine whose data lives on the device they
// read stale host memory (TestGorgoniaConvOpsOnEngine shows each
// silently wrong there). Build the graph with nn.Conv2d, nn.MaxPool2D and
// nn.BatchNorm instead; everything else (Rectify, Reshape, Mul, SoftMax,
// the solvers) is gorgonia's own.
//
// On tensor's standard engine the same ops run package ops' host kernels
// over the Denses' memory, so one graph serves both engines. Element
// types are float32 and float64.
//
//	cd ops/engine/nn && POCL_CACHE_DIR=$PWD/.cache/pocl go test -v .
package nn
