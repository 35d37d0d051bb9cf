package cl

// Event is a cl_event returned by an enqueue call that was asked for one.
// The zero Event is "no event"; Wait and Release on it are no-ops. Event
// is one word, so a []Event is passed to OpenCL as a cl_event array.
type Event struct{ h uintptr }

// Handle returns the raw cl_event.
func (e Event) Handle() uintptr { return e.h }

// IsZero reports whether e holds no event.
func (e Event) IsZero() bool { return e.h == 0 }

// Wait blocks until the command behind e completes.
func (e Event) Wait() error {
	if e.h == 0 {
		return nil
	}
	return check("clWaitForEvents", clWait([]Event{e}))
}

// Release drops the caller's reference.
func (e Event) Release() error {
	if e.h == 0 {
		return nil
	}
	return release(kindEvent, e.h)
}

// Event execution states, from CL_EVENT_COMMAND_EXECUTION_STATUS; a
// negative status is the error code the command failed with.
const (
	Complete  = 0
	Running   = 1
	Submitted = 2
	Queued    = 3
)

// Status returns the command's execution status.
func (e Event) Status() (int, error) {
	v, err := infoUint("clGetEventInfo", kindEvent, e.h, 0, eventExecutionStatus)
	return int(int32(uint32(v))), err
}

// Elapsed returns the command's run time in nanoseconds; the queue must have
// been created with QueueProfiling.
func (e Event) Elapsed() (int64, error) {
	start, err := infoUint("clGetEventProfilingInfo", kindEventProfiling, e.h, 0, profilingStart)
	if err != nil {
		return 0, err
	}
	end, err := infoUint("clGetEventProfilingInfo", kindEventProfiling, e.h, 0, profilingEnd)
	return int64(end - start), err
}

// WaitForEvents blocks until every event completes. Zero events are
// skipped; an empty list returns at once.
func WaitForEvents(evs ...Event) error {
	live := nonZero(evs)
	if len(live) == 0 {
		return nil
	}
	return check("clWaitForEvents", clWait(live))
}

// nonZero drops zero events from a wait list, which OpenCL would reject.
func nonZero(evs []Event) []Event {
	for _, e := range evs {
		if e.h == 0 {
			live := make([]Event, 0, len(evs))
			for _, e := range evs {
				if e.h != 0 {
					live = append(live, e)
				}
			}
			return live
		}
	}
	return evs
}
