package augment

import (
	"fmt"

	"github.com/rfstream/rfstream/frontend"
	"github.com/rfstream/rfstream/internal/sox"
)

// Telephone is the channel of a call: the band cut to 300–3400 Hz, 8 kHz
// sampling, and a codec ("" none, "u-law" G.711, "gsm" GSM 06.10 full
// rate). The result is at 8 kHz.
func Telephone(a *frontend.Audio, codec string) (*frontend.Audio, error) {
	b, err := frontend.Resample(a, 8000)
	if err != nil {
		return nil, err
	}
	if b, err = sox.Effects(b, "sinc", "-n", "255", "300-3400"); err != nil {
		return nil, err
	}
	switch codec {
	case "":
		return b, nil
	case "u-law":
		return sox.Codec(b, "wav", "u-law")
	case "gsm":
		return sox.Codec(b, "gsm", "")
	}
	return nil, fmt.Errorf("augment: codec %q (none, u-law, gsm)", codec)
}
