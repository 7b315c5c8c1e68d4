package frontend

import (
	"errors"
	"fmt"
	"math"

	"github.com/jfreymuth/vorbis"
)

// Ogg Vorbis is decoded by github.com/jfreymuth/vorbis (the codec of
// github.com/jfreymuth/oggvorbis, without its Ogg reader: ogg.go reads
// the pages). Pure Go; within float rounding of ffmpeg's libvorbis
// decoding; see experiments/journal/audio.md for the numbers.
//
// The library sizes its tables from the setup header's codebook sizes
// (up to 2^24 entries of up to 2^16 dimensions each) and its comment list
// from the comment header's count, before checking that the packet holds
// them. So the comment header is not given to it at all (rfstream reads
// no tags) and the setup header is checked first by checkVorbisSetup.

// ErrVorbis is wrapped by every error about Vorbis audio that cannot be
// decoded.
var ErrVorbis = errors.New("malformed Ogg Vorbis")

func vorbisErr(format string, args ...any) error {
	return fmt.Errorf("%w: %s", ErrVorbis, fmt.Sprintf(format, args...))
}

// emptyVorbisComments is a comment header with no vendor and no tags.
var emptyVorbisComments = []byte("\x03vorbis\x00\x00\x00\x00\x00\x00\x00\x00\x01")

// maxCodebookValues bounds the entries × dimensions of all the setup
// header's codebooks together: libvorbis's largest books hold a few
// thousand, so 2^22 (16 MiB of float32) is far above any real file.
const maxCodebookValues = 1 << 22

func decodeVorbis(b []byte, most bound) (a *Audio, err error) {
	defer func() {
		if r := recover(); r != nil {
			a, err = nil, vorbisErr("decoder failed: %v", r)
		}
	}()
	packets, err := oggPackets(b)
	if err != nil {
		return nil, err
	}
	if len(packets) < 3 {
		return nil, vorbisErr("%d header packets, need 3", len(packets))
	}
	var d vorbis.Decoder
	if err := d.ReadHeader(packets[0].data); err != nil {
		return nil, vorbisErr("identification header: %v", err)
	}
	ch, rate := d.Channels(), d.SampleRate()
	switch {
	case ch < 1:
		return nil, vorbisErr("%d channels", ch)
	case rate < 1000 || rate > 768000:
		return nil, vorbisErr("sample rate %d Hz out of range 1000..768000", rate)
	}
	if p := packets[1].data; len(p) < 7 || p[0] != 3 {
		return nil, vorbisErr("the second packet is not a comment header")
	}
	if err := d.ReadHeader(emptyVorbisComments); err != nil {
		return nil, vorbisErr("comment header: %v", err)
	}
	if err := checkVorbisSetup(packets[2].data); err != nil {
		return nil, err
	}
	if err := d.ReadHeader(packets[2].data); err != nil {
		return nil, vorbisErr("setup header: %v", err)
	}
	sink := newMonoSink(ch, rate, most)
	buf := make([]float32, d.BufferSize())
	end := int64(-1) // the last granule position: the stream's length
	for i, p := range packets[3:] {
		out, err := d.DecodeInto(p.data, buf)
		if err != nil {
			return nil, vorbisErr("audio packet %d: %v", i, err)
		}
		if err := sink.addFloat(out); err != nil {
			return nil, err
		}
		if p.granule >= 0 {
			end = p.granule
		}
	}
	// The last page's granule position says where the audio ends; the
	// last packet's block runs past it.
	if end >= 0 && end < int64(len(sink.out)) {
		sink.out = sink.out[:end]
	}
	return sink.audio(), nil
}

// lsbBits reads a Vorbis bit stream: least significant bit first.
type lsbBits struct {
	b   []byte
	pos int // in bits
}

func (r *lsbBits) left() int { return 8*len(r.b) - r.pos }

func (r *lsbBits) read(n int) (uint32, bool) {
	if n > r.left() {
		return 0, false
	}
	var v uint32
	for i := range n {
		bit := r.b[(r.pos+i)/8] >> ((r.pos + i) % 8) & 1
		v |= uint32(bit) << i
	}
	r.pos += n
	return v, true
}

// checkVorbisSetup walks the setup header's codebooks (the part whose
// sizes the decoder allocates from) and refuses one that is empty,
// larger than maxCodebookValues together with the others, or whose
// values the packet does not hold.
func checkVorbisSetup(p []byte) error {
	if len(p) < 8 || p[0] != 5 || string(p[1:7]) != "vorbis" {
		return vorbisErr("the third packet is not a setup header")
	}
	r := &lsbBits{b: p[7:]}
	short := func(book int) error { return vorbisErr("setup header cut short in codebook %d", book) }
	n, ok := r.read(8)
	if !ok {
		return short(0)
	}
	total := 0
	for book := range int(n) + 1 {
		sync, ok1 := r.read(24)
		dims, ok2 := r.read(16)
		entries, ok3 := r.read(24)
		ordered, ok4 := r.read(1)
		if !ok1 || !ok2 || !ok3 || !ok4 {
			return short(book)
		}
		if sync != 0x564342 {
			return vorbisErr("codebook %d has no sync pattern", book)
		}
		if dims == 0 || entries == 0 {
			return vorbisErr("codebook %d has %d entries of %d dimensions", book, entries, dims)
		}
		if total += int(entries) * int(dims); total > maxCodebookValues {
			return vorbisErr("codebooks of more than %d values in all (codebook %d has %d entries of %d dimensions)", maxCodebookValues, book, entries, dims)
		}
		if ordered == 1 {
			if _, ok := r.read(5); !ok {
				return short(book)
			}
			for cur := uint32(0); cur < entries; {
				num, ok := r.read(bitLen(entries - cur))
				if !ok {
					return short(book)
				}
				if cur += num; cur > entries {
					return vorbisErr("codebook %d: ordered lengths overrun its %d entries", book, entries)
				}
			}
		} else {
			sparse, ok := r.read(1)
			if !ok {
				return short(book)
			}
			for range entries {
				if sparse == 1 {
					used, ok := r.read(1)
					if !ok {
						return short(book)
					}
					if used == 0 {
						continue
					}
				}
				if _, ok := r.read(5); !ok {
					return short(book)
				}
			}
		}
		lookup, ok := r.read(4)
		switch {
		case !ok:
			return short(book)
		case lookup == 0:
			continue
		case lookup > 2:
			return vorbisErr("codebook %d: lookup type %d", book, lookup)
		}
		_, ok1 = r.read(32) // minimum value
		_, ok2 = r.read(32) // delta value
		vb, ok3 := r.read(4)
		_, ok4 = r.read(1)
		if !ok1 || !ok2 || !ok3 || !ok4 {
			return short(book)
		}
		// Type 1 stores the side of a lattice: the largest integer whose
		// dims-th power is at most entries (computed as the library does).
		values := int(entries) * int(dims)
		if lookup == 1 {
			values = int(math.Floor(math.Pow(float64(entries), 1/float64(dims))))
		}
		if values*(int(vb)+1) > r.left() {
			return vorbisErr("codebook %d declares %d values, the setup header holds fewer", book, values)
		}
		r.pos += values * (int(vb) + 1)
	}
	return nil
}

// bitLen is the number of bits needed to write x (Vorbis's ilog).
func bitLen(x uint32) int {
	n := 0
	for ; x > 0; x >>= 1 {
		n++
	}
	return n
}
