package main

import "os"

func Example() {
	if err := run(os.Stdout); err != nil {
		panic(err)
	}
	// Output:
	// Dense shape (48, 64) shares the pipeline's output: true
	// k=10: out-in at (y 5, x 7) = 10, out = 27
	// k=50: out-in at (y 5, x 7) = 50, out = 67
}
