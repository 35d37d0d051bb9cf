# resident: make test (everything, OpenCL tests on PoCL) and make bench (the
# GPU-residency benchmark on the default OpenCL device). Both install the
# Debian packages they need when missing; run them as root on Debian 12.

GO        ?= go
DEB_PKGS  := gcc g++ libc6-dev ocl-icd-libopencl1 pocl-opencl-icd ocl-icd-opencl-dev clinfo python3-numpy
export POCL_CACHE_DIR ?= $(CURDIR)/.cache/pocl

.PHONY: deps test vet bench clean test-ops test-lib test-cgocheck2 test-example test-mlp test-nn test-bench test-unprivileged

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

# One pass runs every library test under the race detector (ops'
# TestPortableKernels runs host-kernel tests again with the assembly
# kernels off, so no second build and run of ops); the halide (and
# halide/stream) tests (non-blocking transfers) run once more under
# cgocheck2, which catches unpinned Go pointers in C memory; then the
# modules beside the library. Generated tests draw their cases from the
# UTC day (internal/draw), so each day's run covers new ones.
# TIMEOUT is go test's per-package limit: its 10-minute default is too
# little for -race ./ops on a busy 2-core machine.
TIMEOUT   ?= 30m
# vet ran first, in full: go test's own subset would type-check every test
# package a second time.
GOTEST    := $(GO) test -race -vet=off -timeout $(TIMEOUT)

# The steps share the Go cache vet filled, and run two at a time: one
# step's serial phases (links, one package's tests) leave a core to the
# other. ops, the longest (its compile, then about 4 minutes of tests),
# starts first, beside the rest of the library.
test: deps vet
	$(MAKE) --no-print-directory -j2 test-ops test-lib test-cgocheck2 $(MODULES) test-unprivileged

test-ops:
	$(GOTEST) ./ops

test-lib:
	$(GOTEST) $$($(GO) list ./... | grep -v '/ops$$')

test-cgocheck2:
	GOEXPERIMENT=cgocheck2 $(GO) test -vet=off -count=1 -timeout $(TIMEOUT) ./halide/...

# The modules beside the library, each with its own go.mod.
MODULES   := test-example test-mlp test-nn test-bench
test-example: MOD := array/interop/gorgonia/example
test-mlp:     MOD := ops/engine/mlp
test-nn:      MOD := ops/engine/nn
test-bench:   MOD := bench
$(MODULES):
	cd $(MOD) && $(GO) vet -race ./... && $(GOTEST) ./...

# The gorgonia engine where the process may not use userfaultfd (a user
# other than root, Debian's default): the engine's tests and gorgonia's
# own code on it (nn, mlp), run as nobody when make runs as root, else as
# the user (ops/engine/doc.go, "Writing"); of mlp, the tests of
# gorgonia's solvers, examples and ops. As root, where a mount namespace
# can be made, the uffd tests run once more as nobody with
# /dev/userfaultfd open to it there (the host's node is left as it is):
# the userfaultfd comes from the device node.
test-unprivileged:
	@d=$$(mktemp -d) && chmod 755 $$d && mkdir -m 777 $$d/pocl $$d/home && \
	$(GO) test -race -vet=off -c -o $$d/engine.test ./ops/engine && \
	$(GO) test -race -vet=off -c -o $$d/uffd.test ./internal/uffd && \
	(cd ops/engine/nn && $(GO) test -race -vet=off -c -o $$d/nn.test .) && \
	(cd ops/engine/mlp && $(GO) test -race -vet=off -c -o $$d/mlp.test .) && \
	as=""; if [ "$$(id -u)" = 0 ]; then as="setpriv --reuid=nobody --regid=nogroup --clear-groups"; fi; \
	run() { (cd $$d && $$as env HOME=$$d/home POCL_CACHE_DIR=$$d/pocl "$$@" -test.short -test.timeout $(TIMEOUT)) || { rm -rf $$d; exit 1; }; }; \
	run ./engine.test; run ./nn.test; run ./mlp.test -test.run 'Stock|Examples|Coverage|TrainMatches'; \
	if [ -n "$$as" ] && [ -c /dev/userfaultfd ] && unshare --mount true 2>/dev/null; then \
		cp -a /dev/userfaultfd $$d/uffd && chmod 666 $$d/uffd && \
		unshare --mount sh -c "mount --bind $$d/uffd /dev/userfaultfd && cd $$d && \
			$$as env UFFD_TEST_DEVICE=1 ./uffd.test -test.timeout $(TIMEOUT)" || { rm -rf $$d; exit 1; }; \
	else echo "test-unprivileged: no mount namespace here: /dev/userfaultfd not tried"; fi; \
	rm -rf $$d

# The benchmark is its own module (bench/go.mod), so the library's go.mod
# requires no plotting package.
bench: deps
	cd bench && $(GO) run ./cmd/residency -out out

clean:
	rm -rf bin bench/out .cache

include halide/halide.mk
