// Included with quotes by probe_generator.cpp: a change here must change
// the generator cache key. PROBE_OFFSET may come from -D.
#ifndef PROBE_OFFSET
#define PROBE_OFFSET 0
#endif
