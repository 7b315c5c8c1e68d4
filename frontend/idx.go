package frontend

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math"
	"os"

	"gonum.org/v1/gonum/blas/blas32"
)

// IDX is a decoded IDX file of unsigned bytes: Dims[0] items, each of
// prod(Dims[1:]) values.
type IDX struct {
	Dims []int
	Data []byte
}

// maxIDXBytes bounds what a header may claim; what is allocated follows the
// data that arrives, not the claim (see ParseIDX).
const maxIDXBytes = 1 << 32

// ParseIDX decodes an IDX file of unsigned bytes (type 0x08) from r,
// transparently un-gzipping it. name is used in error messages.
func ParseIDX(r io.Reader, name string) (*IDX, error) {
	br := bufio.NewReader(r)
	if head, err := br.Peek(2); err == nil && head[0] == 0x1f && head[1] == 0x8b {
		zr, err := gzip.NewReader(br)
		if err != nil {
			return nil, fmt.Errorf("%s: bad gzip stream: %w", name, err)
		}
		defer zr.Close()
		br = bufio.NewReader(zr)
	}
	var magic [4]byte
	if _, err := io.ReadFull(br, magic[:]); err != nil {
		return nil, fmt.Errorf("%s: too short for an IDX header (%v)", name, err)
	}
	if magic[0] != 0 || magic[1] != 0 {
		return nil, fmt.Errorf("%s: not an IDX file (magic %x, want 0000 followed by type and rank)", name, magic)
	}
	if magic[2] != 0x08 {
		return nil, fmt.Errorf("%s: IDX element type 0x%02x is not supported (only unsigned bytes, 0x08)", name, magic[2])
	}
	rank := int(magic[3])
	if rank < 1 || rank > 4 {
		return nil, fmt.Errorf("%s: IDX rank %d out of range 1..4", name, rank)
	}
	dims := make([]int, rank)
	total := int64(1)
	for i := range dims {
		var d uint32
		if err := binary.Read(br, binary.BigEndian, &d); err != nil {
			return nil, fmt.Errorf("%s: header truncated in dimension %d of %d", name, i+1, rank)
		}
		if d == 0 && i > 0 {
			return nil, fmt.Errorf("%s: dimension %d is zero", name, i+1)
		}
		dims[i] = int(d)
		// Compared before multiplying: two 32-bit dimensions near 2³² would
		// overflow the product past int64 into a negative size.
		if d > 0 && total > maxIDXBytes/int64(d) {
			return nil, fmt.Errorf("%s: header claims %v elements, more than the %d we accept", name, dims[:i+1], int64(maxIDXBytes))
		}
		total *= int64(d)
	}
	// The buffer grows with the bytes that actually arrive, from at most
	// 1 MiB, so a ten-byte file whose header claims a gigabyte costs a
	// megabyte, not a gigabyte (from 64 MiB, as it once did, it cost 64).
	var buf bytes.Buffer
	buf.Grow(int(min(total, 1<<20)))
	if _, err := buf.ReadFrom(io.LimitReader(br, total+1)); err != nil {
		return nil, fmt.Errorf("%s: reading data: %w", name, err)
	}
	switch n := int64(buf.Len()); {
	case n < total:
		return nil, fmt.Errorf("%s: truncated: header %v promises %d data bytes, file has %d", name, dims, total, n)
	case n > total:
		return nil, fmt.Errorf("%s: trailing bytes after the %d data bytes that header %v promises", name, total, dims)
	}
	return &IDX{Dims: dims, Data: buf.Bytes()}, nil
}

// ReadIDX reads and decodes the IDX file at path.
func ReadIDX(path string) (*IDX, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	return ParseIDX(bytes.NewReader(b), path)
}

// Images is a set of images as float32 rows scaled to [0, 1].
type Images struct {
	N, Height, Width int
	X                blas32.General // N × Height·Width
}

// ReadIDXImages reads a rank-3 IDX image file.
func ReadIDXImages(path string) (*Images, error) {
	f, err := ReadIDX(path)
	if err != nil {
		return nil, err
	}
	return imagesFromIDX(f, path)
}

func imagesFromIDX(f *IDX, name string) (*Images, error) {
	if len(f.Dims) != 3 {
		return nil, fmt.Errorf("%s: image files have rank 3 (count, rows, columns), this one has rank %d", name, len(f.Dims))
	}
	n, h, w := f.Dims[0], f.Dims[1], f.Dims[2]
	x := blas32.General{Rows: n, Cols: h * w, Stride: h * w, Data: make([]float32, n*h*w)}
	for i, b := range f.Data {
		x.Data[i] = float32(b) / 255
	}
	return &Images{N: n, Height: h, Width: w, X: x}, nil
}

// ReadIDXLabels reads a rank-1 IDX label file.
func ReadIDXLabels(path string) ([]int, error) {
	f, err := ReadIDX(path)
	if err != nil {
		return nil, err
	}
	if len(f.Dims) != 1 {
		return nil, fmt.Errorf("%s: label files have rank 1, this one has rank %d", path, len(f.Dims))
	}
	labels := make([]int, len(f.Data))
	for i, b := range f.Data {
		labels[i] = int(b)
	}
	return labels, nil
}

// LabelledImages is an image set with one label per image.
type LabelledImages struct {
	*Images
	Labels []int
}

// ReadIDXPair reads an image file and its label file and checks that they
// describe the same number of items.
func ReadIDXPair(imagesPath, labelsPath string) (*LabelledImages, error) {
	im, err := ReadIDXImages(imagesPath)
	if err != nil {
		return nil, err
	}
	lb, err := ReadIDXLabels(labelsPath)
	if err != nil {
		return nil, err
	}
	if len(lb) != im.N {
		return nil, fmt.Errorf("%s has %d images but %s has %d labels", imagesPath, im.N, labelsPath, len(lb))
	}
	return &LabelledImages{Images: im, Labels: lb}, nil
}

// ErrNonFinite reports a NaN or infinite input value.
var ErrNonFinite = errors.New("input has a NaN or infinite value")

// NormalizeRows scales every row of x to unit Euclidean length in place.
// All-zero rows stay zero. A non-finite value is an error naming its row.
func NormalizeRows(x blas32.General) error {
	for i := 0; i < x.Rows; i++ {
		row := x.Data[i*x.Stride : i*x.Stride+x.Cols]
		var ss float64
		for _, v := range row {
			ss += float64(v) * float64(v)
		}
		if math.IsNaN(ss) || math.IsInf(ss, 0) {
			return fmt.Errorf("row %d: %w", i, ErrNonFinite)
		}
		if ss == 0 {
			continue
		}
		inv := float32(1 / math.Sqrt(ss))
		for j := range row {
			row[j] *= inv
		}
	}
	return nil
}
