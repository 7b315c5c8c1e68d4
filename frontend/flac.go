package frontend

import (
	"bytes"
	"errors"
	"fmt"
	"io"

	"github.com/mewkiz/flac"
)

// FLAC is decoded by github.com/mewkiz/flac: pure Go, checks each frame's
// CRC, and in the measurements of experiments/journal/audio.md gives
// ffmpeg's samples exactly, at about 2000× real time for 8 kHz mono.

// ErrFLAC is wrapped by every error about a FLAC file that cannot be read.
var ErrFLAC = errors.New("malformed FLAC")

func flacErr(format string, args ...any) error {
	return fmt.Errorf("%w: %s", ErrFLAC, fmt.Sprintf(format, args...))
}

// decodeFLAC decodes a FLAC file held in memory, averaging its channels,
// refusing more than most seconds of audio (0: maxDecodedSamples).
func decodeFLAC(b []byte, most bound) (a *Audio, err error) {
	defer func() {
		// The library trusts some of what it reads; a fault in it must
		// cost one file, not a server.
		if r := recover(); r != nil {
			a, err = nil, flacErr("decoder failed: %v", r)
		}
	}()
	if err := checkFLACMetadata(b); err != nil {
		return nil, err
	}
	s, err := flac.New(bytes.NewReader(b))
	if err != nil {
		return nil, flacErr("%v", err)
	}
	info := s.Info
	ch, rate, bits := int(info.NChannels), int(info.SampleRate), int(info.BitsPerSample)
	switch {
	case rate < 1000 || rate > 768000:
		return nil, flacErr("sample rate %d Hz out of range 1000..768000", rate)
	case bits < 4 || bits > 32:
		return nil, flacErr("%d bits per sample", bits)
	}
	sink := newMonoSink(ch, rate, most)
	if info.NSamples > 0 && info.NSamples > uint64(sink.limit) {
		return nil, most.tooLong(rate) // the stream says so before any frame is read
	}
	planes := make([][]int32, ch)
	for {
		f, err := s.ParseNext()
		if err == io.EOF {
			break
		}
		if errors.Is(err, io.ErrUnexpectedEOF) {
			return nil, flacErr("truncated: the file ends inside the frame at sample %d", len(sink.out))
		}
		if err != nil {
			return nil, flacErr("frame at sample %d: %v", len(sink.out), err)
		}
		if len(f.Subframes) != ch {
			return nil, flacErr("frame at sample %d has %d channels, the stream %d", len(sink.out), len(f.Subframes), ch)
		}
		n := int(f.BlockSize)
		for c, sf := range f.Subframes {
			if len(sf.Samples) < n {
				return nil, flacErr("frame at sample %d: channel %d holds %d of %d samples", len(sink.out), c, len(sf.Samples), n)
			}
			planes[c] = sf.Samples
		}
		if err := sink.addPlanar(planes, n, bits); err != nil {
			return nil, err
		}
	}
	a = sink.audio()
	suppressQuantisationNoise(a.Samples, a.Rate, bits)
	return a, nil
}

// checkFLACMetadata walks the metadata blocks after the "fLaC" marker and
// refuses a block that claims more bytes than the file holds, so that no
// reader allocates from a lying length.
func checkFLACMetadata(b []byte) error {
	if n, ok := id3Length(b); ok && n < len(b) {
		b = b[n:]
	}
	if !bytes.HasPrefix(b, []byte("fLaC")) {
		return flacErr("no fLaC marker")
	}
	for off := 4; ; {
		if off+4 > len(b) {
			return flacErr("cut short in its metadata (at byte %d of %d)", off, len(b))
		}
		last, typ := b[off]&0x80 != 0, b[off]&0x7f
		size := int(b[off+1])<<16 | int(b[off+2])<<8 | int(b[off+3])
		if off == 4 && (typ != 0 || size != 34) {
			return flacErr("the first metadata block is type %d of %d bytes, not the 34-byte STREAMINFO", typ, size)
		}
		off += 4
		if size > len(b)-off {
			return flacErr("metadata block of type %d declares %d bytes, the file holds %d", typ, size, len(b)-off)
		}
		off += size
		if last {
			return nil
		}
	}
}
