#!/usr/bin/env bash
# Job 3 of bench/results/h200-2026-12-05.txt: the CUDA capture of Go
# memory (staging) in the device/cuda and device/capture tests, the engine
# tests, then the gorgonia step on CUDA eager and replayed (a CUDA graph)
# beside PyTorch, and the replayed step against the standard engine on
# both GPUs. Now the same steps of bench/h200-job.sh (its header says how
# to build the binaries); logs under $OUT.
STEPS="cuda-tests capture-tests engine-tests torch-mlp mlp-cuda mlp-cuda-replay mlp-check-cuda-replay mlp-check-opencl-replay" exec bash "$(dirname "$0")/h200-job.sh"
