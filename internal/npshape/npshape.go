package npshape

import "strconv"

// String prints shape (NumPy's order) as NumPy does: (2, 3), (3,), ().
func String(shape []int) string {
	b := []byte{'('}
	for i, e := range shape {
		if i > 0 {
			b = append(b, ", "...)
		}
		b = strconv.AppendInt(b, int64(e), 10)
	}
	if len(shape) == 1 {
		b = append(b, ',')
	}
	return string(append(b, ')'))
}
