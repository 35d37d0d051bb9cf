// Package closerace holds only tests: a device closed while goroutines run
// every kind of work on it (ops, fused expressions, reductions, Halide
// pipeline calls, streamed chains, the gorgonia engine, transfers,
// allocations), drawn from a generator, on the sim device, PoCL and
// device/cuda's mock driver. Each call completes or returns an error
// wrapping device.ErrClosed; nothing panics, nothing is lost, nothing
// leaks. Run more rounds with: go test -race ./internal/closerace -args -rounds=50
package closerace
