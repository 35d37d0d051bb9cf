#!/usr/bin/env bash
# One H200 job (no Go there): the CUDA capture of Go memory (staging) in the
# device/cuda and device/capture tests, then the gorgonia step on CUDA eager
# and replayed (a CUDA graph) beside PyTorch. Binaries: see
# bench/results/h200-2026-12-05.txt. Logs under $OUT.
cd "$(git rev-parse --show-toplevel 2>/dev/null || pwd)"
export HL_OCL_PLATFORM_NAME=NVIDIA POCL_CACHE_DIR=/tmp/pocl-cache LD_LIBRARY_PATH=/usr/local/cuda/lib64
for f in bin/*.xz; do xz -d -f "$f"; chmod +x "${f%.xz}"; done
OUT=${OUT:-/tmp/out}; mkdir -p "$OUT"
t0=$SECONDS
(cd device/cuda && timeout 120 ../../bin/device+cuda.test -test.v -test.count=1 -test.run 'Capture|Replay|Record|Graph') > "$OUT/cuda-capture-tests.log" 2>&1; echo "cuda capture tests rc $? $((SECONDS-t0))s"
(cd device/capture && timeout 100 ../../bin/device+capture.test -test.v -test.count=1 -test.run 'Test|Example') > "$OUT/capture-tests.log" 2>&1; echo "capture tests rc $? $((SECONDS-t0))s"
(cd ops/engine && timeout 100 ../../bin/ops+engine.test -test.v -test.count=1 -test.run 'Capture') > "$OUT/engine-capture.log" 2>&1; echo "engine capture tests rc $? $((SECONDS-t0))s"
/opt/torch/.venv/bin/python3 bench/torch_mlp.py --json "$OUT/torch-mlp.json" --warmup 10 --steps 100 > "$OUT/mlp-torch.log" 2>&1; echo "torch rc $? $((SECONDS-t0))s"
timeout 90 bin/mlp -stock -device cuda -bench -batch 1024 -warmup 30 -steps 300 -torch "$OUT/torch-mlp.json" > "$OUT/mlp-stock-cuda.log" 2>&1; echo "stock cuda rc $? $((SECONDS-t0))s"
timeout 90 bin/mlp -stock -replay -device cuda -bench -batch 1024 -warmup 30 -steps 300 -torch "$OUT/torch-mlp.json" > "$OUT/mlp-replay-cuda.log" 2>&1; echo "replay cuda rc $? $((SECONDS-t0))s"
timeout 90 bin/mlp -stock -replay -device cuda -steps 12 -std > "$OUT/mlp-replay-cuda-check.log" 2>&1; echo "replay cuda vs std rc $? $((SECONDS-t0))s"
timeout 60 bin/mlp -stock -replay -steps 12 -std > "$OUT/mlp-replay-opencl-check.log" 2>&1; echo "replay opencl vs std rc $? $((SECONDS-t0))s"
grep -E '^(--- |ok|FAIL|PASS)' "$OUT"/cuda-capture-tests.log "$OUT"/capture-tests.log "$OUT"/engine-capture.log | grep -v 'PASS: .*/' | head -40
grep -hE 'device|PyTorch|÷|until' "$OUT"/mlp-stock-cuda.log "$OUT"/mlp-replay-cuda.log
tail -15 "$OUT"/mlp-replay-cuda-check.log "$OUT"/mlp-replay-opencl-check.log
