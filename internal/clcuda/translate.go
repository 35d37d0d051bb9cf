// Package clcuda translates the OpenCL C of package ops' kernels into
// CUDA C++ for NVRTC, so that device/cuda builds the same kernel
// definitions as device/opencl. Most of OpenCL C is C that CUDA C++
// compiles as it is; Prelude supplies the rest (scalar and vector types,
// work-item functions, barrier, the math and conversion built-ins ops
// uses, mem_fence and the 32-bit atomic functions), and Translate
// rewrites what a macro cannot:
//
//   - comments are dropped (blanked, so line numbers in NVRTC's log are
//     those of the source);
//   - OpenCL vector type names (float4, uchar16, …) become the prelude's
//     (rcl_float4, …: CUDA has its own float4, without arithmetic), their
//     literals ((float4)(a, b, c, d), also through a #define alias such
//     as TVT) become constructor calls, and the swizzles .s0–.s3 become
//     .x–.w;
//   - __kernel becomes extern "C" __global__ (kernels keep their names);
//     __attribute__((reqd_work_group_size(X, Y, Z))) becomes
//     __launch_bounds__(X·Y·Z);
//   - a kernel's __local T *p parameter becomes an unsigned long holding
//     p's byte offset in the launch's dynamic shared memory, and p is
//     declared from it at the top of the body: the device passes each
//     device.Local argument as such an offset and sums them into the
//     launch's shared-memory size;
//   - __local declarations inside a body become __shared__; everywhere
//     else (helper parameters, casts) __local, __global and __constant
//     are the prelude's empty or const macros;
//   - #pragma OPENCL lines are dropped; FP_CONTRACT OFF becomes NVRTC's
//     --fmad=false for the program.
//
// The work-item functions read CUDA's built-in variables, so a launch
// must cover the global size exactly (device/cuda's Enqueue picks blocks
// that divide it, as OpenCL 1.2 does when the local size is left to it).
package clcuda

import (
	"fmt"
	"regexp"
	"strings"
)

// Program is a translated program.
type Program struct {
	// Source is the CUDA C++: Prelude, then the translated source after
	// a #line directive.
	Source string
	// Options are the NVRTC options the source needs (the device adds its
	// architecture).
	Options []string
}

// Translate translates OpenCL C source. options are OpenCL build
// options: -D and -U become #define and #undef lines before the source
// (-DX alone defines X as 1, as compilers do); -cl-* options (OpenCL's
// own) are dropped; anything else is an error, as a typo would be.
func Translate(src, options string) (*Program, error) {
	p := &Program{Options: []string{"--std=c++17", "--device-as-default-execution-space"}}
	var defs strings.Builder
	for _, o := range strings.Fields(options) {
		switch {
		case strings.HasPrefix(o, "-D") && len(o) > 2:
			name, val, ok := strings.Cut(o[2:], "=")
			if !ok {
				val = "1"
			}
			fmt.Fprintf(&defs, "#define %s %s\n", name, val)
		case strings.HasPrefix(o, "-U") && len(o) > 2:
			fmt.Fprintf(&defs, "#undef %s\n", o[2:])
		case strings.HasPrefix(o, "-cl-"):
		default:
			return nil, fmt.Errorf("clcuda: build option %q has no NVRTC form (only -D, -U and -cl-* are taken)", o)
		}
	}
	s := stripComments(src)
	s, contract := dropPragmas(s)
	if !contract {
		p.Options = append(p.Options, "--fmad=false")
	}
	s = vecName.ReplaceAllString(s, "rcl_$1$2")
	s = vectorLiterals(s)
	s = swizzle.ReplaceAllStringFunc(s, func(m string) string { return "." + string("xyzw"[m[2]-'0']) })
	var err error
	if s, err = kernels(s); err != nil {
		return nil, err
	}
	s = sharedDecls(s)
	p.Source = Prelude + defs.String() + "#line 1 \"opencl.cl\"\n" + s
	return p, nil
}

// stripComments blanks // and /* */ comments (keeping newlines), outside
// string and character literals.
func stripComments(s string) string {
	b := []byte(s)
	for i := 0; i < len(b); i++ {
		switch {
		case b[i] == '"' || b[i] == '\'':
			q := b[i]
			for i++; i < len(b) && b[i] != q && b[i] != '\n'; i++ {
				if b[i] == '\\' {
					i++
				}
			}
		case b[i] == '/' && i+1 < len(b) && b[i+1] == '/':
			// to the end of the line, and on past backslash-newlines
			for ; i < len(b) && b[i] != '\n'; i++ {
				if b[i] == '\\' && i+1 < len(b) && b[i+1] == '\n' {
					i++ // keep the newline
					continue
				}
				b[i] = ' '
			}
		case b[i] == '/' && i+1 < len(b) && b[i+1] == '*':
			b[i], b[i+1] = ' ', ' '
			for i += 2; i < len(b) && !(b[i] == '*' && i+1 < len(b) && b[i+1] == '/'); i++ {
				if b[i] != '\n' {
					b[i] = ' '
				}
			}
			if i < len(b) {
				b[i], b[i+1] = ' ', ' '
				i++
			}
		}
	}
	return string(b)
}

var pragma = regexp.MustCompile(`(?m)^[ \t]*#[ \t]*pragma[ \t]+OPENCL\b([^\n]*)$`)

// dropPragmas blanks #pragma OPENCL lines; contract is false when one
// turns FP_CONTRACT off.
func dropPragmas(s string) (string, bool) {
	contract := true
	s = pragma.ReplaceAllStringFunc(s, func(l string) string {
		if f := strings.Fields(pragma.FindStringSubmatch(l)[1]); len(f) == 2 && f[0] == "FP_CONTRACT" && f[1] == "OFF" {
			contract = false
		}
		return ""
	})
	return s, contract
}

var (
	vecName = regexp.MustCompile(`\b(u?char|u?short|u?int|u?long|float|double)(2|3|4|8|16)\b`)
	renamed = regexp.MustCompile(`\brcl_(u?char|u?short|u?int|u?long|float|double)(2|3|4|8|16)\b`)
	swizzle = regexp.MustCompile(`\.s([0-3])\b`)
	define  = regexp.MustCompile(`(?m)^[ \t]*#[ \t]*define[ \t]+(\w+)[ \t]+(\w+)[ \t]*$`)
	literal = regexp.MustCompile(`\(\s*(\w+)\s*\)\s*\(`)
)

// vectorLiterals turns (V)(…) into V(…) for every vector type V and every
// name #defined as one.
func vectorLiterals(s string) string {
	vec := map[string]bool{}
	for _, m := range renamed.FindAllString(s, -1) {
		vec[m] = true
	}
	defs := define.FindAllStringSubmatch(s, -1)
	for grew := true; grew; {
		grew = false
		for _, d := range defs {
			if vec[d[2]] && !vec[d[1]] {
				vec[d[1]], grew = true, true
			}
		}
	}
	return literal.ReplaceAllStringFunc(s, func(m string) string {
		name := literal.FindStringSubmatch(m)[1]
		if !vec[name] {
			return m
		}
		return name + "("
	})
}

// skipSpace returns the index of the first byte at or after i that is
// neither white space nor a backslash-newline.
func skipSpace(s string, i int) int {
	for i < len(s) {
		switch {
		case s[i] == ' ' || s[i] == '\t' || s[i] == '\n' || s[i] == '\r':
			i++
		case s[i] == '\\' && i+1 < len(s) && s[i+1] == '\n':
			i += 2
		default:
			return i
		}
	}
	return i
}

// closing returns the index of the parenthesis that closes the one at i.
func closing(s string, i int) int {
	depth := 0
	for j := i; j < len(s); j++ {
		switch s[j] {
		case '(':
			depth++
		case ')':
			if depth--; depth == 0 {
				return j
			}
		}
	}
	return -1
}

var (
	kernelKw = regexp.MustCompile(`\b__kernel\b`)
	ident    = regexp.MustCompile(`^[A-Za-z_]\w*$`)
	lastWord = regexp.MustCompile(`(\w+)\s*$`)
)

// kernels rewrites every kernel's header: see the package comment.
func kernels(s string) (string, error) {
	var out strings.Builder
	last := 0
	for _, loc := range kernelKw.FindAllStringIndex(s, -1) {
		if loc[0] < last {
			continue
		}
		h, end, err := kernelHeader(s, loc[0])
		if err != nil {
			return "", err
		}
		out.WriteString(s[last:loc[0]])
		out.WriteString(h)
		last = end
	}
	out.WriteString(s[last:])
	return out.String(), nil
}

// kernelHeader translates the kernel whose __kernel is at k, from there to
// just past the body's opening brace (returned as end).
func kernelHeader(s string, k int) (string, int, error) {
	line := strings.Count(s[:k], "\n") + 1
	fail := func(format string, args ...any) (string, int, error) {
		return "", 0, fmt.Errorf("clcuda: the kernel at line %d: %s", line, fmt.Sprintf(format, args...))
	}
	i := k + len("__kernel")
	ws1 := s[i:skipSpace(s, i)]
	i += len(ws1)
	bounds, ws2 := "", ""
	if strings.HasPrefix(s[i:], "__attribute__") {
		o := skipSpace(s, i+len("__attribute__"))
		c := closing(s, o)
		if o >= len(s) || s[o] != '(' || c < 0 {
			return fail("unbalanced __attribute__")
		}
		attr := strings.TrimSpace(s[o+1 : c])
		attr = strings.TrimSuffix(strings.TrimPrefix(attr, "("), ")")
		name, args, ok := strings.Cut(attr, "(")
		if !ok || strings.TrimSpace(name) != "reqd_work_group_size" {
			return fail("attribute %q has no CUDA form (only reqd_work_group_size)", attr)
		}
		args = strings.TrimSuffix(strings.TrimSpace(args), ")")
		dims := splitTop(args)
		if len(dims) != 3 {
			return fail("reqd_work_group_size(%s) wants three sizes", args)
		}
		bounds = fmt.Sprintf(" __launch_bounds__((%s) * (%s) * (%s))", strings.TrimSpace(dims[0]), strings.TrimSpace(dims[1]), strings.TrimSpace(dims[2]))
		i = c + 1
		ws2 = s[i:skipSpace(s, i)]
		i += len(ws2)
	}
	if !strings.HasPrefix(s[i:], "void") {
		return fail("a kernel returns void")
	}
	i += len("void")
	o := strings.IndexByte(s[i:], '(')
	if o < 0 {
		return fail("no parameter list")
	}
	name := s[i : i+o]
	if n := strings.TrimSpace(strings.ReplaceAll(name, "\\\n", "")); n == "" || strings.ContainsAny(n, ";{}") {
		return fail("no kernel name before the parameter list")
	}
	o += i
	c := closing(s, o)
	if c < 0 {
		return fail("unbalanced parameter list")
	}
	params := splitTop(s[o+1 : c])
	var prologue strings.Builder
	for j, p := range params {
		t := strings.TrimSpace(strings.ReplaceAll(p, "\\\n", " "))
		if !strings.HasPrefix(t, "__local") {
			continue
		}
		t = strings.TrimSpace(strings.TrimPrefix(t, "__local"))
		m := lastWord.FindStringSubmatchIndex(t)
		if m == nil || !strings.Contains(t[:m[2]], "*") {
			return fail("__local parameter %q is not a pointer", p)
		}
		pname, ptype := t[m[2]:m[3]], strings.TrimSpace(t[:m[2]])
		if !ident.MatchString(pname) {
			return fail("__local parameter %q has no name", p)
		}
		lead := p[:len(p)-len(strings.TrimLeft(p, " \t\n\\"))]
		params[j] = lead + "unsigned long rcl_lo_" + pname
		fmt.Fprintf(&prologue, " %s%s = (%s)(rcl_smem + rcl_lo_%s);", ptype, pname, ptype, pname)
	}
	b := skipSpace(s, c+1)
	if b >= len(s) || s[b] != '{' {
		return fail("no body after the parameter list (a kernel prototype?)")
	}
	h := `extern "C" __global__` + ws1 + "void" + bounds + ws2 + name + "(" + strings.Join(params, ",") + ")" + s[c+1:b+1] + prologue.String()
	return h, b + 1, nil
}

// splitTop splits s at its top-level commas (outside parentheses).
func splitTop(s string) []string {
	if strings.TrimSpace(s) == "" {
		return nil
	}
	var parts []string
	depth, start := 0, 0
	for i := 0; i < len(s); i++ {
		switch s[i] {
		case '(', '[', '{':
			depth++
		case ')', ']', '}':
			depth--
		case ',':
			if depth == 0 {
				parts = append(parts, s[start:i])
				start = i + 1
			}
		}
	}
	return append(parts, s[start:])
}

var localKw = regexp.MustCompile(`\b__local\b`)

// sharedDecls turns __local at the start of a statement (after ; { or },
// across white space and backslash-newlines) into __shared__.
func sharedDecls(s string) string {
	var out strings.Builder
	last := 0
	for _, loc := range localKw.FindAllStringIndex(s, -1) {
		j := loc[0] - 1
		for j >= 0 && (s[j] == ' ' || s[j] == '\t' || s[j] == '\n' || s[j] == '\r' || (s[j] == '\\' && j+1 < len(s) && s[j+1] == '\n')) {
			j--
		}
		if j >= 0 && (s[j] == ';' || s[j] == '{' || s[j] == '}') {
			out.WriteString(s[last:loc[0]])
			out.WriteString("__shared__")
			last = loc[1]
		}
	}
	out.WriteString(s[last:])
	return out.String()
}
