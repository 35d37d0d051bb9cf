// Command halide-gen turns a Halide 14 generator into a Go package: it
// builds the generator against Debian's libhalide14-0-dev, emits the
// pipeline as a static library, C header and registration file for a
// portable CPU target, and writes a typed Go wrapper from the pipeline's
// metadata. With -runtime it emits the one Halide runtime object package
// halide links instead: the host, OpenCL and CUDA runtime in one object
// (target x86-64 AVX2 + opencl + cuda).
//
// Usage:
//
//	halide-gen -generator gen/brighter_generator.cpp -target opencl -o . [param=value ...]
//	halide-gen -generator gen/brighter_generator.cpp -f brighter_host -target host -o .
//	halide-gen -generator gen/blur_generator.cpp -g blur -f ns::blur_mt -target host,x86-64-linux-sse41 -o .
//	halide-gen -generator gen/traced_generator.cpp -I gen/include -D TRACE=1 -o .
//	halide-gen -runtime -o halide
//
// Naming:
//
//   - -g NAME picks the generator in the source, the name given to
//     HALIDE_REGISTER_GENERATOR (default: the file name without
//     _generator.cpp). Use it when a source registers several generators
//     or its file is named otherwise.
//   - -f NAME names the pipeline function (default: the generator name);
//     one generator gives several variants with several -f. A C++
//     namespace (-f ns::name) adds the c_plus_plus_name_mangling target
//     feature; files, the Go wrapper and halide.Lookup use the last part.
//
// Targets: -target is host (x86-64 with AVX2/FMA/F16C, portable to every
// recent x86 server), opencl (host plus OpenCL), cuda (host plus CUDA:
// PTX for compute capability 7.0, which the driver compiles for the GPU it
// runs on, Volta and newer), native, native-opencl or native-cuda (this
// CPU: never commit their output), a full Halide target string, or a
// comma-separated list of those for a multi-target object, which runs the
// first target whose CPU features the running machine has (list the most
// specific first, a plain one last). Every element gets no_runtime
// (package halide links the one runtime) and user_context (so errors reach
// the right call); -user_context=false leaves the latter out, which gives a
// pipeline the plain signature of an extern stage, so another pipeline can
// call it through define_extern.
//
// Generator builds: -I, -D, -cxxflags and -ldflags pass include
// directories, macros and extra flags to the compiler. Halide's tools
// folder ($HALIDE_SRC, where GenGen.cpp is) is searched after the -I
// folders, so generators that include halide_trace_config.h or
// halide_image_io.h, as Halide's apps do, build without a flag; an include
// found nowhere is an error that names the folders searched and the -I
// flag. A generator is built once
// per content and reused: the cache ($HALIDE_GEN_CACHE, else
// $XDG_CACHE_HOME/resident/halide-gen or ~/.cache/resident/halide-gen) is
// keyed by a hash of the source, the headers it includes with quotes, the
// flags, the compiler and the Halide build, so ten variants of one source
// cost one compile; -nocache builds afresh; delete the directory to clean
// it. The source must not sit in a Go package directory (cgo would compile
// it into the package): keep it in a gen/ subdirectory.
//
// Callbacks: halide-gen reads what the pipeline calls. When it prints
// (print, print_when), traces (trace_stores, …) or has extern stages
// written in Go, the wrapper's NAMEPipeline is WithCallbacks' copy, so
// calls take the entry point that may call Go (a call's Options.Hooks,
// Go extern stages). Each extern
// stage (define_extern) gets a C stub, NAME.extern.c in the package, that
// calls the Go function registered with halide.RegisterExtern("NAME", fn);
// externs defined by another pipeline in -o (build that one first) or
// named with -cextern are left to C. Rules for Go externs: buffers are
// valid only during the call (keep no pointers, slices or Arrays made from
// them); in a GPU pipeline a host stage (DeviceAPI::Host, the default)
// gets host buffers, the bridge copying device-dirty inputs to host first,
// and a stage declared DeviceAPI::OpenCL gets device buffers, which
// halide.ExternDeviceArray views as Arrays on the call's device; the
// function may run on several Halide worker threads at once. Extern symbols are global: one
// package per extern name in a binary.
//
// Generated files are meant to be committed, so go build needs no Halide
// installed.
package main
