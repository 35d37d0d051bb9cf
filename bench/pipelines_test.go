package bench

// The tests run the lesson-10 chain: its package registers it (the
// library itself imports no example).
import _ "github.com/resident-go/resident/halide/examples/brighter"
