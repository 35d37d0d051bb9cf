// Package streamkit is what the device backends share of streamed
// execution (internal/plumb.Streams, for package stream): the upload and
// download queues made on first use, the frame of a stream command and of
// a stream transfer, and a backend's registration. It sits apart from
// devkit because internal/plumb's tests reach devkit through device/sim.
package streamkit
