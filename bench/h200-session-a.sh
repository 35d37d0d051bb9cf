#!/usr/bin/env bash
# One H200 job (no Go there): the device/capture tests on CUDA and NVIDIA
# OpenCL, internal/closerace on both, ops/engine tests on NVIDIA OpenCL,
# eager against replayed work (BenchmarkReplay, BenchmarkLaunchReplay).
# Binaries: see bench/results/h200-2026-12-05.txt. Logs under $OUT.
cd "$(git rev-parse --show-toplevel 2>/dev/null || pwd)"
export HL_OCL_PLATFORM_NAME=NVIDIA POCL_CACHE_DIR=/tmp/pocl-cache LD_LIBRARY_PATH=/usr/local/cuda/lib64
for f in bin/*.xz; do xz -d -f "$f"; chmod +x "${f%.xz}"; done
OUT=${OUT:-/tmp/out}; mkdir -p $OUT
t0=$SECONDS
(nvidia-smi -L; clinfo 2>&1 | grep -iE 'platform name|device name|command_buffer') > $OUT/clinfo.txt 2>&1
(cd device/capture && timeout 100 ../../bin/device+capture.test -test.v -test.count=1 -test.run 'Test|Example') > $OUT/capture-tests.log 2>&1; echo "capture tests rc $? $((SECONDS-t0))s"
(cd internal/closerace && timeout 120 ../../bin/internal+closerace.test -test.v -test.count=1 -test.run 'TestCloseRacesWork$' -rounds 12) > $OUT/closerace.log 2>&1; echo "closerace rc $? $((SECONDS-t0))s"
(cd ops/engine && timeout 150 ../../bin/ops+engine.test -test.count=1 -test.short) > $OUT/engine-tests.log 2>&1; echo "engine tests rc $? $((SECONDS-t0))s"
(cd device/capture && timeout 150 ../../bin/device+capture.test -test.run '^$' -test.bench Replay -test.benchtime 0.3s -test.count 1) > $OUT/capture-bench.txt 2>&1; echo "capture bench rc $? $((SECONDS-t0))s"
(cd device/cuda && timeout 60 ../../bin/device+cuda.test -test.run '^$' -test.count=1 -test.bench LaunchReplay -test.benchtime 20000x) > $OUT/cuda-launch.txt 2>&1; echo "cuda launch rc $? $((SECONDS-t0))s"
grep -E '^(--- |ok|FAIL|PASS)' $OUT/capture-tests.log | head -30
grep -E -- '--- (FAIL|PASS)|race_test' $OUT/closerace.log | head
tail -5 $OUT/engine-tests.log
grep -E 'Benchmark|ns/op' $OUT/capture-bench.txt $OUT/cuda-launch.txt | awk '{print $1,$3,$4}' | head -40
cat $OUT/clinfo.txt
