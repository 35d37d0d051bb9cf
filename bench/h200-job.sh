#!/usr/bin/env bash
# Checks and figures for the H200 in one device call (no Go there), each a
# named step under its own limit, its log in $OUT/NAME.log and its exit
# status in $OUT/summary.txt. Binaries (bin/ carried, xz), built here:
#
#   for p in device/cuda device/capture internal/closerace ops/engine ops; do
#     go test -c -ldflags='-s -w' -o bin/$(echo $p | tr / +).test ./$p; done
#   (cd ops/engine/mlp && go build -ldflags='-s -w' -o ../../../bin/mlp .)
#   xz -T0 -3 bin/*
#
#   STEPS="cuda-tests closerace" bash bench/h200-job.sh   # some steps
set -u
cd "$(dirname "$0")/.."
export HL_OCL_PLATFORM_NAME=${HL_OCL_PLATFORM_NAME:-NVIDIA} POCL_CACHE_DIR=${POCL_CACHE_DIR:-/tmp/pocl-cache}
export LD_LIBRARY_PATH=${LD_LIBRARY_PATH:+$LD_LIBRARY_PATH:}/usr/local/cuda/lib64
PY=${PY:-/opt/torch/.venv/bin/python3}
OUT=${OUT:-$PWD/h200-out}
mkdir -p "$OUT"
for f in bin/*.xz; do [ -e "$f" ] && xz -d -f "$f" && chmod +x "${f%.xz}"; done
B=$PWD/bin

# step NAME LIMIT DIR CMD...: CMD from DIR (a package's folder, for its
# testdata) under timeout.
step() {
	local name=$1 limit=$2 dir=$3
	shift 3
	[ -n "${STEPS:-}" ] && case " $STEPS " in *" $name "*) ;; *) return ;; esac
	local t0=$SECONDS
	(cd "$dir" && timeout "$limit" "$@") >"$OUT/$name.log" 2>&1
	echo "== $name: exit $? after $((SECONDS - t0)) s: $*" | tee -a "$OUT/summary.txt"
}

step clinfo 30 . bash -c 'nvidia-smi -L; clinfo 2>&1 | grep -iE "platform name|device name|command_buffer"'
# Tests: late event releases and capture on the real driver, the capture
# package on both GPUs, the close race on every device, the engine.
step cuda-tests 150 device/cuda "$B/device+cuda.test" -test.count=1 -test.v -test.run 'TestStreams|Capture|Replay|Record|Graph|Close'
step capture-tests 120 device/capture "$B/device+capture.test" -test.count=1 -test.v
step closerace 150 internal/closerace "$B/internal+closerace.test" -test.count=1 -test.v -test.run 'TestCloseRacesWork$' -rounds 12
step engine-tests 150 ops/engine "$B/ops+engine.test" -test.count=1 -test.short
# The stock gorgonia step against the standard engine, 12 steps, eager
# and replayed, on NVIDIA OpenCL and CUDA.
for dev in opencl cuda; do
	step "mlp-check-$dev" 90 . "$B/mlp" -stock -device "$dev" -steps 12 -std -std-spread 4
	step "mlp-check-$dev-replay" 90 . "$B/mlp" -stock -replay -device "$dev" -steps 12 -std
done
# Figures: cuBLAS at issue 35's GEMM shapes; ops' kernels (copy, RNG)
# on CUDA and NVIDIA OpenCL; eager against replayed; PyTorch beside them.
step gemm-cuda 120 device/cuda "$B/device+cuda.test" -test.run '^$' -test.bench GemmShapes -test.benchtime 0.5s
step ops-cuda 150 device/cuda "$B/device+cuda.test" -test.run '^$' -test.bench 'BenchmarkOps' -test.benchtime 0.3s
step replay-bench 150 device/capture "$B/device+capture.test" -test.run '^$' -test.bench Replay -test.benchtime 0.3s
step launch-replay 60 device/cuda "$B/device+cuda.test" -test.run '^$' -test.count=1 -test.bench LaunchReplay -test.benchtime 20000x
step torch-ops 150 . "$PY" bench/torch_ops.py "$OUT/torch_ops.json"
step torch-rand 60 . "$PY" bench/torch_rand.py
step torch-mlp 300 . "$PY" bench/torch_mlp.py --json "$OUT/torch-mlp.json" --warmup 10 --steps 100
step torch-mlp-ro 300 . "$PY" bench/torch_mlp.py --json "$OUT/torch-mlp-ro.json" --warmup 10 --steps 100 --modes compile --compile-mode reduce-overhead
for dev in opencl cuda; do
	step "mlp-$dev" 120 . "$B/mlp" -stock -device "$dev" -bench -batch 1024 -warmup 30 -steps 300 -torch "$OUT/torch-mlp.json"
	step "mlp-$dev-replay" 120 . "$B/mlp" -stock -replay -device "$dev" -bench -batch 1024 -warmup 30 -steps 300 -torch "$OUT/torch-mlp.json"
done
# Every GEMM choice autotune may keep, run -gemm.repeat times, bit for
# bit the same on NVIDIA OpenCL.
step gemm-exact-opencl 150 ops "$B/ops.test" -test.count=1 -test.v -test.run TestGemmChoicesExact -gemm.repeat 3
# gorgonia's standard engine (the machine's CPU cores) timed against the
# CUDA device engine.
step mlp-std-cuda 240 . "$B/mlp" -stock -device cuda -bench -std -batch 1024 -warmup 5 -steps 50 -std-steps 5
cat "$OUT/summary.txt"
