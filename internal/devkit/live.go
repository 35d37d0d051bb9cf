package devkit

import (
	"errors"
	"sync"
)

// Live is the set of a device's objects that its shutdown releases if
// their owners have not (graphs, command buffers). Safe for concurrent
// use; the zero value is ready.
type Live[T comparable] struct {
	mu sync.Mutex
	m  map[T]struct{}
}

// Add lists x.
func (l *Live[T]) Add(x T) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.m == nil {
		l.m = map[T]struct{}{}
	}
	l.m[x] = struct{}{}
}

// Remove unlists x and reports whether it was listed (false: shutdown
// took it, or it was removed before).
func (l *Live[T]) Remove(x T) bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	_, ok := l.m[x]
	delete(l.m, x)
	return ok
}

// Release unlists everything and returns the errors of release on each,
// joined (shutdown).
func (l *Live[T]) Release(release func(T) error) error {
	l.mu.Lock()
	m := l.m
	l.m = nil
	l.mu.Unlock()
	var errs []error
	for x := range m {
		errs = append(errs, release(x))
	}
	return errors.Join(errs...)
}
