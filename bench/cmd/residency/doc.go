// Command residency runs the GPU-residency benchmark: a chain of Halide
// brighter stages over one uint8 image, resident on the device, round trip
// through the host at every stage, and with explicit sync points, with Go
// and pinned host memory. It prints a markdown table and writes NAME.md,
// NAME.csv, NAME.json and NAME.png (time against stages) under -out.
//
//	go run ./bench/cmd/residency -out bench/out
//	bin/residency -platform NVIDIA -torch torch.json -out $OUT
package main
