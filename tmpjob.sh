#!/usr/bin/env bash
set -u
cd "$(dirname "$0")"
for f in bin/*.xz; do xz -d -f "$f" && chmod +x "${f%.xz}"; done
export LD_LIBRARY_PATH=/usr/local/cuda/lib64 HL_OCL_PLATFORM_NAME=NVIDIA POCL_CACHE_DIR=/tmp/pocl-cache
PY=/opt/torch/.venv/bin/python3
nvidia-smi -L | tee $OUT/card.txt
t() { local n=$1 l=$2; shift 2; local t0=$SECONDS; timeout $l "$@" > $OUT/$n.log 2>&1; echo "== $n: exit $? after $((SECONDS-t0)) s" | tee -a $OUT/summary.txt; }
t torch-mlp 150 $PY bench/torch_mlp.py --json $OUT/torch-mlp.json --warmup 10 --steps 100 --modes eager
for r in 1 2; do for v in -before ""; do for d in cuda opencl; do
  t mlp$v-$d-$r 60 bin/mlp$v -stock -device $d -bench -batch 1024 -warmup 30 -steps 200 -torch $OUT/torch-mlp.json
done; done; done
cd device/cuda; for v in "" -old; do t rand$v 60 ../../bin/device+cuda$v.test -test.run '^$' -test.bench 'BenchmarkOps/(cuda|opencl)/(Copy|Fill|Rand)' -test.benchtime 0.3s -test.count 2; done; cd ../..
t torch-rand 60 $PY bench/torch_rand.py
(cd ops/engine/mlp && t solvers-cuda 120 ../../../bin/ops+engine+mlp.test -test.run 'TestStockSolversMatchStdEngine/cuda' -test.v -test.short)
t mlp-std-cuda 150 bin/mlp -stock -device cuda -bench -std -batch 1024 -warmup 5 -steps 50 -std-steps 5
cat $OUT/summary.txt
