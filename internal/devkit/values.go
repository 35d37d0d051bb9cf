package devkit

import (
	"errors"
	"io"
	"sync"
)

// Values keeps a device's Value state; embed it. The zero value is ready.
type Values struct {
	mu    sync.Mutex
	m     map[any]any
	order []any // keys, oldest first
	shut  bool  // Close ran: new values are closed as they are made
}

// Value returns the value under key, storing init() there first if none
// (with a nil init, it returns nil then). After Close a new value is
// closed at once and not kept: callers get a value that refuses work.
func (v *Values) Value(key any, init func() any) any {
	v.mu.Lock()
	defer v.mu.Unlock()
	if x, ok := v.m[key]; ok || init == nil {
		return x
	}
	if v.shut {
		x := init()
		if c, ok := x.(io.Closer); ok {
			c.Close()
		}
		return x
	}
	if v.m == nil {
		v.m = map[any]any{}
	}
	x := init()
	v.m[key] = x
	v.order = append(v.order, key)
	return x
}

// Close closes the values that are io.Closers, newest first, and forgets
// them all; a device calls it from Close once its gate is shut and empty
// (no work in flight can still use a value) and before it releases its
// memory and context (a value may still release what it made with them).
func (v *Values) Close() error {
	v.mu.Lock()
	m, order := v.m, v.order
	v.m, v.order, v.shut = nil, nil, true
	v.mu.Unlock()
	var errs []error
	for i := len(order) - 1; i >= 0; i-- {
		if c, ok := m[order[i]].(io.Closer); ok {
			errs = append(errs, c.Close())
		}
	}
	return errors.Join(errs...)
}
