// Package bench measures GPU residency: it runs a chain of stages (Halide
// pipelines, or any function of an input and an output Array) over one
// image in three modes and reports time per iteration, the transfers the
// device counted, and effective bandwidth against two ceilings measured in
// the same run.
//
//   - Resident: device-aware Arrays; one upload before the first stage and
//     one download after the last, nothing in between (the stages run with
//     the transfer guard on, which proves it).
//   - RoundTrip: every stage gets host-only views (Array.Host), so each
//     stage uploads its input and downloads its output: the lesson-10 way.
//   - Explicit: resident, plus an explicit CopyToHost after each stage the
//     user lists (a sync point, as for inspecting an intermediate).
//
// Each mode runs with host storage in ordinary Go memory and, where the
// device is a device.HostAllocator, in the device's pinned memory
// (array.NewIn). The ceilings are a host↔device copy of the image's bytes
// through the same device and a device-to-device copy (device.Copy).
//
// Results are plain values (Report, Result, Ceiling) so callers can build
// their own reports; WriteTable, WriteCSV, WriteJSON and WritePlot are the
// ones the residency command writes:
//
//	go run ./bench/cmd/residency -out bench/out
package bench
