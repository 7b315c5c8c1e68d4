package engine

import (
	"bytes"
	"crypto/sha256"
	"encoding/binary"
	"encoding/json"
	"fmt"
)

// envelope is the frame of rfstream's binary files, models and voice
// files alike: an 8-byte magic, the format version and the header's length
// (uint32, little-endian), a JSON header, the values, and the SHA-256 of
// everything before it.
type envelope struct {
	magic   [8]byte
	what    string // "model", "voice file": what errors call it
	corrupt error  // wrapped by every error about a damaged file
}

// open checks b's frame and decodes its header into header (unknown
// fields refused), returning the format version and the values after the
// header. checkVersion sees the version before the checksum is checked, so
// a file of another format is told apart from a damaged one.
func (e envelope) open(b []byte, checkVersion func(uint32) error, header any) (uint32, []byte, error) {
	const fixed = len(e.magic) + 8
	if len(b) < fixed+sha256.Size {
		return 0, nil, fmt.Errorf("%w: %d bytes is too short to be a %s", e.corrupt, len(b), e.what)
	}
	if !bytes.Equal(b[:len(e.magic)], e.magic[:]) {
		return 0, nil, fmt.Errorf("%w: not an rfstream %s (bad magic)", e.corrupt, e.what)
	}
	version := binary.LittleEndian.Uint32(b[8:])
	if err := checkVersion(version); err != nil {
		return 0, nil, err
	}
	body, sum := b[:len(b)-sha256.Size], b[len(b)-sha256.Size:]
	if got := sha256.Sum256(body); !bytes.Equal(got[:], sum) {
		return 0, nil, fmt.Errorf("%w: checksum mismatch (truncated or altered)", e.corrupt)
	}
	hlen := int(binary.LittleEndian.Uint32(b[12:]))
	if hlen > maxHeader || fixed+hlen > len(body) {
		return 0, nil, fmt.Errorf("%w: header length %d does not fit the file", e.corrupt, hlen)
	}
	dec := json.NewDecoder(bytes.NewReader(body[fixed : fixed+hlen]))
	dec.DisallowUnknownFields()
	if err := dec.Decode(header); err != nil {
		return 0, nil, fmt.Errorf("%w: header: %v", e.corrupt, err)
	}
	return version, body[fixed+hlen:], nil
}

// begin starts a file in buf: magic, version, the header's length and
// the header.
func (e envelope) begin(buf *bytes.Buffer, version uint32, header []byte) {
	buf.Write(e.magic[:])
	binary.Write(buf, binary.LittleEndian, version)
	binary.Write(buf, binary.LittleEndian, uint32(len(header)))
	buf.Write(header)
}

// seal ends the file in buf with the SHA-256 of what it holds.
func (envelope) seal(buf *bytes.Buffer) {
	sum := sha256.Sum256(buf.Bytes())
	buf.Write(sum[:])
}
