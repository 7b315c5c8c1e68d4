package streaming

import (
	"fmt"

	"github.com/nats-io/nats.go"

	"github.com/rfstream/rfstream/frontend"
)

// MaxImageBytes bounds one image message.
const MaxImageBytes = 768 << 10

// EncU8 marks an image payload of raw 8-bit grey pixels at the model's
// size, row-major; any other payload is an encoded image (PNG, JPEG, GIF,
// PGM).
const EncU8 = "u8"

func decodeImagePayload(m *nats.Msg, h, w int) ([]float32, error) {
	if m.Header.Get(HdrEncoding) == EncU8 {
		if len(m.Data) != h*w {
			return nil, fmt.Errorf("raw image of %d bytes, the model takes %dx%d", len(m.Data), h, w)
		}
		px := make([]float32, len(m.Data))
		for i, b := range m.Data {
			px[i] = float32(b) / 255
		}
		return px, nil
	}
	return frontend.DecodeImage(m.Data, h, w)
}
