# Halide 14 build pieces, included from the top-level Makefile.
#
# The outputs are committed (halide/internal/rt/halide_rt_linux_amd64.syso,
# halide/include/*.h, and each pipeline's NAME.a, NAME.h,
# NAME.registration.cpp and NAME.go), so go build and go test need no
# Halide. Regenerate with `make halide-regen` after changing a generator or
# moving to another Halide 14 build; it needs Debian's libhalide14-0-dev,
# which `make halide-deps` installs. Objects use a portable CPU target
# (x86-64 + AVX2/FMA/F16C): never commit target=host or native output.

HALIDE_GEN ?= go run ./halide/cmd/halide-gen
HALIDE_EX  := halide/examples

.PHONY: halide-deps halide-runtime halide-pipelines halide-regen halide-test halide-bench

halide-deps:
	@dpkg -s libhalide14-0-dev >/dev/null 2>&1 || \
		(apt-get update && apt-get install -y --no-install-recommends libhalide14-0-dev g++)

# One runtime per binary: the object behind every pipeline built with
# -no_runtime, OpenCL and CUDA support included.
halide-runtime: halide-deps
	$(HALIDE_GEN) -runtime -o halide

halide-pipelines: halide-deps
	$(HALIDE_GEN) -generator $(HALIDE_EX)/brighter/gen/brighter_generator.cpp -target opencl -o $(HALIDE_EX)/brighter
	$(HALIDE_GEN) -generator $(HALIDE_EX)/brighter/gen/brighter_generator.cpp -f brighter_host -target host -o $(HALIDE_EX)/brighter
	$(HALIDE_GEN) -generator $(HALIDE_EX)/brighter/gen/brighter_generator.cpp -f brighter_cuda -target cuda -o $(HALIDE_EX)/brighter
	$(HALIDE_GEN) -generator $(HALIDE_EX)/scale3d/gen/scale3d_generator.cpp -target host -o $(HALIDE_EX)/scale3d
	$(HALIDE_GEN) -generator $(HALIDE_EX)/scale3d/gen/scale3d_generator.cpp -f scale3d_opencl -target opencl -o $(HALIDE_EX)/scale3d
	$(HALIDE_GEN) -generator $(HALIDE_EX)/scale3d/gen/scale3d_generator.cpp -f scale3d_cuda -target cuda -o $(HALIDE_EX)/scale3d
	$(HALIDE_GEN) -generator $(HALIDE_EX)/tiny/gen/tiny_generator.cpp -target host -o $(HALIDE_EX)/tiny
	$(HALIDE_GEN) -generator $(HALIDE_EX)/blur/gen/blur_generator.cpp -target host -o $(HALIDE_EX)/blur
	$(HALIDE_GEN) -generator $(HALIDE_EX)/blur/gen/blur_generator.cpp -f blur_opencl -target opencl -o $(HALIDE_EX)/blur
	$(HALIDE_GEN) -generator $(HALIDE_EX)/params/gen/params_generator.cpp -target host -o $(HALIDE_EX)/params
	$(HALIDE_GEN) -generator $(HALIDE_EX)/params/gen/params_generator.cpp -f params_opencl -target opencl -o $(HALIDE_EX)/params
	$(HALIDE_GEN) -generator $(HALIDE_EX)/texture/gen/texture_generator.cpp -target opencl -o $(HALIDE_EX)/texture
	$(HALIDE_GEN) -generator $(HALIDE_EX)/callbacks/gen/gostage_generator.cpp -target host -o $(HALIDE_EX)/callbacks
	$(HALIDE_GEN) -generator $(HALIDE_EX)/callbacks/gen/gostage_generator.cpp -f gostage_opencl -target opencl -o $(HALIDE_EX)/callbacks
	$(HALIDE_GEN) -generator $(HALIDE_EX)/callbacks/gen/gostage_generator.cpp -f resident::gostage_ns -target host -o $(HALIDE_EX)/callbacks
	$(HALIDE_GEN) -generator $(HALIDE_EX)/callbacks/gen/printer_generator.cpp -target host -o $(HALIDE_EX)/callbacks
	$(HALIDE_GEN) -generator $(HALIDE_EX)/callbacks/gen/devstage_generator.cpp -target opencl -o $(HALIDE_EX)/callbacks
	$(HALIDE_GEN) -generator $(HALIDE_EX)/callbacks/gen/devstage_generator.cpp -f devstage_hostin -target opencl -o $(HALIDE_EX)/callbacks host_input=true
	$(HALIDE_GEN) -generator $(HALIDE_EX)/callbacks/gen/mtblur_generator.cpp -f resident::mtblur -target x86-64-linux-sse41-avx-avx2-fma-f16c-avx512-avx512_skylake,host -o $(HALIDE_EX)/callbacks
# inner (no user_context) before outer, whose extern stage it is
	$(HALIDE_GEN) -generator $(HALIDE_EX)/callbacks/gen/inner_generator.cpp -user_context=false -target host -o $(HALIDE_EX)/callbacks
	$(HALIDE_GEN) -generator $(HALIDE_EX)/callbacks/gen/outer_generator.cpp -target host -o $(HALIDE_EX)/callbacks
	$(HALIDE_GEN) -generator $(HALIDE_EX)/callbacks/gen/relay_generator.cpp -user_context=false -target host -o $(HALIDE_EX)/callbacks

halide-regen: halide-runtime halide-pipelines

# Package halide's tests, once normally (with -race) and once under
# cgocheck2, which catches unpinned Go pointers stored in C memory.
halide-test:
	go test -race ./halide/...
	GOEXPERIMENT=cgocheck2 go test -count=1 ./halide/...

# HALIDE_BENCH_SIZE shrinks the brighter chain (default 4096) for PoCL.
halide-bench:
	go test -run '^$$' -bench . -benchtime 2s ./halide
