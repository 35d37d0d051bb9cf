// Package progfuzz is a test-only program fuzzer over the whole library.
//
// FuzzProgram decodes its input into a program — a sequence of steps over a
// small pool of Arrays of several element types and shapes (non-zero mins,
// 0-D and empty ones included): views, host writes and reads, ops, Halide
// pipeline calls (host and OpenCL), gorgonia engine operations, explicit
// placement, MoveTo between devices, syncs, Close and runtime.GC — and after
// every step checks every live Array against a host-only model of the latest
// write to each element, together with the residency invariants (no element
// both host- and device-dirty, placement as ops' rule predicts, transfers
// counted only where a copy is needed). A failure prints the program as Go
// steps. Run the seed corpus with
//
//	POCL_CACHE_DIR=$PWD/.cache/pocl go test ./internal/progfuzz/
//
// and fuzz with
//
//	go test -fuzz FuzzProgram -fuzztime 5m -parallel 1 ./internal/progfuzz/
//
// The package has no non-test code.
package progfuzz
