package main

import (
	"reflect"
	"sync"
	"unsafe"

	"github.com/resident-go/resident/device/opencl"
)

// enqueueCounter is what a device that counts its own enqueues would
// offer; device/opencl has no such method yet (see enqueued).
type enqueueCounter interface{ Enqueued() int64 }

// enqueued returns a function that reads the number of commands d has
// queued through its pacing (opencl.Device.Pace: every kernel launch of
// package ops, every device-to-device copy of ops.Copy, every Halide
// pipeline call) — the kernel launches of a training step — or nil when
// it cannot be read.
//
// device/opencl counts these commands (its pacer's n, which places a
// marker every 32) but neither exports the count nor puts it in Stats, and
// this module may not change it, so until it does (an Enqueued method,
// taken first here) the count is read by reflection, under the pacer's own
// mutex, after checking the fields' types: a changed layout gives nil, and
// the bench prints "n/a", never a wrong number.
func enqueued(d *opencl.Device) func() int64 {
	if c, ok := any(d).(enqueueCounter); ok {
		return c.Enqueued
	}
	if d == nil {
		return nil
	}
	v := reflect.ValueOf(d).Elem()
	s := v.FieldByName("s")
	if !s.IsValid() || s.Kind() != reflect.Pointer || s.IsNil() {
		return nil
	}
	p := s.Elem().FieldByName("pace")
	if !p.IsValid() || p.Kind() != reflect.Struct {
		return nil
	}
	mu, n := p.FieldByName("mu"), p.FieldByName("n")
	if !mu.IsValid() || mu.Type() != reflect.TypeFor[sync.Mutex]() || !n.IsValid() || n.Kind() != reflect.Int {
		return nil
	}
	lock := (*sync.Mutex)(unsafe.Pointer(mu.UnsafeAddr()))
	return func() int64 {
		lock.Lock()
		defer lock.Unlock()
		return n.Int()
	}
}
