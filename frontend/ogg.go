package frontend

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
)

// Ogg is read here rather than by the codecs' own readers: this one reads
// from memory with every length checked against what the file holds, has
// no recursion for a crafted file to exhaust, and serves Vorbis and Opus
// alike. It follows the first logical stream (the audio of a file with
// several) and stops at that stream's end; pages of other streams are
// skipped.

// ErrOgg is wrapped by every error about an Ogg container that cannot be
// read.
var ErrOgg = errors.New("malformed Ogg")

func oggErr(format string, args ...any) error {
	return fmt.Errorf("%w: %s", ErrOgg, fmt.Sprintf(format, args...))
}

// oggPacket is one packet and the granule position of the page it ended
// on (-1 when that page ends no packet, or when another packet ends after
// it on the same page).
type oggPacket struct {
	data    []byte
	granule int64
}

// oggCRCTable is CRC-32 with polynomial 0x04c11db7, unreflected, as Ogg
// pages use (hash/crc32 offers only the reflected form).
var oggCRCTable = func() (t [256]uint32) {
	for i := range t {
		c := uint32(i) << 24
		for range 8 {
			if c&0x80000000 != 0 {
				c = c<<1 ^ 0x04c11db7
			} else {
				c <<= 1
			}
		}
		t[i] = c
	}
	return t
}()

func oggCRC(page []byte) uint32 {
	var c uint32
	for i, x := range page {
		if i >= 22 && i < 26 {
			x = 0 // the checksum field counts as zero
		}
		c = c<<8 ^ oggCRCTable[byte(c>>24)^x]
	}
	return c
}

// oggPackets splits b into the packets of its first logical stream. Each
// packet's bytes are a copy only when it spans pages; otherwise they are
// a slice of b.
func oggPackets(b []byte) ([]oggPacket, error) {
	var (
		out     []oggPacket
		serial  uint32
		partial []byte // a packet continued from the previous page
		started bool
	)
	for off := 0; off < len(b); {
		if len(b)-off < 27 || !bytes.HasPrefix(b[off:], []byte("OggS")) {
			if started && len(b)-off < 27 {
				return nil, oggErr("cut short in a page header at byte %d", off)
			}
			return nil, oggErr("no page at byte %d (found % x)", off, b[off:min(off+4, len(b))])
		}
		h := b[off:]
		if h[4] != 0 {
			return nil, oggErr("page version %d at byte %d", h[4], off)
		}
		nseg := int(h[26])
		if 27+nseg > len(h) {
			return nil, oggErr("cut short in a segment table at byte %d", off)
		}
		body := 0
		for _, l := range h[27 : 27+nseg] {
			body += int(l)
		}
		end := 27 + nseg + body
		if end > len(h) {
			return nil, oggErr("truncated: the page at byte %d declares %d bytes, the file holds %d", off, end, len(h))
		}
		page := h[:end]
		if want, got := binary.LittleEndian.Uint32(page[22:]), oggCRC(page); want != got {
			return nil, oggErr("page at byte %d fails its checksum (damaged file)", off)
		}
		flags := page[5]
		granule := int64(binary.LittleEndian.Uint64(page[6:]))
		pageSerial := binary.LittleEndian.Uint32(page[14:])
		off += end
		if !started {
			serial, started = pageSerial, true
		} else if pageSerial != serial {
			continue // another stream's page (video, a second track)
		}
		switch continued := flags&1 != 0; {
		case continued && partial == nil:
			return nil, oggErr("the page at byte %d continues a packet that no page began", off-end)
		case !continued && partial != nil:
			return nil, oggErr("a packet is cut off by the page at byte %d", off-end)
		}
		lacing, data := page[27:27+nseg], page[27+nseg:]
		last := -1 // the segment that ends the page's last packet
		for i, l := range lacing {
			if l < 255 {
				last = i
			}
		}
		start, pos := 0, 0
		for i, l := range lacing {
			pos += int(l)
			if l == 255 {
				continue // the packet goes on in the next segment
			}
			p := data[start:pos]
			if partial != nil {
				p = append(partial, p...)
				partial = nil
			}
			g := int64(-1)
			if i == last {
				g = granule
			}
			out = append(out, oggPacket{p, g})
			start = pos
		}
		if start < pos || (nseg > 0 && lacing[nseg-1] == 255) {
			partial = append(partial, data[start:pos]...)
		}
		if flags&4 != 0 {
			break // end of the stream
		}
	}
	return out, nil
}
