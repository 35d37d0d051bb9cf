// Package target turns CPU features into Halide 14 target strings. It is
// pure Go so both package halide and the halide-gen command can use it.
package target
