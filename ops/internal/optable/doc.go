// Package optable is the one definition of ops' elementwise ops: a row
// per op (name, the types it is defined for, its host kernel in Go, its
// device expression in OpenCL C, the Go functions the engine binds to
// it), from which Generate writes every form ops needs — the op enum and
// its name tables, the public funcs, the host dispatch, the OpenCL
// macros and kernels of the op-by-op program, the fused-kernel templates
// and the engine's bindings. Adding an op is a row in table.go and its
// test; then
//
//	go generate ./ops
//
// and TestGeneratedFresh fails while a generated file is stale.
package optable
