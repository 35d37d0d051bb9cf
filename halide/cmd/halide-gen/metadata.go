package main

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"

	"github.com/resident-go/resident/array"
)

// metadata is what halide_filter_metadata_t says about a pipeline.
type metadata struct {
	Name   string `json:"name"`
	Target string `json:"target"`
	Args   []arg  `json:"args"`
}

type arg struct {
	Name  string `json:"name"`
	Kind  int    `json:"kind"` // 0 scalar, 1 input buffer, 2 output buffer
	Dims  int    `json:"dims"`
	Code  int    `json:"code"` // 0 int, 1 uint, 2 float, 3 handle, 4 bfloat
	Bits  int    `json:"bits"`
	Lanes int    `json:"lanes"`
}

// typ is the argument's element type; its String is how docs name it.
func (a arg) typ() array.Type {
	return array.Type{Code: array.Code(a.Code), Bits: uint8(a.Bits), Lanes: uint16(a.Lanes)}
}

// dumpSource prints NAME_metadata() as JSON. Only the metadata function
// runs, so the pipeline's runtime references are left unresolved. DECL
// declares the metadata function (extern "C", or inside the C++
// namespaces of a namespaced pipeline) and META is its qualified name.
const dumpSource = `#include <stdio.h>
#include "HalideRuntime.h"
DECL
int main() {
    const halide_filter_metadata_t *m = META();
    printf("{\"name\":\"%s\",\"target\":\"%s\",\"args\":[", m->name, m->target);
    for (int i = 0; i < m->num_arguments; i++) {
        const halide_filter_argument_t *a = &m->arguments[i];
        printf("%s{\"name\":\"%s\",\"kind\":%d,\"dims\":%d,\"code\":%d,\"bits\":%d,\"lanes\":%d}",
               i ? "," : "", a->name, a->kind, a->dimensions, a->type.code, a->type.bits, a->type.lanes);
    }
    printf("]}\n");
    return 0;
}
`

// dumpProgram is dumpSource for the function f (ns::name allowed).
func dumpProgram(f string) string {
	parts := strings.Split(f, "::")
	name := parts[len(parts)-1] + "_metadata"
	decl := `extern "C" const halide_filter_metadata_t *` + name + "();"
	meta := name
	if ns := parts[:len(parts)-1]; len(ns) > 0 {
		decl = "const halide_filter_metadata_t *" + name + "();"
		for i := len(ns) - 1; i >= 0; i-- {
			decl = "namespace " + ns[i] + " { " + decl + " }"
		}
		meta = "::" + f + "_metadata"
	}
	return strings.NewReplacer("DECL", decl, "META", meta).Replace(dumpSource)
}

func dumpMetadata(c *config, tmp string) (*metadata, error) {
	src := filepath.Join(tmp, "dump.cpp")
	if err := os.WriteFile(src, []byte(dumpProgram(c.funcName)), 0o644); err != nil {
		return nil, err
	}
	exe := filepath.Join(tmp, "dump")
	if err := c.exec(c.cxx, "-I"+c.include, "-no-pie", src, filepath.Join(c.outDir, simpleName(c.funcName)+".a"),
		"-o", exe, "-Wl,--unresolved-symbols=ignore-all"); err != nil {
		return nil, err
	}
	out, err := exec.Command(exe).Output()
	if err != nil {
		return nil, fmt.Errorf("metadata dump: %w", err)
	}
	var md metadata
	if err := json.Unmarshal(out, &md); err != nil {
		return nil, fmt.Errorf("metadata dump %q: %w", out, err)
	}
	return &md, nil
}
