// Package bench measures GPU residency: it runs a chain of stages (Halide
// pipelines, ops, or any function of an input and an output Array) over one
// uint8 image in three modes and reports time per iteration, the transfers
// the device counted, and effective bandwidth against two ceilings measured
// in the same run.
//
// Two chains come with it: N × brighter (Brighter, Repeat: the Halide
// lesson-10 stage, uint8 → uint8) and the mixed chain (Mixed), a Halide
// stage followed by ops on other element types: brighter → cast to float32
// → scale → sum into a float32 scalar. Stages declare their output (Output)
// and a float64 host reference; every measured output is checked against
// the references, exactly for integers and within the stage's stated
// tolerance for floats. SimBrighter and SimMixed run the same chains on
// device/sim.
//
//   - Resident: device-aware Arrays; one upload before the first stage and
//     one download after the last (for the mixed chain, the 4-byte sum),
//     nothing in between (the stages run with the transfer guard on, which
//     proves it).
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
// RunSplit spreads a chain over several devices: the image cut into bands
// of rows, band k resident on device k, every band at once, against the
// whole image on the first device in the same run (residency -devices N;
// opencl.Several opens the devices: several GPUs of a platform in one
// context, else the device split, as PoCL's CPU device can be).
//
// Results are plain values (Report, Result, Ceiling) so callers can build
// their own reports; WriteTable, WriteCSV, WriteJSON and WritePlot are the
// ones the residency command writes (from this folder, the bench module):
//
//	go run ./cmd/residency -out out
//	go run ./cmd/residency -chain mixed -out out -name mixed
package bench
