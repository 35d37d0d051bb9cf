#!/bin/sh
# Runs PROGRAM ARGS... with bench/cupti/kernels.c injected (built here
# first, against the CUPTI headers and library it finds) and leaves the
# kernel table in OUT.
#
#	sh bench/cupti/run.sh OUT PROGRAM ARGS...
set -e
out=$1
shift
h=$(find /usr/local/cuda*/ /opt -name cupti.h 2>/dev/null | head -1)
l=$(find /usr/local/cuda*/ /opt -name 'libcupti.so*' 2>/dev/null | head -1)
[ -n "$h" ] && [ -n "$l" ] || { echo "run.sh: no CUPTI header or library found" >&2; exit 1; }
inc=$(dirname "$h")
newest() { grep -ho "$1[0-9]*;" "$inc"/cupti_activity*.h | tr -d ';' | sort -V | tail -1; }
so=${TMPDIR:-/tmp}/cupti-kernels.so
gcc -O2 -shared -fPIC -o "$so" "$(dirname "$0")/kernels.c" -I"$inc" -I/usr/local/cuda/include \
	-DKREC="$(newest CUpti_ActivityKernel)" -DMREC="$(newest CUpti_ActivityMemcpy)" \
	-DSREC="$(newest CUpti_ActivityMemset)" "$l" -lpthread -Wl,-rpath,"$(dirname "$l")"
CUDA_INJECTION64_PATH="$so" CUPTI_OUT="$out" "$@"
