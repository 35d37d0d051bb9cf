package devkit

// StagingDefaults fills the staging options a backend's Options leave at
// zero (or below) with the backend's defaults: the chunk size and the
// smallest staged upload and download.
func StagingDefaults(chunk, least, leastD2H *int, defChunk, defLeast, defLeastD2H int) {
	for _, o := range [...]struct {
		p   *int
		def int
	}{{chunk, defChunk}, {least, defLeast}, {leastD2H, defLeastD2H}} {
		if *o.p <= 0 {
			*o.p = o.def
		}
	}
}
