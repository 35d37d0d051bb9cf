package optable

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"
)

// TestGeneratedFresh fails while a committed generated file differs from
// what the table makes: run go generate ./ops and commit the result.
func TestGeneratedFresh(t *testing.T) {
	files, err := Generate()
	if err != nil {
		t.Fatal(err)
	}
	for name, want := range files {
		path := filepath.Join("..", "..", filepath.FromSlash(name))
		got, err := os.ReadFile(path)
		if err != nil {
			t.Errorf("%s: %v (run go generate ./ops)", path, err)
			continue
		}
		if !bytes.Equal(got, want) {
			t.Errorf("ops/%s is stale: run go generate ./ops and commit it", name)
		}
	}
}

// TestTable: every row names its forms consistently: a Go and an OpenCL
// float form always, integer forms exactly where the class takes them.
func TestTable(t *testing.T) {
	seen := map[string]bool{}
	for _, u := range Unaries {
		if u.Name == "" || seen[u.Name] {
			t.Errorf("%q: empty or repeated name", u.Name)
		}
		seen[u.Name] = true
		if u.Go == "" || u.CL == "" || u.Doc == "" {
			t.Errorf("%s: needs Go, CL and Doc", u.Name)
		}
		signed, unsigned := u.Class != Float, u.Class == All
		if (u.GoSigned != "") != signed || (u.CLSigned != "") != signed {
			t.Errorf("%s: signed forms must be given exactly when the class takes signed integers", u.Name)
		}
		if (u.GoUnsigned != "") != unsigned || (u.CLUnsigned != "") != unsigned {
			t.Errorf("%s: unsigned forms must be given exactly when the class takes unsigned integers", u.Name)
		}
	}
}

// TestBinaryTable: every binary row gives a host kernel and an OpenCL form
// for floats, and integer forms exactly where its class takes integers.
func TestBinaryTable(t *testing.T) {
	seen := map[string]bool{}
	for _, o := range Binaries {
		if o.Name == "" || seen[o.constName()] || o.Doc == "" {
			t.Errorf("%q: empty or repeated name, or no doc", o.Name)
		}
		seen[o.constName()] = true
		if (o.Go == "" && o.GoVec == "") || o.CL == "" {
			t.Errorf("%s: needs Go (or GoVec) and CL", o.Name)
		}
		ints := o.Class == All
		if ((o.GoInt != "" || o.GoVec != "") != ints) || (o.CLSigned != "") != ints || (o.CLUnsigned != "") != ints {
			t.Errorf("%s: integer forms must be given exactly when the class takes integers", o.Name)
		}
		if o.Class == Signed {
			t.Errorf("%s: binary ops are Float or All", o.Name)
		}
	}
}
