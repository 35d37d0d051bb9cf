// Command halide-gen turns a Halide 14 generator into something Go can call:
// it builds the generator against Debian's libhalide14-0-dev, emits the
// pipeline as a static library, C header and registration file for a
// portable CPU target (plus opencl, user_context and no_runtime), and writes
// a typed Go wrapper from the pipeline's metadata. With -runtime it emits
// the one Halide runtime object package halide links instead.
//
// Usage:
//
//	halide-gen -generator gen/brighter_generator.cpp -target opencl -o . [param=value ...]
//	halide-gen -generator gen/brighter_generator.cpp -f brighter_host -target host -o .
//	halide-gen -runtime -o halide
//
// -target is host, opencl, native (this CPU: never commit its output), or a
// full Halide target string. Generated files are meant to be committed, so
// go build needs no Halide installed.
package main
