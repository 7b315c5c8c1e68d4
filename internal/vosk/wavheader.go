package vosk

import (
	"encoding/binary"
	"errors"
	"fmt"
)

// WAVHeader reads the RIFF/WAVE header a client may send ahead of its PCM:
// Vosk's Node example sends a WAV file as it is read, header and all, in
// its first binary message. ok is false when msg does not start with such
// a header (it is then PCM like any other chunk). Otherwise rate is the
// file's sample rate and data the offset of its PCM in msg; a header that
// is not 16-bit mono PCM, or that does not reach its data chunk within
// msg, is an error that says which.
func WAVHeader(msg []byte) (rate, data int, ok bool, err error) {
	if len(msg) < 12 || string(msg[:4]) != "RIFF" || string(msg[8:12]) != "WAVE" {
		return 0, 0, false, nil
	}
	haveFmt := false
	for off := 12; off+8 <= len(msg); {
		id, size := string(msg[off:off+4]), int64(binary.LittleEndian.Uint32(msg[off+4:]))
		body := off + 8
		switch id {
		case "fmt ":
			if size < 16 || int64(body)+16 > int64(len(msg)) {
				return 0, 0, true, errors.New("WAV header: fmt chunk shorter than 16 bytes")
			}
			format := binary.LittleEndian.Uint16(msg[body:])
			channels := binary.LittleEndian.Uint16(msg[body+2:])
			r := binary.LittleEndian.Uint32(msg[body+4:])
			bits := binary.LittleEndian.Uint16(msg[body+14:])
			if (format != 1 && format != 0xFFFE) || channels != 1 || bits != 16 {
				return 0, 0, true, fmt.Errorf("WAV header: format %d, %d channels, %d bits; this endpoint takes 16-bit mono PCM", format, channels, bits)
			}
			if r == 0 || r > 1e7 {
				return 0, 0, true, fmt.Errorf("WAV header: sample rate %d", r)
			}
			rate, haveFmt = int(r), true
		case "data":
			if !haveFmt {
				return 0, 0, true, errors.New("WAV header: data chunk before the fmt chunk")
			}
			return rate, body, true, nil
		}
		next := int64(body) + size + size%2
		if next > int64(len(msg)) {
			break
		}
		off = int(next)
	}
	return 0, 0, true, errors.New("WAV header: no data chunk in the first message (send the header with the first chunk)")
}
