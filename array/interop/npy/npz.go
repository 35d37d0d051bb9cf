package npy

import (
	"archive/zip"
	"fmt"
	"io"
	"math"
	"os"
	"slices"
	"strings"

	"github.com/resident-go/resident/array"
)

// An .npz file is a zip archive of .npy files, one per array, named
// NAME.npy (np.savez stores them, np.savez_compressed deflates them).

// deflateRatio bounds how many bytes deflate can make of one: a member
// claiming more than compressed·deflateRatio (plus slack) is refused
// before it is read. Deflate's limit is about 1032 to 1.
const deflateRatio = 1040

// ReadArchive reads every member of the .npz archive r (size bytes) into
// a new host-only Array, as ReadAny reads an .npy file; the map's keys are
// the member names without ".npy" (NumPy's keys: np.load(f)[key]).
// Members may be stored or deflated. A member that is not an .npy file,
// a name given twice, or sizes that do not fit the archive (a header that
// claims more data than its member holds, a member that claims more bytes
// than its compressed size can make, compressed bytes past the archive's
// end) are errors wrapping ErrFormat. A member's data is read straight
// into its Array, one allocation of its size: the claim it rests on is
// backed by compressed bytes in the archive, so a member costs at most
// deflate's ratio times them, as an honest one does.
func ReadArchive(r io.ReaderAt, size int64) (map[string]array.Buffer, error) {
	zr, err := zip.NewReader(r, size)
	if err != nil {
		return nil, fmt.Errorf("%w: not a zip archive: %v", ErrFormat, err)
	}
	out := make(map[string]array.Buffer, min(len(zr.File), 64))
	for _, f := range zr.File {
		key := strings.TrimSuffix(f.Name, ".npy")
		if _, dup := out[key]; dup {
			return nil, fmt.Errorf("%w: member %q twice in the archive", ErrFormat, key)
		}
		a, err := readMember(f, size)
		if err != nil {
			return nil, fmt.Errorf("member %q: %w", f.Name, err)
		}
		out[key] = a
	}
	return out, nil
}

func readMember(f *zip.File, size int64) (array.Buffer, error) {
	// zip.Reader trusts the directory's sizes: the bytes must be there.
	if off, err := f.DataOffset(); err != nil || off < 0 || off > size || f.CompressedSize64 > uint64(size-off) {
		return nil, fmt.Errorf("%w: the member's %d compressed bytes run past the archive's end (%d bytes)", ErrFormat, f.CompressedSize64, size)
	}
	switch f.Method {
	case zip.Store:
		if f.UncompressedSize64 != f.CompressedSize64 {
			return nil, fmt.Errorf("%w: a stored member of %d bytes claims %d", ErrFormat, f.CompressedSize64, f.UncompressedSize64)
		}
	case zip.Deflate:
		if f.UncompressedSize64/deflateRatio > f.CompressedSize64+1 {
			return nil, fmt.Errorf("%w: %d deflated bytes cannot make the %d the member claims", ErrFormat, f.CompressedSize64, f.UncompressedSize64)
		}
	default:
		return nil, fmt.Errorf("%w: compression method %d: NumPy writes stored (0) or deflated (8) members", ErrFormat, f.Method)
	}
	rc, err := f.Open()
	if err != nil {
		return nil, fmt.Errorf("%w: %v", ErrFormat, err)
	}
	defer rc.Close()
	cr := &countReader{r: rc}
	h, err := ReadHeader(cr)
	if err != nil {
		return nil, err
	}
	dt, err := parseDescr(h.Descr)
	if err != nil {
		return nil, err
	}
	_, nbytes, err := elements(h.Shape, dt.typ.Bytes())
	if err != nil {
		return nil, err
	}
	left := f.UncompressedSize64 - min(uint64(cr.n), f.UncompressedSize64)
	if uint64(nbytes) > left {
		return nil, fmt.Errorf("%w: shape %v of %s needs %d data bytes, the member holds %d", ErrFormat, h.Shape, h.Descr, nbytes, left)
	}
	// The bytes left are backed (checked above), so readData reads them
	// straight into the Array: pieces, then a copy, would cost twice.
	a, err := readAs(claimed{cr, int(min(left, math.MaxInt))}, h, dt)
	if err != nil {
		return nil, err
	}
	// The zip reader checks the CRC at the end: read to it.
	if _, err := io.Copy(io.Discard, cr); err != nil {
		return nil, fmt.Errorf("%w: %v", ErrFormat, err)
	}
	return a, nil
}

// claimed is a member's reader that reports the bytes its size claims,
// as readData's lener.
type claimed struct {
	io.Reader
	n int
}

func (c claimed) Len() int { return c.n }

// countReader counts the bytes read through it.
type countReader struct {
	r io.Reader
	n int64
}

func (c *countReader) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	c.n += int64(n)
	return n, err
}

// ReadArchiveFile is ReadArchive on the named file.
func ReadArchiveFile(name string) (map[string]array.Buffer, error) {
	f, err := os.Open(name)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return nil, err
	}
	m, err := ReadArchive(f, st.Size())
	if err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	return m, nil
}

// ArchiveWriter writes an .npz archive, one .npy member per Add; Close
// finishes it. Members are deflated (np.savez_compressed) or stored
// (np.savez), as NewArchiveWriter was told.
type ArchiveWriter struct {
	zw     *zip.Writer
	method uint16
	names  map[string]bool
}

// NewArchiveWriter returns an ArchiveWriter to w; compressed deflates the
// members.
func NewArchiveWriter(w io.Writer, compressed bool) *ArchiveWriter {
	m := zip.Store
	if compressed {
		m = zip.Deflate
	}
	return &ArchiveWriter{zw: zip.NewWriter(w), method: m, names: map[string]bool{}}
}

// Add writes a (an *array.Array of any element type) as member
// name+".npy", as Write writes it. A name given twice, or one with a
// slash, is an error naming it.
func (aw *ArchiveWriter) Add(name string, a array.Buffer) error {
	return aw.add(name, func(w io.Writer) error { return writeAny(w, a) })
}

// AddBool writes a as NumPy bool member name+".npy", as WriteBool writes
// it.
func (aw *ArchiveWriter) AddBool(name string, a *array.Array[uint8]) error {
	return aw.add(name, func(w io.Writer) error { return WriteBool(w, a) })
}

func (aw *ArchiveWriter) add(name string, write func(io.Writer) error) error {
	if name == "" || strings.ContainsAny(name, "/\\") || aw.names[name] {
		return fmt.Errorf("npy: archive member name %q: want a new name without slashes", name)
	}
	aw.names[name] = true
	w, err := aw.zw.CreateHeader(&zip.FileHeader{Name: name + ".npy", Method: aw.method})
	if err != nil {
		return err
	}
	return write(w)
}

// Close writes the archive's directory; it does not close the underlying
// writer.
func (aw *ArchiveWriter) Close() error { return aw.zw.Close() }

// WriteArchiveFile writes arrays to the named .npz file, created or
// truncated, in the order of their names; compressed deflates them.
func WriteArchiveFile(name string, compressed bool, arrays map[string]array.Buffer) error {
	return writeFile(name, func(w io.Writer) error {
		aw := NewArchiveWriter(w, compressed)
		keys := make([]string, 0, len(arrays))
		for k := range arrays {
			keys = append(keys, k)
		}
		slices.Sort(keys)
		for _, k := range keys {
			if err := aw.Add(k, arrays[k]); err != nil {
				return fmt.Errorf("member %q: %w", k, err)
			}
		}
		return aw.Close()
	})
}

// writeAny is Write for an array.Buffer holding an *array.Array of any
// element type.
func writeAny(w io.Writer, b array.Buffer) error {
	switch a := b.(type) {
	case *array.Array[int8]:
		return Write(w, a)
	case *array.Array[int16]:
		return Write(w, a)
	case *array.Array[int32]:
		return Write(w, a)
	case *array.Array[int64]:
		return Write(w, a)
	case *array.Array[uint8]:
		return Write(w, a)
	case *array.Array[uint16]:
		return Write(w, a)
	case *array.Array[uint32]:
		return Write(w, a)
	case *array.Array[uint64]:
		return Write(w, a)
	case *array.Array[array.Float16]:
		return Write(w, a)
	case *array.Array[array.BFloat16]:
		return Write(w, a)
	case *array.Array[float32]:
		return Write(w, a)
	case *array.Array[float64]:
		return Write(w, a)
	}
	return fmt.Errorf("%w: npy cannot write a %T: pass an *array.Array", array.ErrType, b)
}
