package npy

import (
	"encoding/binary"
	"fmt"
	"io"
	"math"
	"math/bits"
	"strconv"
	"strings"

	"github.com/resident-go/resident/array"
)

// Header is what an .npy file says about its array.
type Header struct {
	// Descr is the NumPy dtype, such as "<f8".
	Descr string
	// Fortran is true when axis 0 varies fastest in the data.
	Fortran bool
	// Shape lists NumPy's axes, outermost first: the reverse of the
	// Array's extents.
	Shape []int
}

const (
	magic = "\x93NUMPY"
	// maxHeader bounds the header a reader accepts (NumPy's own default
	// limit is 10000 bytes).
	maxHeader = 1 << 20
)

// ReadHeader reads the magic string, version and header of an .npy file,
// leaving r at the first data byte.
func ReadHeader(r io.Reader) (Header, error) {
	var pre [8]byte
	if n, err := io.ReadFull(r, pre[:]); err != nil {
		return Header{}, fmt.Errorf("%w: %d bytes: too short for the 8-byte magic and version of an .npy file", ErrFormat, n)
	}
	if string(pre[:6]) != magic {
		return Header{}, fmt.Errorf("%w: magic %q, want %q: not an .npy file", ErrFormat, pre[:6], magic)
	}
	var hlen int
	switch major := pre[6]; major {
	case 1:
		var b [2]byte
		if _, err := io.ReadFull(r, b[:]); err != nil {
			return Header{}, fmt.Errorf("%w: truncated in the header length", ErrFormat)
		}
		hlen = int(binary.LittleEndian.Uint16(b[:]))
	case 2, 3:
		var b [4]byte
		if _, err := io.ReadFull(r, b[:]); err != nil {
			return Header{}, fmt.Errorf("%w: truncated in the header length", ErrFormat)
		}
		n := binary.LittleEndian.Uint32(b[:])
		if n > maxHeader {
			return Header{}, fmt.Errorf("%w: header of %d bytes exceeds the %d-byte limit", ErrFormat, n, maxHeader)
		}
		hlen = int(n)
	default:
		return Header{}, fmt.Errorf("%w: format version %d.%d: this reader knows 1.0, 2.0 and 3.0", ErrFormat, major, pre[7])
	}
	// ReadAll grows its buffer as bytes arrive: a short file claiming a
	// long header costs what it holds.
	text, err := io.ReadAll(io.LimitReader(r, int64(hlen)))
	if err != nil || len(text) < hlen {
		return Header{}, fmt.Errorf("%w: truncated: the header says %d bytes, the file has %d", ErrFormat, hlen, len(text))
	}
	return parseHeader(string(text))
}

// parseHeader parses the header's Python dict literal.
func parseHeader(text string) (Header, error) {
	p := &parser{s: text}
	v, err := p.value()
	if err == nil {
		p.space()
		if p.i < len(p.s) {
			err = p.errorf("unexpected %q after the dict", p.s[p.i:min(len(p.s), p.i+10)])
		}
	}
	if err != nil {
		return Header{}, fmt.Errorf("%w: header %q: %v", ErrFormat, clip(text), err)
	}
	d, ok := v.(map[string]any)
	if !ok {
		return Header{}, fmt.Errorf("%w: header %q is not a dict", ErrFormat, clip(text))
	}
	var h Header
	for key, val := range d {
		switch key {
		case "descr":
			s, ok := val.(string)
			if !ok {
				return Header{}, fmt.Errorf("%w: descr %v is a structured or nested dtype", array.ErrType, val)
			}
			h.Descr = s
		case "fortran_order":
			b, ok := val.(bool)
			if !ok {
				return Header{}, fmt.Errorf("%w: fortran_order is %v, want True or False", ErrFormat, val)
			}
			h.Fortran = b
		case "shape":
			t, ok := val.(tuple)
			if !ok {
				return Header{}, fmt.Errorf("%w: shape is %v, want a tuple of ints", ErrFormat, val)
			}
			h.Shape = make([]int, len(t))
			for i, e := range t {
				n, ok := e.(int)
				if !ok || n < 0 {
					return Header{}, fmt.Errorf("%w: shape %v: want non-negative ints", ErrFormat, val)
				}
				h.Shape[i] = n
			}
		default:
			return Header{}, fmt.Errorf("%w: unknown header key %q", ErrFormat, key)
		}
	}
	for _, key := range []string{"descr", "fortran_order", "shape"} {
		if _, ok := d[key]; !ok {
			return Header{}, fmt.Errorf("%w: header %q lacks %q", ErrFormat, clip(text), key)
		}
	}
	return h, nil
}

func clip(s string) string {
	if len(s) > 120 {
		return s[:120] + "…"
	}
	return s
}

// tuple and list are Python's; parseHeader takes only tuples as shapes.
type (
	tuple []any
	list  []any
)

// parser reads the subset of Python literals NumPy writes: dicts, tuples,
// lists, strings, ints, True, False, None.
type parser struct {
	s     string
	i     int
	depth int
}

func (p *parser) errorf(format string, args ...any) error {
	return fmt.Errorf("at byte %d: "+format, append([]any{p.i}, args...)...)
}

func (p *parser) space() {
	for p.i < len(p.s) && strings.IndexByte(" \t\r\n", p.s[p.i]) >= 0 {
		p.i++
	}
}

func (p *parser) value() (any, error) {
	p.space()
	if p.i >= len(p.s) {
		return nil, p.errorf("unexpected end of header")
	}
	if p.depth > 32 {
		return nil, p.errorf("nested too deeply")
	}
	switch c := p.s[p.i]; {
	case c == '{':
		p.depth++
		defer func() { p.depth-- }()
		return p.dict()
	case c == '(' || c == '[':
		p.depth++
		defer func() { p.depth-- }()
		return p.seq(c)
	case c == '\'' || c == '"':
		return p.str(c)
	case c == '-' || (c >= '0' && c <= '9'):
		return p.int()
	default:
		j := p.i
		for j < len(p.s) && (p.s[j] >= 'A' && p.s[j] <= 'Z' || p.s[j] >= 'a' && p.s[j] <= 'z') {
			j++
		}
		word := p.s[p.i:j]
		switch word {
		case "True", "False":
			p.i = j
			return word == "True", nil
		case "None":
			p.i = j
			return nil, nil
		}
		return nil, p.errorf("unexpected %q", p.s[p.i:min(len(p.s), p.i+10)])
	}
}

func (p *parser) dict() (any, error) {
	p.i++ // {
	d := map[string]any{}
	for {
		p.space()
		if p.i < len(p.s) && p.s[p.i] == '}' {
			p.i++
			return d, nil
		}
		k, err := p.value()
		if err != nil {
			return nil, err
		}
		key, ok := k.(string)
		if !ok {
			return nil, p.errorf("dict key %v is not a string", k)
		}
		if _, dup := d[key]; dup {
			return nil, p.errorf("key %q twice", key)
		}
		p.space()
		if p.i >= len(p.s) || p.s[p.i] != ':' {
			return nil, p.errorf("want ':' after key %q", key)
		}
		p.i++
		if d[key], err = p.value(); err != nil {
			return nil, err
		}
		p.space()
		if p.i < len(p.s) && p.s[p.i] == ',' {
			p.i++
		} else if p.i >= len(p.s) || p.s[p.i] != '}' {
			return nil, p.errorf("want ',' or '}' in the dict")
		}
	}
}

func (p *parser) seq(open byte) (any, error) {
	end := map[byte]byte{'(': ')', '[': ']'}[open]
	p.i++
	var items []any
	for {
		p.space()
		if p.i < len(p.s) && p.s[p.i] == end {
			p.i++
			if open == '(' {
				return tuple(items), nil
			}
			return list(items), nil
		}
		v, err := p.value()
		if err != nil {
			return nil, err
		}
		items = append(items, v)
		p.space()
		if p.i < len(p.s) && p.s[p.i] == ',' {
			p.i++
		} else if p.i >= len(p.s) || p.s[p.i] != end {
			return nil, p.errorf("want ',' or %q", end)
		}
	}
}

func (p *parser) str(q byte) (any, error) {
	j := strings.IndexByte(p.s[p.i+1:], q)
	if j < 0 {
		return nil, p.errorf("unterminated string")
	}
	s := p.s[p.i+1 : p.i+1+j]
	if strings.IndexByte(s, '\\') >= 0 {
		return nil, p.errorf("escapes in strings are not supported")
	}
	p.i += j + 2
	return s, nil
}

func (p *parser) int() (any, error) {
	j := p.i
	if p.s[j] == '-' {
		j++
	}
	for j < len(p.s) && p.s[j] >= '0' && p.s[j] <= '9' {
		j++
	}
	n, err := strconv.Atoi(p.s[p.i:j])
	if err != nil {
		return nil, p.errorf("bad int %q", p.s[p.i:j])
	}
	p.i = j
	if p.i < len(p.s) && p.s[p.i] == 'L' { // Python 2 longs
		p.i++
	}
	return n, nil
}

// elements returns the product of shape and its size in bytes, or an error
// if either overflows.
func elements(shape []int, size int) (count, nbytes int, err error) {
	// The product of the non-zero extents must fit too: it is the span of
	// the strides of an empty array.
	count, span := 1, 1
	for _, n := range shape {
		hi, lo := bits.Mul64(uint64(span), uint64(max(n, 1)))
		if hi != 0 || lo > math.MaxInt {
			return 0, 0, fmt.Errorf("%w: shape %v overflows the address space", ErrFormat, shape)
		}
		span, count = int(lo), count*n
	}
	hi, lo := bits.Mul64(uint64(count), uint64(size))
	if hi != 0 || lo > math.MaxInt {
		return 0, 0, fmt.Errorf("%w: shape %v of %d-byte elements overflows the address space", ErrFormat, shape, size)
	}
	return count, int(lo), nil
}

// format renders h as a version 1.0 (or 2.0 when it is long) header,
// padded with spaces to a multiple of 64 bytes and ended by a newline,
// as NumPy writes it.
func (h Header) format() []byte {
	var shape strings.Builder
	shape.WriteByte('(')
	for i, n := range h.Shape {
		if i > 0 {
			shape.WriteString(", ")
		}
		shape.WriteString(strconv.Itoa(n))
	}
	if len(h.Shape) == 1 {
		shape.WriteByte(',')
	}
	shape.WriteByte(')')
	order := "False"
	if h.Fortran {
		order = "True"
	}
	dict := fmt.Sprintf("{'descr': '%s', 'fortran_order': %s, 'shape': %s, }", h.Descr, order, shape.String())
	pre := 10
	total := (pre + len(dict) + 1 + 63) / 64 * 64
	if total-pre > math.MaxUint16 {
		pre = 12
		total = (pre + len(dict) + 1 + 63) / 64 * 64
	}
	out := make([]byte, total)
	copy(out, magic)
	if pre == 10 {
		out[6], out[7] = 1, 0
		binary.LittleEndian.PutUint16(out[8:], uint16(total-pre))
	} else {
		out[6], out[7] = 2, 0
		binary.LittleEndian.PutUint32(out[8:], uint32(total-pre))
	}
	n := copy(out[pre:], dict)
	for i := pre + n; i < total-1; i++ {
		out[i] = ' '
	}
	out[total-1] = '\n'
	return out
}
