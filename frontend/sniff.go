package frontend

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"unicode"
)

// Audio files are told apart by their first bytes, never by their names:
// a recording renamed .wav, or sent on standard input, is read by what it
// holds. This file says which container or codec those bytes announce.

// container is a format this package decodes.
type container int

const (
	formatWAV container = iota + 1
	formatSphere
	formatFLAC
	formatVorbis
	formatOpus
	formatMP3
)

// ErrUnknownFormat is wrapped by the error for bytes that announce no
// format this package knows, decodable or not (raw PCM among them).
var ErrUnknownFormat = errors.New("not a known audio format")

// ErrUnsupported is wrapped by the error for a format recognised by its
// header but not decoded here (M4A, WebM, AIFF, ...).
var ErrUnsupported = errors.New("audio format not decoded")

// unsupported is a recognised format that no decoder here reads. Its
// message names the format and the command that converts it, because a
// user holding an .m4a wants to know what to run, not what went wrong.
type unsupported struct {
	what string // the format as the header tells it, e.g. "an MPEG-4 (M4A/AAC) file"
	ext  string // the usual file extension, for the example command
	why  string // why it is not read, when more than "rfstream does not decode it"
	path string // the file, once a reader knows it: the command then names it
}

func (u *unsupported) Error() string {
	why := u.why
	if why == "" {
		why = "which rfstream does not decode"
	}
	in, out := "in."+u.ext, "out.wav"
	if u.path != "" && u.path != "-" {
		in, out = u.path, strings.TrimSuffix(u.path, filepath.Ext(u.path))+".wav"
		if out == in {
			out = in + ".wav"
		}
		in, out = shellQuote(in), shellQuote(out)
	}
	return fmt.Sprintf("%s, %s: convert it first, e.g. ffmpeg -i %s -ac 1 %s", u.what, why, in, out)
}

// NamePath makes err's conversion command, if it has one, name path
// instead of an example file, so that it can be run as printed.
func NamePath(err error, path string) error {
	var u *unsupported
	if errors.As(err, &u) {
		u.path = path
	}
	return err
}

// shellQuote quotes s for a POSIX shell when it holds anything but
// letters, digits and ./_-.
func shellQuote(s string) string {
	for _, r := range s {
		if !(r == '.' || r == '/' || r == '_' || r == '-' || unicode.IsLetter(r) || unicode.IsDigit(r)) {
			return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
		}
	}
	return s
}

func (u *unsupported) Unwrap() error { return ErrUnsupported }

// readable lists the formats the decoders read, for messages.
const readable = "WAV, FLAC, Ogg Vorbis, Ogg Opus, MP3 (MPEG-1/2) and NIST SPHERE"

// sniff says which decoder reads b, or why none does. An ID3v2 tag (which
// MP3 files, and some FLAC files, start with) is looked past.
func sniff(b []byte) (container, error) {
	if len(b) == 0 {
		return 0, fmt.Errorf("%w: the file is empty", ErrUnknownFormat)
	}
	head := b
	for range 4 { // a file may carry several tags; four is plenty
		n, ok := id3Length(head)
		if !ok {
			break
		}
		if n >= len(head) {
			return 0, fmt.Errorf("%w: an ID3 tag of %d bytes and no audio after it (the file holds %d)", ErrUnknownFormat, n, len(head))
		}
		head = head[n:]
	}
	has := func(off int, s string) bool {
		return len(head) >= off+len(s) && string(head[off:off+len(s)]) == s
	}
	switch {
	case has(0, "RIFF") && has(8, "WAVE"):
		return formatWAV, nil
	case has(0, "RIFF") && has(8, "AVI "):
		return 0, &unsupported{what: "an AVI video", ext: "avi"}
	case has(0, "RIFX") || has(0, "RF64") || has(0, "BW64"):
		return 0, &unsupported{what: fmt.Sprintf("a %s WAV (big-endian or 64-bit sizes)", head[:4]), ext: "wav"}
	case has(0, "RIFF"):
		return formatWAV, nil // the WAV reader says what is wrong with it
	case IsSphere(head):
		return formatSphere, nil
	case has(0, "fLaC"):
		return formatFLAC, nil
	case has(0, "OggS"):
		return oggCodec(head)
	case has(4, "ftyp"):
		return 0, mp4Kind(head)
	case has(0, "\x1a\x45\xdf\xa3"):
		if bytes.Contains(head[:min(64, len(head))], []byte("webm")) {
			return 0, &unsupported{what: "a WebM file", ext: "webm"}
		}
		return 0, &unsupported{what: "a Matroska (MKV/MKA) file", ext: "mka"}
	case has(0, "FORM") && (has(8, "AIFF") || has(8, "AIFC")):
		return 0, &unsupported{what: "an AIFF file", ext: "aiff"}
	case has(0, ".snd"):
		return 0, &unsupported{what: "a Sun/NeXT AU file", ext: "au"}
	case has(0, "caff"):
		return 0, &unsupported{what: "a Core Audio (CAF) file", ext: "caf"}
	case has(0, "\x30\x26\xb2\x75\x8e\x66\xcf\x11"):
		return 0, &unsupported{what: "an ASF (WMA/WMV) file", ext: "wma"}
	case has(0, "#!AMR"):
		return 0, &unsupported{what: "an AMR file", ext: "amr"}
	case has(0, "MAC "):
		return 0, &unsupported{what: "a Monkey's Audio (APE) file", ext: "ape"}
	case has(0, "wvpk"):
		return 0, &unsupported{what: "a WavPack file", ext: "wv"}
	case has(0, "FLV\x01"):
		return 0, &unsupported{what: "a Flash video (FLV)", ext: "flv"}
	case has(0, "\x00\x00\x01\xba") || has(0, "\x00\x00\x01\xb3"):
		return 0, &unsupported{what: "an MPEG program stream (video)", ext: "mpg"}
	case len(head) >= 2 && head[0] == 0xff && head[1]&0xf6 == 0xf0:
		return 0, &unsupported{what: "an AAC stream (ADTS)", ext: "aac"}
	}
	if h, ok := parseMPEGHeader(head); ok {
		if h.layer != 3 {
			return 0, &unsupported{what: fmt.Sprintf("MPEG audio layer %s (MP%d), not layer III (MP3)", strings.Repeat("I", h.layer), h.layer), ext: fmt.Sprintf("mp%d", h.layer)}
		}
		return formatMP3, nil
	}
	if what := otherKind(head); what != "" {
		return 0, fmt.Errorf("%w: %s, not audio", ErrUnknownFormat, what)
	}
	return 0, fmt.Errorf("%w: the file starts with % x (%q); rfstream reads %s", ErrUnknownFormat, head[:min(8, len(head))], printable(head[:min(8, len(head))]), readable)
}

// id3Length is the size of the ID3v2 tag b starts with, header and
// footer included.
func id3Length(b []byte) (int, bool) {
	if len(b) < 10 || string(b[:3]) != "ID3" {
		return 0, false
	}
	var size int
	for _, c := range b[6:10] {
		if c&0x80 != 0 {
			return 0, false // not a syncsafe size: not a tag
		}
		size = size<<7 | int(c)
	}
	n := 10 + size
	if b[5]&0x10 != 0 {
		n += 10 // a footer repeats the header
	}
	return n, true
}

// oggCodec reads the codec of an Ogg stream from its first packet, which
// starts right after the first page's header and segment table.
func oggCodec(b []byte) (container, error) {
	if len(b) < 27 {
		return 0, fmt.Errorf("%w: an Ogg file cut short in its first page header (%d bytes)", ErrOgg, len(b))
	}
	var first []byte // the first packet's start, if the page holds it
	if at := 27 + int(b[26]); at <= len(b) {
		first = b[at:]
	}
	is := func(s string) bool { return bytes.HasPrefix(first, []byte(s)) }
	switch {
	case is("\x01vorbis"):
		return formatVorbis, nil
	case is("OpusHead"):
		return formatOpus, nil
	case is("\x7fFLAC"):
		return 0, &unsupported{what: "an Ogg FLAC file (FLAC inside Ogg)", ext: "oga"}
	case is("Speex   "):
		return 0, &unsupported{what: "an Ogg Speex file", ext: "spx"}
	case is("\x80theora"):
		return 0, &unsupported{what: "an Ogg Theora video", ext: "ogv"}
	}
	return 0, &unsupported{what: fmt.Sprintf("an Ogg file whose first stream is %q, neither Vorbis nor Opus", printable(first[:min(8, len(first))])), ext: "ogg"}
}

// mp4Kind names an ISO media file by its major brand.
func mp4Kind(b []byte) error {
	brand := ""
	if len(b) >= 12 {
		brand = string(b[8:12])
	}
	switch {
	case brand == "M4A " || brand == "M4B " || brand == "M4P ":
		return &unsupported{what: "an MPEG-4 audio (M4A/AAC) file", ext: "m4a"}
	case brand == "qt  ":
		return &unsupported{what: "a QuickTime (MOV) file", ext: "mov"}
	case strings.HasPrefix(brand, "3g"):
		return &unsupported{what: "a 3GP file", ext: "3gp"}
	}
	return &unsupported{what: fmt.Sprintf("an MPEG-4 (MP4) file, brand %q", printable([]byte(brand))), ext: "mp4"}
}

// otherKind names common files that are not audio, so a picture given to
// `recognize` is called a picture.
func otherKind(b []byte) string {
	has := func(s string) bool { return bytes.HasPrefix(b, []byte(s)) }
	switch {
	case has("\x89PNG"):
		return "a PNG image"
	case has("\xff\xd8\xff"):
		return "a JPEG image"
	case has("GIF8"):
		return "a GIF image"
	case has("%PDF"):
		return "a PDF document"
	case has("PK\x03\x04"):
		return "a ZIP archive"
	case has("\x1f\x8b"):
		return "a gzip file"
	}
	text := b[:min(256, len(b))]
	for _, r := range string(text) {
		if r == unicode.ReplacementChar || (!unicode.IsPrint(r) && !unicode.IsSpace(r)) {
			return ""
		}
	}
	return fmt.Sprintf("text (%q)", printable(b[:min(24, len(b))]))
}

// printable shows bytes in a message without control characters.
func printable(b []byte) string {
	return strings.Map(func(r rune) rune {
		if r < 0x20 || r == 0x7f || r == unicode.ReplacementChar {
			return '.'
		}
		return r
	}, strings.ToValidUTF8(string(b), "."))
}

// mpegHeader is what an MPEG audio frame header says.
type mpegHeader struct {
	version int // 1, 2, or 25 for MPEG-2.5
	layer   int // 1, 2 or 3
	rate    int // Hz
	bitrate int // kbit/s; 0 for free format
	size    int // the frame's bytes, 0 for free format
	samples int // per channel
}

// mpegRates are the sample rates by rate index, for MPEG-1; MPEG-2 halves
// them and MPEG-2.5 quarters them.
var mpegRates = [3]int{44100, 48000, 32000}

// layer3Bitrates are layer III's bit rates (kbit/s) by index for MPEG-1
// and for MPEG-2/2.5 (layers I and II differ, and only their name is
// needed here, so their rates are not).
var layer3Bitrates = [2][15]int{
	{0, 32, 40, 48, 56, 64, 80, 96, 112, 128, 160, 192, 224, 256, 320},
	{0, 8, 16, 24, 32, 40, 48, 56, 64, 80, 96, 112, 128, 144, 160},
}

// parseMPEGHeader reads the 4-byte frame header b starts with. Every
// reserved value is refused, so that random bytes rarely pass.
func parseMPEGHeader(b []byte) (mpegHeader, bool) {
	var h mpegHeader
	if len(b) < 4 || b[0] != 0xff || b[1]&0xe0 != 0xe0 {
		return h, false
	}
	v := binary.BigEndian.Uint32(b)
	verBits, layerBits := (v>>19)&3, (v>>17)&3
	brIdx, srIdx := int(v>>12)&15, int(v>>10)&3
	if verBits == 1 || layerBits == 0 || brIdx == 15 || srIdx == 3 {
		return h, false
	}
	h.layer = 4 - int(layerBits)
	h.version = map[uint32]int{0: 25, 2: 2, 3: 1}[verBits]
	h.rate = mpegRates[srIdx]
	switch h.version {
	case 2:
		h.rate /= 2
	case 25:
		h.rate /= 4
	}
	if h.layer != 3 {
		return h, true
	}
	lsf := 0
	h.samples = 1152
	if h.version != 1 {
		lsf, h.samples = 1, 576
	}
	h.bitrate = layer3Bitrates[lsf][brIdx]
	pad := int(v>>9) & 1
	if h.bitrate > 0 {
		h.size = h.samples/8*h.bitrate*1000/h.rate + pad
	}
	return h, true
}

// FormatName names the format b announces by its first bytes: "WAV",
// "NIST SPHERE", "FLAC", "Ogg Vorbis", "Ogg Opus", "MP3", a description
// of a recognised format that is not decoded, or "" when the bytes
// announce none (raw PCM, for one). Endpoints that take raw samples use
// it to refuse a whole file sent in their place.
func FormatName(b []byte) string {
	format, err := sniff(b)
	var u *unsupported
	switch {
	case errors.As(err, &u):
		return u.what
	case err != nil:
		return ""
	}
	return map[container]string{formatWAV: "WAV", formatSphere: "NIST SPHERE", formatFLAC: "FLAC",
		formatVorbis: "Ogg Vorbis", formatOpus: "Ogg Opus", formatMP3: "MP3"}[format]
}
