// Package goname names Halide arguments in Go: the one rule package
// halide's Arg.GoName and halide-gen's wrapper parameters share.
package goname

import (
	"go/token"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Of turns a Halide name into a Go identifier in lowerCamelCase, as a
// Go wrapper names its parameters: "row_pair_sum" → "rowPairSum",
// "input.1" → "input1", "user_id" → "userID"; Go keywords and predeclared
// names get an "Arg" suffix ("type" → "typeArg"), and names that would
// start with a digit an "arg" prefix.
func Of(name string) string {
	var words []string
	start := -1
	for i, r := range name + "_" {
		alnum := r < utf8.RuneSelf && (unicode.IsLetter(r) || unicode.IsDigit(r))
		if alnum && start < 0 {
			start = i
		} else if !alnum && start >= 0 {
			words = append(words, name[start:i])
			start = -1
		}
	}
	var b strings.Builder
	for i, w := range words {
		lw := strings.ToLower(w)
		switch {
		case i == 0:
			b.WriteString(lw)
		case goInitialisms[lw]:
			b.WriteString(strings.ToUpper(lw))
		default:
			b.WriteString(strings.ToUpper(w[:1]) + w[1:])
		}
	}
	out := b.String()
	switch {
	case out == "":
		return "arg"
	case out[0] >= '0' && out[0] <= '9':
		return "arg" + strings.ToUpper(out[:1]) + out[1:]
	case token.IsKeyword(out) || goPredeclared[out]:
		return out + "Arg"
	}
	return out
}

// goInitialisms are written in one case in Go names (the common ones of
// Go's style guide).
var goInitialisms = map[string]bool{
	"api": true, "cpu": true, "gpu": true, "html": true, "http": true, "id": true,
	"io": true, "ip": true, "json": true, "rgb": true, "rgba": true, "sql": true,
	"uri": true, "url": true, "utf8": true, "uuid": true, "xml": true,
}

// goPredeclared are names a wrapper's parameters must not shadow.
var goPredeclared = map[string]bool{
	"bool": true, "byte": true, "error": true, "float32": true, "float64": true,
	"int": true, "int8": true, "int16": true, "int32": true, "int64": true,
	"uint": true, "uint8": true, "uint16": true, "uint32": true, "uint64": true,
	"uintptr": true, "rune": true, "string": true, "any": true, "len": true,
	"cap": true, "make": true, "new": true, "nil": true, "true": true, "false": true,
	"append": true, "copy": true, "delete": true, "panic": true, "print": true,
	"min": true, "max": true, "clear": true, "close": true, "iota": true,
}
