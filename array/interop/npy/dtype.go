package npy

import (
	"errors"
	"fmt"
	"strings"

	"github.com/resident-go/resident/array"
)

var (
	// ErrFormat is wrapped by errors about a malformed or truncated file.
	ErrFormat = errors.New("npy: bad file")
)

// descrOf is the dtype Write writes for elements of type t.
func descrOf(t array.Type) string {
	switch {
	case t.Code == array.BFloat:
		return "|V2"
	case t.Bits == 8 && t.Code == array.Int:
		return "|i1"
	case t.Bits == 8 && t.Code == array.UInt:
		return "|u1"
	}
	kind := map[array.Code]string{array.Int: "i", array.UInt: "u", array.Float: "f"}[t.Code]
	return fmt.Sprintf("<%s%d", kind, t.Bits/8)
}

// dtype is a parsed descr: an Array type and the byte order of the file;
// bool is NumPy's bool ('|b1'), read as uint8 0 and 1.
type dtype struct {
	typ       array.Type
	bigEndian bool
	bool      bool
}

// parseDescr maps a NumPy descr such as "<f8" to an Array type.
func parseDescr(descr string) (dtype, error) {
	if len(descr) < 2 {
		return dtype{}, fmt.Errorf("%w %q", array.ErrType, descr)
	}
	order, rest := descr[0], descr[1:]
	switch order {
	case '<', '|', '=':
	case '>':
	default:
		order, rest = '=', descr // "f8", "bfloat16": no byte-order mark
	}
	if rest == "b1" || rest == "?" {
		return dtype{typ: array.TypeOf[uint8](), bool: true}, nil
	}
	if rest == "bfloat16" || rest == "V2" {
		return dtype{typ: array.TypeOf[array.BFloat16]()}, nil
	}
	var size int
	if len(rest) == 2 && rest[1] >= '1' && rest[1] <= '8' {
		size = int(rest[1] - '0')
	}
	var t array.Type
	switch {
	case rest[0] == 'i' && (size == 1 || size == 2 || size == 4 || size == 8):
		t = array.Type{Code: array.Int, Bits: uint8(8 * size), Lanes: 1}
	case rest[0] == 'u' && (size == 1 || size == 2 || size == 4 || size == 8):
		t = array.Type{Code: array.UInt, Bits: uint8(8 * size), Lanes: 1}
	case rest[0] == 'f' && (size == 2 || size == 4 || size == 8):
		t = array.Type{Code: array.Float, Bits: uint8(8 * size), Lanes: 1}
	default:
		return dtype{}, fmt.Errorf("%w %q (%s): Arrays hold int8…int64, uint8…uint64, float16/32/64, bfloat16 (|V2) and bool (|b1, as uint8); convert in NumPy first, e.g. a.astype('<f4')", array.ErrType, descr, describe(rest))
	}
	big := order == '>' || (order == '=' && bigEndianHost)
	return dtype{typ: t, bigEndian: big && size > 1}, nil
}

// describe names a NumPy type character for error messages.
func describe(rest string) string {
	names := map[byte]string{'b': "bool", '?': "bool", 'c': "complex", 'U': "unicode string", 'S': "byte string", 'a': "byte string",
		'O': "Python object", 'M': "datetime", 'm': "timedelta", 'V': "void/raw bytes", 'f': "float", 'i': "int", 'u': "unsigned int"}
	if n, ok := names[rest[0]]; ok {
		if strings.IndexFunc(rest[1:], func(r rune) bool { return r < '0' || r > '9' }) >= 0 || len(rest) == 1 {
			return n
		}
		return fmt.Sprintf("%s of %s bytes", n, rest[1:])
	}
	return "unknown type"
}
