#!/usr/bin/env bash
# Builds every package's test binary for the accelerator machine (no Go
# there) as bin/PATH.test, PATH the package's folder with '+' for '/'
# ('root' for the module's own), stripped and compressed with xz; the
# test step of bench/h200.sh runs each in full from its folder.
set -eu
cd "$(dirname "$0")/.."
mkdir -p bin
rm -f bin/*.test bin/*.test.xz
# The library's packages, then the bench module's (its own go.mod, built
# from its folder; its import paths name the folders too).
# MODULES=. builds the library's only (the carried tree's 64 MiB holds
# the library's binaries, or the library's and bench's at xz -9e).
root=$PWD
for mod in ${MODULES:-. bench}; do
	for p in $(cd "$mod" && go list -f '{{if or .TestGoFiles .XTestGoFiles}}{{.ImportPath}}{{end}}' ./...); do
		rel=${p#github.com/resident-go/resident}
		rel=${rel#/}
		name=${rel//\//+}
		sub=${rel#"${mod#.}"}
		sub=${sub#/}
		(cd "$mod" && go test -c -ldflags='-s -w' -o "$root/bin/${name:-root}.test" "./$sub")
	done
done
xz -T0 "-${XZ:-6}" bin/*.test
du -sh bin
