# resident: make test (everything, OpenCL tests on PoCL) and make bench (the
# GPU-residency benchmark on the default OpenCL device). Both install the
# Debian packages they need when missing; run them as root on Debian 12.

GO        ?= go
DEB_PKGS  := gcc g++ libc6-dev ocl-icd-libopencl1 pocl-opencl-icd ocl-icd-opencl-dev clinfo python3-numpy
export POCL_CACHE_DIR ?= $(CURDIR)/.cache/pocl

.PHONY: deps test vet bench clean

# apt-get update runs only when a package is missing, and then once.
deps:
	@missing=""; for p in $(DEB_PKGS); do dpkg -s $$p >/dev/null 2>&1 || missing="$$missing $$p"; done; \
	if [ -n "$$missing" ]; then \
		echo "installing:$$missing"; \
		apt-get update && DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends $$missing; \
	fi
	@mkdir -p $(POCL_CACHE_DIR)

# vet -race: vet compiles what it checks, and in the race configuration
# that build is the one the race tests reuse (a plain vet was a whole
# extra build of the library and its dependencies).
vet:
	$(GO) vet -race ./...
	@out=$$(gofmt -l .); if [ -n "$$out" ]; then echo "gofmt needed:"; echo "$$out"; exit 1; fi

# One pass runs every test under the race detector (ops' TestPortableKernels
# runs the host-kernel tests again with the assembly kernels off, so no
# second build and run of ops); the halide (and halide/stream)
# tests (non-blocking transfers) run once more under cgocheck2,
# which catches unpinned Go pointers in C memory.
# TIMEOUT is go test's per-package limit: its 10-minute default is too
# little for -race ./ops on a busy 2-core machine.
TIMEOUT   ?= 30m
# vet ran first, in full: go test's own subset would type-check every test
# package a second time.
GOTEST    := $(GO) test -race -vet=off -timeout $(TIMEOUT)

test: deps vet
	$(GOTEST) ./...
	GOEXPERIMENT=cgocheck2 $(GO) test -vet=off -count=1 -timeout $(TIMEOUT) ./halide/...
	cd array/interop/gorgonia/example && $(GO) vet -race ./... && $(GOTEST) ./...
	cd ops/engine/mlp && $(GO) vet -race ./... && $(GOTEST) ./...
	cd ops/engine/nn && $(GO) vet -race ./... && $(GOTEST) ./...
	cd bench && $(GO) vet -race ./... && $(GOTEST) ./...

# The benchmark is its own module (bench/go.mod), so the library's go.mod
# requires no plotting package.
bench: deps
	cd bench && $(GO) run ./cmd/residency -out out

clean:
	rm -rf bin bench/out .cache

include halide/halide.mk
