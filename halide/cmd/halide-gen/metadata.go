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
	// A scalar's default, min, max and estimate as C printed them; empty
	// when the generator declares none.
	Def      string `json:"def"`
	Min      string `json:"min"`
	Max      string `json:"max"`
	Estimate string `json:"estimate"`
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
static void value(const char *key, const struct halide_scalar_value_t *v, struct halide_type_t t) {
    if (!v) return;
    printf(",\"%s\":\"", key);
    switch (t.code) {
    case halide_type_int:
        if (t.bits == 8) printf("%d", v->u.i8);
        else if (t.bits == 16) printf("%d", v->u.i16);
        else if (t.bits == 32) printf("%d", v->u.i32);
        else printf("%lld", (long long)v->u.i64);
        break;
    case halide_type_uint:
        if (t.bits == 1) printf("%s", v->u.b ? "true" : "false");
        else if (t.bits == 8) printf("%u", v->u.u8);
        else if (t.bits == 16) printf("%u", v->u.u16);
        else if (t.bits == 32) printf("%u", v->u.u32);
        else printf("%llu", (unsigned long long)v->u.u64);
        break;
    case halide_type_float:
        if (t.bits == 32) printf("%.9g", v->u.f32);
        else printf("%.17g", v->u.f64);
        break;
    default:
        printf("?");
    }
    printf("\"");
}
int main() {
    const halide_filter_metadata_t *m = META();
    printf("{\"name\":\"%s\",\"target\":\"%s\",\"args\":[", m->name, m->target);
    for (int i = 0; i < m->num_arguments; i++) {
        const halide_filter_argument_t *a = &m->arguments[i];
        printf("%s{\"name\":\"%s\",\"kind\":%d,\"dims\":%d,\"code\":%d,\"bits\":%d,\"lanes\":%d",
               i ? "," : "", a->name, a->kind, a->dimensions, a->type.code, a->type.bits, a->type.lanes);
        if (a->kind == 0) {
            value("def", a->scalar_def, a->type);
            value("min", a->scalar_min, a->type);
            value("max", a->scalar_max, a->type);
            value("estimate", a->scalar_estimate, a->type);
        }
        printf("}");
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
