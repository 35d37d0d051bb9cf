package devkit

import "sync"

// Values keeps a device's Value state; embed it. The zero value is ready.
type Values struct {
	mu sync.Mutex
	m  map[any]any
}

// Value returns the value under key, storing init() there first if none
// (with a nil init, it returns nil then).
func (v *Values) Value(key any, init func() any) any {
	v.mu.Lock()
	defer v.mu.Unlock()
	if x, ok := v.m[key]; ok || init == nil {
		return x
	}
	if v.m == nil {
		v.m = map[any]any{}
	}
	x := init()
	v.m[key] = x
	return x
}
