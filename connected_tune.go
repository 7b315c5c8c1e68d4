package rfstream

import (
	"encoding/json"
	"fmt"

	"gonum.org/v1/gonum/blas/blas32"

	"github.com/rfstream/rfstream/decode"
	"github.com/rfstream/rfstream/frontend"
)

// DevUtterance is a recording with its known words, for tuning.
type DevUtterance struct {
	Audio *frontend.Audio
	Words []string
}

// TuneTrial is one decoder setting tried on the development strings.
type TuneTrial struct {
	WordPenalty   float64 `json:"word_penalty"`
	AcousticScale float64 `json:"acoustic_scale"`
	WER           float64 `json:"wer"`
	SER           float64 `json:"ser"`
}

// TuneConnected chooses the word penalty and acoustic scale with the lowest
// WER on dev (ties go to the first in grid order), writes them into the
// model's decoder configuration and returns every trial. The frames are
// scored once; only the search is repeated. dev must never be test data.
func TuneConnected(m *Model, dev []DevUtterance, penalties, scales []float64) ([]TuneTrial, error) {
	c, err := NewConnected(m)
	if err != nil {
		return nil, err
	}
	if len(dev) == 0 || len(penalties) == 0 || len(scales) == 0 {
		return nil, fmt.Errorf("rfstream: tuning needs dev strings and a grid")
	}
	ll := make([]blas32.General, len(dev))
	for i, d := range dev {
		x, err := c.Frames(d.Audio)
		if err != nil {
			return nil, err
		}
		ll[i] = c.LogLikelihoods(x)
	}
	var trials []TuneTrial
	best := -1
	for _, wp := range penalties {
		for _, as := range scales {
			dc := c.Decoder
			dc.WordPenalty, dc.AcousticScale = wp, as
			g, err := decode.WordLoop(c.words, &c.sil, decode.LoopConfig{SilenceProb: dc.SilenceProb, WordPenalty: dc.WordPenalty, LMScale: dc.LMScale})
			if err != nil {
				return nil, err
			}
			opt := c.options()
			opt.AcousticScale = as
			var counts decode.ErrorCounts
			for i, d := range dev {
				r, err := decode.Viterbi(g, ll[i], opt)
				if err != nil {
					return nil, err
				}
				counts.Add(d.Words, decode.Labels(r.Words))
			}
			trials = append(trials, TuneTrial{WordPenalty: wp, AcousticScale: as, WER: counts.ErrorRate(), SER: counts.SER()})
			if best < 0 || trials[len(trials)-1].WER < trials[best].WER {
				best = len(trials) - 1
			}
		}
	}
	dc := c.Decoder
	dc.WordPenalty, dc.AcousticScale = trials[best].WordPenalty, trials[best].AcousticScale
	if m.Decoder, err = json.Marshal(dc); err != nil {
		return nil, err
	}
	return trials, nil
}
