#!/usr/bin/env bash
# Capture and replay on the H200 in one device call: what NVIDIA's OpenCL
# says about cl_khr_command_buffer, the device/capture tests on CUDA and
# NVIDIA OpenCL (drawn sequences against eager runs, scalars, Close under
# replays), the device/cuda tests on the real driver, then the eager vs
# replay ladder (BenchmarkReplay: tiny ops + sync, 8-stage chains on
# 4096² uint8/float32). Build here first:
#   mkdir -p bin && go test -c -ldflags='-s -w' -o bin/device+capture.test ./device/capture &&
#   go test -c -ldflags='-s -w' -o bin/device+cuda.test ./device/cuda && xz -T0 -6 bin/device+*.test
# then carry bin and run: bash bench/capture-h200.sh (logs under $OUT).
set -u
cd "$(dirname "$0")/.."
OUT=${OUT:-$PWD/h200-out}
mkdir -p "$OUT"
export HL_OCL_PLATFORM_NAME=${HL_OCL_PLATFORM_NAME:-NVIDIA}
for f in bin/device+capture.test.xz bin/device+cuda.test.xz; do [ -e "$f" ] && xz -d -f "$f" && chmod +x "${f%.xz}"; done
(nvidia-smi -L; clinfo 2>&1 | grep -iE 'platform name|device name|command_buffer') >"$OUT/capture-clinfo.txt" 2>&1
(cd device/capture && timeout 120 ../../bin/device+capture.test -test.v -test.count=1 -test.run 'Test|Example') >"$OUT/capture-tests.log" 2>&1
echo "device/capture tests: exit $?; $(grep -cE '^\s*--- PASS' "$OUT/capture-tests.log") pass, $(grep -cE '^\s*--- FAIL' "$OUT/capture-tests.log") fail; kinds: $(grep -oE '(CUDA graph|OpenCL command buffer|recorded replay)' "$OUT/capture-tests.log" | sort | uniq -c | tr '\n' ' ')"
(cd device/cuda && timeout 180 ../../bin/device+cuda.test -test.count=1 -test.bench LaunchReplay -test.benchtime 20000x) >"$OUT/cuda-tests.log" 2>&1
echo "device/cuda tests: exit $?"
(cd device/capture && timeout 240 ../../bin/device+capture.test -test.run '^$' -test.bench Replay -test.benchtime "${BENCHTIME:-0.5s}" -test.count "${COUNT:-2}") >"$OUT/capture-bench.txt" 2>&1
echo "bench: exit $?"
grep -h -E "tiny|chain8|LaunchReplay" "$OUT/capture-bench.txt" "$OUT/cuda-tests.log" | sed 's/_(Portable_Computing_Language)//' | awk '{print $1, $3, $4}'
cat "$OUT/capture-clinfo.txt"
