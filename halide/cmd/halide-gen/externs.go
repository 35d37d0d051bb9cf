package main

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"text/template"
)

// What a pipeline calls besides the runtime, read from the declarations of
// its LLVM assembly: the print and trace hooks, and extern stages
// (define_extern). An extern stage returns i32 and takes at least one
// halide_buffer_t* (its output); runtime functions are halide_* and
// intrinsics llvm.*.

type calls struct {
	print, trace bool
	externs      []externFunc
}

// externFunc is an extern stage the pipeline calls.
type externFunc struct {
	Symbol string   // as linked: C name, or a C++ mangled name
	Name   string   // C name, or the C++ qualified name (ns::f)
	Params []xparam // in order, output buffer(s) last
	CPP    bool     // C++ linkage: Name is qualified, stub is C++
}

type xparam struct {
	Kind  uint32 // 0xffff buffer, else (type code << 8) | bits, as halide/hooks.h
	CType string // the parameter's type in the stub
}

const kindBuffer = 0xffff

func (x externFunc) signature() string {
	var p []string
	for _, a := range x.Params {
		p = append(p, kindName(a.Kind))
	}
	return x.Name + "(" + strings.Join(p, ", ") + ")"
}

func kindName(k uint32) string {
	if k == kindBuffer {
		return "buffer"
	}
	code, bits := k>>8, k&0xff
	switch {
	case code == 1 && bits == 1:
		return "bool"
	case code == 3:
		return "handle"
	}
	return fmt.Sprintf("%s%d", [...]string{"int", "uint", "float", "handle"}[code], bits)
}

// scanCalls reads the declarations of an LLVM assembly file.
func scanCalls(ll string) (calls, error) {
	var c calls
	for _, line := range strings.Split(ll, "\n") {
		if !strings.HasPrefix(line, "declare ") {
			continue
		}
		at := strings.Index(line, "@")
		open := strings.Index(line[at+1:], "(")
		if at < 0 || open < 0 {
			continue
		}
		name := strings.Trim(line[at+1:at+1+open], `"`)
		ret := strings.Fields(line[len("declare "):at])
		params := topLevelParams(line[at+1+open:])
		switch {
		case name == "halide_print":
			c.print = true
		case name == "halide_trace" || name == "halide_trace_helper":
			c.trace = true
		}
		if strings.HasPrefix(name, "halide_") || strings.HasPrefix(name, "llvm.") ||
			len(ret) == 0 || ret[len(ret)-1] != "i32" {
			continue
		}
		x := externFunc{Symbol: name, Name: name}
		buffers := 0
		for _, p := range params {
			k, ct, err := llvmParam(p)
			if err != nil {
				x.Params = nil
				buffers = 0
				break
			}
			if k == kindBuffer {
				buffers++
			}
			x.Params = append(x.Params, xparam{Kind: k, CType: ct})
		}
		if buffers == 0 {
			continue // not an extern stage: a libm function, say
		}
		c.externs = append(c.externs, x)
	}
	return c, nil
}

// topLevelParams splits "(a, b, c) rest" into a, b, c.
func topLevelParams(s string) []string {
	depth, start := 0, 1
	var out []string
	for i, r := range s {
		switch r {
		case '(', '{', '[', '<':
			depth++
		case ')', '}', ']', '>':
			depth--
			if depth == 0 {
				if p := strings.TrimSpace(s[start:i]); p != "" {
					out = append(out, p)
				}
				return out
			}
		case ',':
			if depth == 1 {
				out = append(out, strings.TrimSpace(s[start:i]))
				start = i + 1
			}
		}
	}
	return out
}

// llvmParam maps an LLVM parameter ("i32 zeroext", "%struct.halide_buffer_t*
// noundef") to its kind and C type.
func llvmParam(p string) (uint32, string, error) {
	f := strings.Fields(p)
	if len(f) == 0 {
		return 0, "", fmt.Errorf("empty parameter")
	}
	t, attrs := f[0], strings.Join(f[1:], " ")
	unsigned := strings.Contains(attrs, "zeroext")
	switch {
	case t == "%struct.halide_buffer_t*":
		return kindBuffer, "struct halide_buffer_t *", nil
	case strings.HasSuffix(t, "*"):
		return 3<<8 | 64, "void *", nil
	case t == "i1":
		return 1<<8 | 1, "bool", nil
	case t == "i8" || t == "i16" || t == "i32" || t == "i64":
		bits := t[1:]
		var b uint32
		fmt.Sscan(bits, &b)
		if unsigned {
			return 1<<8 | b, "uint" + bits + "_t", nil
		}
		return b, "int" + bits + "_t", nil
	case t == "float":
		return 2<<8 | 32, "float", nil
	case t == "double":
		return 2<<8 | 64, "double", nil
	}
	return 0, "", fmt.Errorf("parameter type %s", t)
}

// goExterns keeps the extern stages Go implements: not those named with
// -cextern, not those another pipeline in the output directory defines (a
// pipeline as extern stage). C++ names are demangled with c++filt.
func (c *config) goExterns(all []externFunc) ([]externFunc, error) {
	defined, err := definedElsewhere(c.outDir, simpleName(c.funcName)+".a")
	if err != nil {
		return nil, err
	}
	skip := map[string]bool{}
	for _, n := range c.cExterns {
		for _, s := range strings.Split(n, ",") {
			skip[strings.TrimSpace(s)] = true
		}
	}
	var out []externFunc
	for _, x := range all {
		if defined[x.Symbol] {
			continue
		}
		if strings.HasPrefix(x.Symbol, "_Z") {
			if err := demangle(&x); err != nil {
				return nil, err
			}
		}
		if skip[x.Name] || skip[x.Symbol] {
			continue
		}
		out = append(out, x)
	}
	return out, nil
}

// definedElsewhere lists the symbols the other .a files of dir define.
func definedElsewhere(dir, self string) (map[string]bool, error) {
	libs, _ := filepath.Glob(filepath.Join(dir, "*.a"))
	syms := map[string]bool{}
	for _, l := range libs {
		if filepath.Base(l) == self {
			continue
		}
		out, err := exec.Command("nm", "--defined-only", "-g", l).Output()
		if err != nil {
			return nil, fmt.Errorf("nm %s: %w", l, err)
		}
		for _, line := range strings.Split(string(out), "\n") {
			if f := strings.Fields(line); len(f) == 3 {
				syms[f[2]] = true
			}
		}
	}
	return syms, nil
}

// demangle fills a C++ extern's qualified name and parameter types from
// c++filt: "ns::f(halide_buffer_t*, unsigned int)".
func demangle(x *externFunc) error {
	out, err := exec.Command("c++filt", x.Symbol).Output()
	if err != nil {
		return fmt.Errorf("c++filt %s: %w", x.Symbol, err)
	}
	s := strings.TrimSpace(string(out))
	open := strings.Index(s, "(")
	if open < 0 || !strings.HasSuffix(s, ")") {
		return fmt.Errorf("extern stage %s: cannot read its C++ signature %q", x.Symbol, s)
	}
	x.Name, x.CPP = s[:open], true
	types := topLevelParams(s[open:])
	if len(types) != len(x.Params) {
		return fmt.Errorf("extern stage %s: c++filt lists %d parameters, LLVM %d", s, len(types), len(x.Params))
	}
	for i, t := range types {
		x.Params[i].CType = t
		if strings.HasPrefix(t, "unsigned") && x.Params[i].Kind>>8 == 0 {
			x.Params[i].Kind |= 1 << 8
		}
	}
	return nil
}

// stubFile is the file of x's stub in the pipeline's package: one per
// extern symbol, so two pipelines of a package calling it share it.
func stubFile(x externFunc) string {
	ext := ".extern.c"
	if x.CPP {
		ext = ".extern.cpp"
	}
	return strings.ReplaceAll(x.Name, "::", "_") + ext
}

var stubTmpl = template.Must(template.New("stub").Funcs(template.FuncMap{
	"hex": func(k uint32) string { return fmt.Sprintf("0x%04x", k) },
}).Parse(`// Code generated by halide-gen; DO NOT EDIT.

// The extern stage {{.X.Name}}: it hands its arguments to the Go function
// registered with halide.RegisterExtern("{{.X.Name}}", fn).
#include <stdbool.h>
#include <stdint.h>
#include <string.h>

struct halide_buffer_t;
{{if .X.CPP}}extern "C" {{end}}int gohl_extern_dispatch(const char *name, int nargs, const uint32_t *kinds, const uint64_t *vals);
{{range .NS}}
namespace {{.}} {
{{- end}}
{{if .X.CPP}}{{else}}int {{.Simple}}({{range $i, $p := .X.Params}}{{if $i}}, {{end}}{{$p.CType}} a{{$i}}{{end}});
{{end}}
int {{.Simple}}({{range $i, $p := .X.Params}}{{if $i}}, {{end}}{{$p.CType}} a{{$i}}{{end}}) {
    static const uint32_t kinds[{{len .X.Params}}] = { {{- range $i, $p := .X.Params}}{{if $i}}, {{end}}{{hex $p.Kind}}{{end -}} };
    uint64_t v[{{len .X.Params}}];
{{- range $i, $a := .Packs}}
    {{$a}}
{{- end}}
    return gohl_extern_dispatch("{{.X.Name}}", {{len .X.Params}}, kinds, v);
}
{{range .NS}}}  // namespace {{.}}
{{end -}}
`))

// pack is the C statement that stores argument i in v[i].
func pack(i int, p xparam) string {
	code, bits := p.Kind>>8, p.Kind&0xff
	switch {
	case p.Kind == kindBuffer || code == 3:
		return fmt.Sprintf("v[%d] = (uint64_t)(uintptr_t)a%d;", i, i)
	case code == 2:
		return fmt.Sprintf("{ uint%d_t u; memcpy(&u, &a%d, sizeof u); v[%d] = u; }", bits, i, i)
	case code == 1:
		return fmt.Sprintf("v[%d] = (uint64_t)a%d;", i, i)
	}
	return fmt.Sprintf("v[%d] = (uint64_t)(int64_t)a%d;", i, i)
}

func stubSource(x externFunc) ([]byte, error) {
	parts := strings.Split(x.Name, "::")
	d := struct {
		X      externFunc
		NS     []string
		Simple string
		Packs  []string
	}{X: x, NS: parts[:len(parts)-1], Simple: parts[len(parts)-1]}
	for i, p := range x.Params {
		d.Packs = append(d.Packs, pack(i, p))
	}
	var b bytes.Buffer
	err := stubTmpl.Execute(&b, d)
	return b.Bytes(), err
}

func writeStub(dir string, x externFunc) error {
	src, err := stubSource(x)
	if err != nil {
		return err
	}
	return os.WriteFile(filepath.Join(dir, stubFile(x)), src, 0o644)
}

// externNames lists the externs' signatures, sorted, for docs.
func externNames(xs []externFunc) []string {
	var out []string
	for _, x := range xs {
		out = append(out, x.signature())
	}
	sort.Strings(out)
	return out
}
