#!/usr/bin/env bash
# Job 1 of bench/results/h200-2026-12-05.txt: the device/capture tests on
# CUDA and NVIDIA OpenCL, internal/closerace on both, ops/engine tests on
# NVIDIA OpenCL, eager against replayed work (BenchmarkReplay,
# BenchmarkLaunchReplay). Now the same steps of bench/h200-job.sh (its
# header says how to build the binaries); logs under $OUT.
STEPS="clinfo capture-tests closerace engine-tests replay-bench launch-replay" exec bash "$(dirname "$0")/h200-job.sh"
