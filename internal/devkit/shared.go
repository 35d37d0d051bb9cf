package devkit

import "sync"

// Shared is a backend's process-wide default device: opened on first
// use, and again when someone closed it. The zero value is ready.
type Shared[D comparable] struct {
	mu sync.Mutex
	d  D
}

// Get returns the shared device, opening it with open when there is none
// or closed reports it closed.
func (s *Shared[D]) Get(closed func(D) bool, open func() (D, error)) (D, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	var zero D
	if s.d != zero && !closed(s.d) {
		return s.d, nil
	}
	d, err := open()
	if err != nil {
		return zero, err
	}
	s.d = d
	return d, nil
}
