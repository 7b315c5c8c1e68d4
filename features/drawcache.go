package features

import (
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/rfstream/rfstream/internal/cachedir"
)

// SeededNormal32 fills dst as FillNormal32(NewRand(seed, stream), dst)
// does, reading the values from the data cache when an earlier process
// drew the same ones. A map's projections are redrawn from its seed every
// time a model is loaded, and for the default connected model that drawing
// was about three quarters of a one-word `rfstream recognize`'s CPU time
// (Box–Muller's logarithm, square root and sine for every value); reading
// them back takes a few per cent of it. Draws under minCachedDraw values
// are quick and are never cached.
//
// The cache is an optimisation only: a file that is missing, short, of
// another length or whose checksum fails is drawn again and rewritten, and
// a cache that cannot be written leaves the values drawn. The values are
// the same either way (TestSeededNormalsAreTheDrawnOnes).
func SeededNormal32(seed uint64, stream Stream, dst []float32) {
	if len(dst) < minCachedDraw {
		FillNormal32(NewRand(seed, stream), dst)
		return
	}
	dir := filepath.Join(cachedir.Dir(), "draws")
	path := filepath.Join(dir, fmt.Sprintf("normal32-v%d-%016x-%d-%d.f32", drawVersion, seed, stream, len(dst)))
	if readDraw(path, dst) == nil {
		now := time.Now()
		os.Chtimes(path, now, now) // the least recently used file goes first
		return
	}
	FillNormal32(NewRand(seed, stream), dst)
	if writeDraw(dir, path, dst) == nil {
		trimDraws(dir, maxDrawCacheBytes)
	}
}

const (
	// drawVersion names the generator in the file names: a change to
	// NewRand, Uniform or normalPair changes every value, and must bump it
	// so no process reads values the old generator drew.
	drawVersion = 1
	// minCachedDraw is 1 Mi values (4 MiB): drawn in about 20 ms.
	minCachedDraw = 1 << 20
	// maxDrawCacheBytes bounds the folder: the lab draws maps of many
	// sizes and seeds, a user's few models fit many times over.
	maxDrawCacheBytes = 1 << 30
	drawMagic         = "RFSDRAW1"
	drawHeaderBytes   = 8 + 8 + 4 // magic, count, CRC-32C of the values
)

var castagnoli = crc32.MakeTable(crc32.Castagnoli)

// readDraw fills dst from the file at path, or fails leaving dst's values
// unspecified.
func readDraw(path string, dst []float32) error {
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	defer f.Close()
	if st, err := f.Stat(); err != nil || st.Size() != drawHeaderBytes+4*int64(len(dst)) {
		return errors.New("not a cached draw of this length")
	}
	var h [drawHeaderBytes]byte
	if _, err := io.ReadFull(f, h[:]); err != nil {
		return err
	}
	if string(h[:8]) != drawMagic || binary.LittleEndian.Uint64(h[8:]) != uint64(len(dst)) {
		return errors.New("not a cached draw of this length")
	}
	buf := make([]byte, 64<<10)
	var sum uint32
	for i := 0; i < len(dst); {
		n := min(len(buf)/4, len(dst)-i)
		if _, err := io.ReadFull(f, buf[:4*n]); err != nil {
			return err
		}
		sum = crc32.Update(sum, castagnoli, buf[:4*n])
		for j := range n {
			dst[i+j] = math.Float32frombits(binary.LittleEndian.Uint32(buf[4*j:]))
		}
		i += n
	}
	if sum != binary.LittleEndian.Uint32(h[16:]) {
		return errors.New("cached draw fails its checksum")
	}
	return nil
}

// writeDraw writes src to path through a temporary file renamed into place,
// so a reader sees the whole file or none, whichever process wrote it.
func writeDraw(dir, path string, src []float32) (err error) {
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return err
	}
	f, err := os.CreateTemp(dir, ".draw-*")
	if err != nil {
		return err
	}
	defer func() {
		if err != nil {
			f.Close()
			os.Remove(f.Name())
		}
	}()
	body := make([]byte, 4*len(src))
	for i, v := range src {
		binary.LittleEndian.PutUint32(body[4*i:], math.Float32bits(v))
	}
	var h [drawHeaderBytes]byte
	copy(h[:], drawMagic)
	binary.LittleEndian.PutUint64(h[8:], uint64(len(src)))
	binary.LittleEndian.PutUint32(h[16:], crc32.Checksum(body, castagnoli))
	if _, err = f.Write(h[:]); err != nil {
		return err
	}
	if _, err = f.Write(body); err != nil {
		return err
	}
	if err = f.Close(); err != nil {
		return err
	}
	return os.Rename(f.Name(), path)
}

// trimDraws removes the least recently used cached draws until the folder
// holds at most limit bytes.
func trimDraws(dir string, limit int64) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return
	}
	type file struct {
		path string
		size int64
		used time.Time
	}
	var files []file
	var total int64
	for _, e := range entries {
		if strings.HasPrefix(e.Name(), ".") {
			continue // another process's file being written
		}
		info, err := e.Info()
		if err != nil || !info.Mode().IsRegular() {
			continue
		}
		files = append(files, file{filepath.Join(dir, e.Name()), info.Size(), info.ModTime()})
		total += info.Size()
	}
	slices.SortFunc(files, func(a, b file) int { return a.used.Compare(b.used) })
	for _, f := range files {
		if total <= limit {
			return
		}
		if os.Remove(f.path) == nil {
			total -= f.size
		}
	}
}
