// Command gen writes ops' generated files from ops/internal/optable's
// table; run it from package ops's directory (go generate ./ops).
package main

import (
	"fmt"
	"os"
	"path/filepath"
	"sort"

	"github.com/resident-go/resident/ops/internal/optable"
)

func main() {
	files, err := optable.Generate()
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	names := make([]string, 0, len(files))
	for n := range files {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		if err := os.WriteFile(filepath.FromSlash(n), files[n], 0o644); err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
	}
}
