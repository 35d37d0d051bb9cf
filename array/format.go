package array

import (
	"bytes"
	"fmt"
	"math"
	"strconv"
	"strings"
)

// NumPy's print defaults: arrays over printThreshold elements are
// summarized with printEdge items at each end of every dimension, floats
// get at most printPrecision digits after the point, lines wrap at
// printWidth columns.
const (
	printThreshold = 1000
	printEdge      = 3
	printPrecision = 8
	printWidth     = 75
)

// Format prints the Array's values the way NumPy prints an array, so
// fmt.Println(a) shows data, not metadata: rows are dimension 0 (NumPy's
// last axis), big Arrays are summarized with "...", floats use at most 8
// digits after the point. %+v puts the description (String) on a line
// before the values; %s is the description alone; %d, %x, %e, %f, %g and
// their flags, width and precision format each element.
//
// The values come from HostReadOnly, so printing a device-dirty Array is a
// counted copy to host. When that copy fails, or the transfer guard
// refuses it, the error is printed in place of the values as
// %!v(array: …). A closed Array prints %!v(array: closed).
func (a *Array[T]) Format(f fmt.State, verb rune) {
	if verb == 's' {
		fmt.Fprint(f, a.String())
		return
	}
	if a.raw.st.closed.Load() {
		fmt.Fprintf(f, "%%!%c(array: closed)", verb)
		return
	}
	v, err := a.HostReadOnly()
	if err != nil {
		fmt.Fprintf(f, "%%!%c(array: %v)", verb, err)
		return
	}
	v.Format(f, verb)
}

// Format is Array.Format for a host view: it prints the elements as they
// are on the host, with no copy.
func (v ReadView[T]) Format(f fmt.State, verb rune) {
	if v.a == nil {
		fmt.Fprintf(f, "%%!%c(array: zero view)", verb)
		return
	}
	if verb == 's' {
		fmt.Fprint(f, v.String())
		return
	}
	if verb == 'v' && f.Flag('+') {
		fmt.Fprintln(f, v.a.String())
	}
	if err := v.a.raw.errLost(); err != nil {
		fmt.Fprintf(f, "%%!%c(%v)", verb, err)
		return
	}
	v.check()
	p := printer[T]{v: v, verb: verb}
	if verb != 'v' {
		p.spec = elemSpec(f, verb)
	}
	fmt.Fprint(f, p.render())
}

// elemSpec rebuilds the fmt directive of f for one element.
func elemSpec(f fmt.State, verb rune) string {
	var b strings.Builder
	b.WriteByte('%')
	for _, c := range "+-# 0" {
		if f.Flag(int(c)) {
			b.WriteRune(c)
		}
	}
	if w, ok := f.Width(); ok {
		b.WriteString(strconv.Itoa(w))
	}
	if p, ok := f.Precision(); ok {
		b.WriteByte('.')
		b.WriteString(strconv.Itoa(p))
	}
	b.WriteRune(verb)
	return b.String()
}

// printer lays out one view's elements NumPy-style.
type printer[T Elem] struct {
	v    ReadView[T]
	verb rune
	spec string // per-element directive; "" for NumPy's default
	ext  []int  // extents, dimension 0 innermost
	sum  bool   // summarize: print printEdge items at each end
	cell func(x T) string
}

// shown lists the indices of a dimension of extent n that are printed; -1
// stands for the "..." of the omitted middle.
func (p *printer[T]) shown(n int) []int {
	if !p.sum || n <= 2*printEdge {
		idx := make([]int, n)
		for i := range idx {
			idx[i] = i
		}
		return idx
	}
	idx := make([]int, 0, 2*printEdge+1)
	for i := range printEdge {
		idx = append(idx, i)
	}
	idx = append(idx, -1)
	for i := n - printEdge; i < n; i++ {
		idx = append(idx, i)
	}
	return idx
}

// render returns the whole text.
func (p *printer[T]) render() string {
	r := &p.v.a.raw
	p.ext = r.Extents()
	p.sum = r.Len() > printThreshold
	if r.rank == 0 {
		x := p.v.a.data[r.off]
		if p.spec != "" {
			return fmt.Sprintf(p.spec, printable(x))
		}
		return scalarText(x)
	}
	if r.Len() == 0 {
		return "[]" // as NumPy prints any empty array
	}
	// Gather the printed elements once to choose one format for all.
	var vals []T
	coords := make([]int, r.rank)
	var walk func(k int)
	walk = func(k int) {
		for _, i := range p.shown(p.ext[k]) {
			if i < 0 {
				continue
			}
			coords[k] = r.dimsRef()[k].Min + i
			if k == 0 {
				vals = append(vals, p.v.a.data[r.index(coords)])
			} else {
				walk(k - 1)
			}
		}
	}
	walk(r.rank - 1)
	p.cell = p.cellFormat(vals)
	width := 0
	for _, x := range vals {
		width = max(width, len(p.cell(x)))
	}
	var b []byte
	next := 0
	p.block(&b, r.rank-1, width, vals, &next)
	return string(b)
}

// block writes dimension k's bracketed block; depth is rank-1-k.
func (p *printer[T]) block(b *[]byte, k, width int, vals []T, next *int) {
	depth := len(p.ext) - 1 - k
	*b = append(*b, '[')
	if k == 0 {
		line := depth + 1 // columns used on the current line
		for j, i := range p.shown(p.ext[0]) {
			s := "..."
			if i >= 0 {
				s = p.cell(vals[*next])
				s = strings.Repeat(" ", width-len(s)) + s
				*next++
			}
			if j > 0 {
				// Each enclosing bracket takes a column off the width.
				if line+1+len(s) > printWidth-depth-1 {
					// A wrapped line loses its trailing blanks, as NumPy's.
					*b = append(bytes.TrimRight(*b, " "), '\n')
					*b = append(*b, strings.Repeat(" ", depth+1)...)
					line = depth + 1
				} else {
					*b = append(*b, ' ')
					line++
				}
			}
			*b = append(*b, s...)
			line += len(s)
		}
		*b = append(*b, ']')
		return
	}
	sep := strings.Repeat("\n", k) + strings.Repeat(" ", depth+1)
	for j, i := range p.shown(p.ext[k]) {
		if j > 0 {
			*b = append(*b, sep...)
		}
		if i < 0 {
			*b = append(*b, "..."...)
			continue
		}
		p.block(b, k-1, width, vals, next)
	}
	*b = append(*b, ']')
}

// cellFormat picks the element format for the printed values: integers
// as they are; floats in NumPy's "maxprec" mode, positional unless the
// magnitudes call for scientific notation. Positional fractions are padded
// with spaces to the longest, so the points line up; scientific mantissas
// get as many digits as the longest needs, and exponents one width.
func (p *printer[T]) cellFormat(vals []T) func(T) string {
	if p.spec != "" {
		return func(x T) string { return fmt.Sprintf(p.spec, printable(x)) }
	}
	if c := TypeOf[T]().Code; c != Float && c != BFloat {
		return func(x T) string { return fmt.Sprint(x) }
	}
	bits := floatBits[T]()
	lo, hi := math.Inf(1), 0.0
	for _, x := range vals {
		f := math.Abs(toFloat(x))
		if f == 0 || math.IsInf(f, 0) || math.IsNaN(f) {
			continue
		}
		lo, hi = min(lo, f), max(hi, f)
	}
	sci := hi >= 1e8 || (hi > 0 && (lo < 1e-4 || hi/lo > 1e3))
	// The shortest unique digits, at most printPrecision after the point.
	digits := func(x T) (mant, exp string) {
		f := toFloat(x)
		verb := byte('f')
		if sci {
			verb = 'e'
		}
		s := strconv.FormatFloat(f, verb, -1, bits)
		if !sci && !strings.Contains(s, ".") {
			// Whole numbers keep every integer digit exact, as NumPy's do.
			s = strconv.FormatFloat(exactFloat(x), 'f', 0, 64)
		}
		mant, exp, _ = strings.Cut(s, "e")
		if _, fp, ok := strings.Cut(mant, "."); ok && len(fp) > printPrecision {
			s = strconv.FormatFloat(f, verb, printPrecision, bits)
			mant, exp, _ = strings.Cut(s, "e")
			mant = strings.TrimRight(mant, "0")
		}
		return mant, exp
	}
	frac, expw := 0, 2
	for _, x := range vals {
		f := toFloat(x)
		if special(f) != "" {
			continue
		}
		m, e := digits(x)
		_, fp, _ := strings.Cut(m, ".")
		frac = max(frac, len(fp))
		expw = max(expw, len(strings.TrimLeft(e, "+-")))
	}
	return func(x T) string {
		f := toFloat(x)
		if s := special(f); s != "" {
			return s
		}
		if sci {
			// NumPy extends short mantissas with the exact value's digits.
			m, e, _ := strings.Cut(strconv.FormatFloat(exactFloat(x), 'e', frac, 64), "e")
			if frac == 0 {
				m += "."
			}
			return m + "e" + expDigits(e, expw)
		}
		m, _ := digits(x)
		ip, fp, ok := strings.Cut(m, ".")
		if !ok {
			m = ip + "."
		}
		return m + strings.Repeat(" ", frac-len(fp))
	}
}

// special spells NaN and the infinities as NumPy does; "" for the rest.
func special(f float64) string {
	switch {
	case math.IsNaN(f):
		return "nan"
	case math.IsInf(f, 1):
		return "inf"
	case math.IsInf(f, -1):
		return "-inf"
	}
	return ""
}

// scalarText is NumPy's str of a 0-D array: Python's repr of the element,
// the shortest digits that read back the same.
func scalarText[T Elem](x T) string {
	if c := TypeOf[T]().Code; c != Float && c != BFloat {
		return fmt.Sprint(x)
	}
	f := toFloat(x)
	if s := special(f); s != "" {
		return s
	}
	bits := floatBits[T]()
	if a := math.Abs(f); a != 0 && (a < 1e-4 || a >= 1e16) {
		m, e, _ := strings.Cut(strconv.FormatFloat(f, 'e', -1, bits), "e")
		return m + "e" + expDigits(e, 2)
	}
	s := strconv.FormatFloat(f, 'f', -1, bits)
	if !strings.Contains(s, ".") {
		s += ".0"
	}
	return s
}

// expDigits writes an exponent as NumPy does: a sign and at least w
// digits.
func expDigits(e string, w int) string {
	sign := "+"
	if e != "" && (e[0] == '-' || e[0] == '+') {
		if e[0] == '-' {
			sign = "-"
		}
		e = e[1:]
	}
	return sign + strings.Repeat("0", max(0, w-len(e))) + e
}

// floatBits is the precision strconv formats T's elements at: half floats
// arrive already rounded to their shortest digits (toFloat), as float64s.
func floatBits[T Elem]() int {
	if TypeOf[T]().Bits == 32 {
		return 32
	}
	return 64
}

// toFloat widens a float element for formatting. A half float becomes
// the float64 of its shortest decimal that reads back as the same half
// float, so strconv's shortest digits are the half float's.
func toFloat[T Elem](x T) float64 {
	switch v := any(x).(type) {
	case float32:
		return float64(v)
	case float64:
		return v
	case Float16:
		return shortestHalf(v.Float32(), func(f float32) bool { return F16(f) == v })
	case BFloat16:
		return shortestHalf(v.Float32(), func(f float32) bool { return BF16(f) == v })
	}
	return 0
}

// exactFloat is a float element's exact value.
func exactFloat[T Elem](x T) float64 {
	switch v := any(x).(type) {
	case Float16:
		return float64(v.Float32())
	case BFloat16:
		return float64(v.Float32())
	}
	return toFloat(x)
}

// shortestHalf returns the float64 of f's shortest decimal digits for
// which same holds.
func shortestHalf(f float32, same func(float32) bool) float64 {
	if math.IsNaN(float64(f)) || math.IsInf(float64(f), 0) || f == 0 {
		return float64(f)
	}
	for n := 0; n < 9; n++ {
		q, _ := strconv.ParseFloat(strconv.FormatFloat(float64(f), 'e', n, 32), 64)
		if same(float32(q)) {
			return q
		}
	}
	return float64(f)
}

// printable is x as fmt should see it: half floats as float32.
func printable[T Elem](x T) any {
	switch v := any(x).(type) {
	case Float16:
		return v.Float32()
	case BFloat16:
		return v.Float32()
	}
	return x
}
