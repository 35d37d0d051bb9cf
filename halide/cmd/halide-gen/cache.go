package main

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
)

// The generator cache: a generator binary is built once per source content
// and reused for every variant (-f, -target, params), since building one
// takes seconds while running it takes a fraction of one. The key hashes
// everything the binary depends on: the source and the headers it includes
// with quotes, the flags, the compiler, and the Halide build (headers,
// GenGen.cpp, library).

// cacheDir is $HALIDE_GEN_CACHE, else resident/halide-gen in the user cache
// directory ($XDG_CACHE_HOME or ~/.cache); "" when neither is usable.
func cacheDir() string {
	if d := os.Getenv("HALIDE_GEN_CACHE"); d != "" {
		return d
	}
	d, err := os.UserCacheDir()
	if err != nil {
		return ""
	}
	return filepath.Join(d, "resident", "halide-gen")
}

// compileArgs are the compiler arguments of a generator build, output last.
func (c *config) compileArgs(src, exe string) []string {
	args := []string{"-std=c++17", "-O1", "-DHALIDE_ENABLE_RTTI", "-DHALIDE_WITH_EXCEPTIONS", "-I" + c.include}
	for _, d := range c.searchDirs() {
		args = append(args, "-I"+d)
	}
	for _, d := range c.defines {
		args = append(args, "-D"+d)
	}
	args = append(args, strings.Fields(c.cxxFlags)...)
	args = append(args, src, filepath.Join(c.src, "GenGen.cpp"), "-o", exe, "-lHalide14")
	args = append(args, strings.Fields(c.ldFlags)...)
	return append(args, "-ldl", "-lpthread", "-lz")
}

// searchDirs are the -I folders of a generator build: the user's, then
// Halide's tools folder (the one holding GenGen.cpp), where Halide's apps
// find halide_trace_config.h, halide_image_io.h and the like.
func (c *config) searchDirs() []string {
	return append(slices.Clone([]string(c.includes)), c.src)
}

// missingInclude matches gcc's and clang's report of an include not found.
var missingInclude = regexp.MustCompile(`fatal error: '?([^':\s]+)'?(?:: | file not found)`)

// explainBuild adds to a failed generator build the flag that fixes a
// missing include.
func (c *config) explainBuild(src string, err error) error {
	if err == nil {
		return nil
	}
	m := missingInclude.FindStringSubmatch(err.Error())
	if m == nil {
		return err
	}
	return fmt.Errorf("generator %s includes %s, found in none of the folders searched (%s and the compiler's own): pass -I DIR naming the folder that holds it: %w", src, m[1], strings.Join(append([]string{filepath.Dir(src)}, c.searchDirs()...), ", "), err)
}

// generatorKey hashes what the generator binary built from src depends on.
func (c *config) generatorKey(src string) (string, error) {
	h := sha256.New()
	fmt.Fprintf(h, "halide-gen generator v1\x00%s\x00", c.cxx)
	// The compiler's identity: another g++ may build another binary.
	if out, err := exec.Command(c.cxx, "--version").Output(); err == nil {
		h.Write(out)
	}
	for _, a := range c.compileArgs("SRC", "EXE") {
		fmt.Fprintf(h, "%s\x00", a)
	}
	// The Halide build: its main header, GenGen.cpp and the library.
	for _, f := range []string{filepath.Join(c.include, "Halide.h"), filepath.Join(c.src, "GenGen.cpp")} {
		if err := hashFile(h, f); err != nil {
			return "", err
		}
	}
	if lib, err := halideLibrary(); err == nil {
		if st, err := os.Stat(lib); err == nil {
			fmt.Fprintf(h, "%s\x00%d\x00%d\x00", lib, st.Size(), st.ModTime().UnixNano())
		}
	}
	seen := map[string]bool{}
	if err := c.hashSource(h, src, seen); err != nil {
		return "", err
	}
	return hex.EncodeToString(h.Sum(nil))[:32], nil
}

// halideLibrary is the file behind -lHalide14.
func halideLibrary() (string, error) {
	for _, d := range []string{"/usr/lib/x86_64-linux-gnu", "/usr/lib64", "/usr/lib", "/usr/local/lib"} {
		if p, err := filepath.EvalSymlinks(filepath.Join(d, "libHalide14.so")); err == nil {
			return p, nil
		}
	}
	return "", os.ErrNotExist
}

var quotedInclude = regexp.MustCompile(`(?m)^\s*#\s*include\s*"([^"]+)"`)

// hashSource hashes a source file and, recursively, the files it includes
// with quotes, found next to it or in the -I directories. Angle-bracket
// includes are the system's and Halide's, covered by the other inputs.
func (c *config) hashSource(h io.Writer, path string, seen map[string]bool) error {
	abs, err := filepath.Abs(path)
	if err != nil {
		return err
	}
	if seen[abs] {
		return nil
	}
	seen[abs] = true
	b, err := os.ReadFile(abs)
	if err != nil {
		return err
	}
	fmt.Fprintf(h, "%s\x00%d\x00", filepath.Base(abs), len(b))
	h.Write(b)
	for _, m := range quotedInclude.FindAllStringSubmatch(string(b), -1) {
		for _, dir := range append([]string{filepath.Dir(abs)}, c.searchDirs()...) {
			p := filepath.Join(dir, m[1])
			if _, err := os.Stat(p); err == nil {
				if err := c.hashSource(h, p, seen); err != nil {
					return err
				}
				break
			}
		}
	}
	return nil
}

func hashFile(h io.Writer, path string) error {
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	defer f.Close()
	_, err = io.Copy(h, f)
	return err
}
