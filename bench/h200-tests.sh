#!/usr/bin/env bash
# The H200 test run in one device call: every binary bench/build-tests.sh
# made, in full, from its package's folder, several at once (each under
# its own limit), on NVIDIA OpenCL (HL_OCL_PLATFORM_NAME) and CUDA; then
# the Close race on every device there, ROUNDS rounds. Logs under $OUT.
set -u
cd "$(dirname "$0")/.."
OUT=${OUT:-$PWD/h200-out}
mkdir -p "$OUT"
export HL_OCL_PLATFORM_NAME=${HL_OCL_PLATFORM_NAME:-NVIDIA}
export POCL_CACHE_DIR=${POCL_CACHE_DIR:-/tmp/pocl-cache}
for f in bin/*.test.xz; do [ -e "$f" ] && xz -d -f "$f" && chmod +x "${f%.xz}"; done
run() {
	b=$1 t=$(basename "$1" .test)
	dir=${t//+//}
	[ "$t" = root ] && dir=.
	[ -d "$dir" ] || dir=.
	t0=$SECONDS
	(cd "$dir" && timeout "${LIMIT:-420}" "$OLDPWD/$b" -test.count=1 -test.v) >"$OUT/test-$t.log" 2>&1
	rc=$?
	echo "$t: exit $rc after $((SECONDS - t0)) s, $(grep -c '^--- PASS' "$OUT/test-$t.log") pass, $(grep -c '^--- FAIL' "$OUT/test-$t.log") fail, $(grep -c '^--- SKIP' "$OUT/test-$t.log") skip"
	grep -E '^\s*--- FAIL' "$OUT/test-$t.log" | head -5
}
export -f run
export OUT
ls bin/*.test | xargs -P "${JOBS:-6}" -I{} bash -c 'run {}' | sort | tee "$OUT/summary.txt"
t0=$SECONDS
(cd internal/closerace && timeout 150 ../../bin/internal+closerace.test -test.run 'CloseRacesWork$' -test.v -rounds="${ROUNDS:-50}") >"$OUT/closerace-50.log" 2>&1
echo "closerace ${ROUNDS:-50} rounds: exit $? after $((SECONDS - t0)) s: $(grep -E '^    --- (PASS|FAIL)' "$OUT/closerace-50.log" | tr '\n' ' ')" | tee -a "$OUT/summary.txt"
