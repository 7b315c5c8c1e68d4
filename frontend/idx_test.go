package frontend

import (
	"bytes"
	"compress/gzip"
	"encoding/binary"
	"math"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"gonum.org/v1/gonum/blas/blas32"
)

// idxBytes builds an IDX file of unsigned bytes with the given dimensions.
func idxBytes(dims []int, data []byte) []byte {
	var b bytes.Buffer
	b.Write([]byte{0, 0, 0x08, byte(len(dims))})
	for _, d := range dims {
		binary.Write(&b, binary.BigEndian, uint32(d))
	}
	b.Write(data)
	return b.Bytes()
}

func TestParseIDXImages(t *testing.T) {
	raw := idxBytes([]int{2, 2, 3}, []byte{0, 255, 51, 0, 0, 0, 1, 2, 3, 4, 5, 6})
	f, err := ParseIDX(bytes.NewReader(raw), "x")
	if err != nil {
		t.Fatal(err)
	}
	im, err := imagesFromIDX(f, "x")
	if err != nil {
		t.Fatal(err)
	}
	if im.N != 2 || im.Height != 2 || im.Width != 3 || im.X.Cols != 6 {
		t.Fatalf("shape %+v", im)
	}
	if im.X.Data[1] != 1 || math.Abs(float64(im.X.Data[2])-0.2) > 1e-7 {
		t.Fatalf("pixels not scaled to [0,1]: %v", im.X.Data[:3])
	}
}

func TestParseIDXGzip(t *testing.T) {
	raw := idxBytes([]int{3}, []byte{7, 8, 9})
	var z bytes.Buffer
	zw := gzip.NewWriter(&z)
	zw.Write(raw)
	zw.Close()
	f, err := ParseIDX(&z, "z")
	if err != nil {
		t.Fatal(err)
	}
	if len(f.Data) != 3 || f.Data[2] != 9 {
		t.Fatalf("gzip content %v", f.Data)
	}
}

func TestParseIDXErrorsNameTheProblem(t *testing.T) {
	good := idxBytes([]int{2, 2, 2}, make([]byte, 8))
	cases := map[string]struct {
		raw  []byte
		want string
	}{
		"empty":       {nil, "too short"},
		"bad magic":   {append([]byte{1, 2}, good[2:]...), "not an IDX file"},
		"float type":  {append([]byte{0, 0, 0x0d}, good[3:]...), "not supported"},
		"rank 0":      {[]byte{0, 0, 8, 0}, "rank 0"},
		"header cut":  {good[:9], "header truncated"},
		"data cut":    {good[:len(good)-1], "truncated"},
		"trailing":    {append(append([]byte{}, good...), 0), "trailing bytes"},
		"zero dim":    {idxBytes([]int{2, 0, 2}, nil), "dimension 2 is zero"},
		"huge header": {idxBytes([]int{1 << 20, 1 << 20, 1 << 20}, nil), "more than"},
		"overflowing": {idxBytes([]int{0xe3323030, 0xe3323131, 3}, nil), "more than"}, // the product wraps past int64
	}
	for name, c := range cases {
		_, err := ParseIDX(bytes.NewReader(c.raw), "f.idx")
		if err == nil {
			t.Errorf("%s: no error", name)
			continue
		}
		if !strings.Contains(err.Error(), c.want) || !strings.Contains(err.Error(), "f.idx") {
			t.Errorf("%s: error %q lacks %q or the file name", name, err, c.want)
		}
	}
}

// A short file whose header claims a gigabyte must be refused without
// allocating that gigabyte (a fuzzer's input: the old reader allocated the
// claim before reading, which a stream of such messages turns into an
// out-of-memory crash).
func TestParseIDXAllocatesWhatArrives(t *testing.T) {
	raw := []byte{0, 0, 8, 1, 0x40, 0, 0, 0, 7, 7} // rank 1, 2³⁰ bytes claimed, 2 present
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	_, err := ParseIDX(bytes.NewReader(raw), "f.idx")
	runtime.ReadMemStats(&after)
	if err == nil || !strings.Contains(err.Error(), "truncated") {
		t.Fatalf("error %v, want truncated", err)
	}
	if got := after.TotalAlloc - before.TotalAlloc; got > 1<<22 {
		t.Fatalf("allocated %d bytes for a 10-byte file", got)
	}
}

func TestReadIDXPairCountMismatch(t *testing.T) {
	dir := t.TempDir()
	ip := filepath.Join(dir, "img")
	lp := filepath.Join(dir, "lab")
	os.WriteFile(ip, idxBytes([]int{3, 1, 1}, []byte{1, 2, 3}), 0o644)
	os.WriteFile(lp, idxBytes([]int{2}, []byte{0, 1}), 0o644)
	_, err := ReadIDXPair(ip, lp)
	if err == nil || !strings.Contains(err.Error(), "3 images") || !strings.Contains(err.Error(), "2 labels") {
		t.Fatalf("mismatch error %v", err)
	}
	os.WriteFile(lp, idxBytes([]int{3}, []byte{0, 1, 2}), 0o644)
	p, err := ReadIDXPair(ip, lp)
	if err != nil || p.Labels[2] != 2 || p.N != 3 {
		t.Fatalf("pair %+v, %v", p, err)
	}
	if _, err := ReadIDXLabels(ip); err == nil || !strings.Contains(err.Error(), "rank 1") {
		t.Fatalf("images read as labels: %v", err)
	}
}

func TestNormalizeRows(t *testing.T) {
	x := blas32.General{Rows: 3, Cols: 2, Stride: 2, Data: []float32{3, 4, 0, 0, 1, 0}}
	if err := NormalizeRows(x); err != nil {
		t.Fatal(err)
	}
	want := []float32{0.6, 0.8, 0, 0, 1, 0}
	for i := range want {
		if math.Abs(float64(x.Data[i]-want[i])) > 1e-7 {
			t.Fatalf("normalised %v, want %v", x.Data, want)
		}
	}
	x.Data[3] = float32(math.NaN())
	if err := NormalizeRows(x); err == nil || !strings.Contains(err.Error(), "row 1") {
		t.Fatalf("NaN row error %v", err)
	}
}

func FuzzParseIDX(f *testing.F) {
	f.Add(idxBytes([]int{2, 2, 2}, make([]byte, 8)))
	f.Add(idxBytes([]int{3}, []byte{1, 2, 3}))
	f.Add([]byte{0, 0, 8, 3, 0, 0, 0, 1})
	f.Fuzz(func(t *testing.T, raw []byte) {
		idx, err := ParseIDX(bytes.NewReader(raw), "fuzz")
		if err != nil {
			return
		}
		n := 1
		for _, d := range idx.Dims {
			n *= d
		}
		if n != len(idx.Data) {
			t.Fatalf("dims %v but %d bytes", idx.Dims, len(idx.Data))
		}
		if len(idx.Dims) == 3 {
			if _, err := imagesFromIDX(idx, "fuzz"); err != nil {
				t.Fatal(err)
			}
		}
	})
}
