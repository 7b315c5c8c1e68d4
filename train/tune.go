package train

import (
	"encoding/json"
	"fmt"

	"gonum.org/v1/gonum/blas/blas32"

	"github.com/rfstream/rfstream/decode"
	"github.com/rfstream/rfstream/engine"
	"github.com/rfstream/rfstream/frontend"
	"github.com/rfstream/rfstream/internal/linalg"
)

// DevUtterance is a recording with its known words, for tuning.
type DevUtterance struct {
	Audio *frontend.Audio
	Words []string
	// Group names the part of a mixed dev set the string belongs to
	// (FSDD's strings, a synthesiser's speakers): when the dev set has
	// more than one group, each trial's WER is reported per group too, so
	// a setting chosen on the mix can be checked on each part.
	Group string
}

// TuneTrial is one decoder setting tried on the development strings.
type TuneTrial struct {
	WordPenalty   float64 `json:"word_penalty"`
	AcousticScale float64 `json:"acoustic_scale"`
	PriorScale    float64 `json:"prior_scale"`
	WER           float64 `json:"wer"`
	SER           float64 `json:"ser"`
	// GroupWER is the WER of each dev group (DevUtterance.Group) when
	// there are two or more.
	GroupWER map[string]float64 `json:"group_wer,omitempty"`
}

// BestTrial is the trial with the lowest WER, the first of equals: the
// setting TuneConnected writes into the model.
func BestTrial(trials []TuneTrial) TuneTrial {
	best := trials[0]
	for _, t := range trials {
		if t.WER < best.WER {
			best = t
		}
	}
	return best
}

// TuneGrid lists the decoder settings TuneConnected tries.
type TuneGrid struct {
	WordPenalties, AcousticScales, PriorScales []float64
	// Fold, when set, folds references and hypotheses before scoring (a
	// phone model's labels onto the scoring phone set).
	Fold decode.PhoneMap
}

// DefaultTuneGrid is 8 word penalties × 4 acoustic scales × 5 prior scales.
func DefaultTuneGrid() TuneGrid {
	return TuneGrid{WordPenalties: []float64{0, -2, -5, -10, -20, -40, -60, -80}, AcousticScales: []float64{1, 0.5, 0.25, 0.1},
		PriorScales: []float64{1, 0.5, 0.3, 0.2, 0.1}}
}

// WideTuneGrid is DefaultTuneGrid with word bonuses (positive word
// penalties) and acoustic scales above 1 after its own values, so ties
// keep the default grid's choice: fluent speech, whose words run
// together, chose both ends of the default grid
// (experiments/journal/anyvoice.md, round K).
func WideTuneGrid() TuneGrid {
	g := DefaultTuneGrid()
	g.WordPenalties = append(g.WordPenalties, 5, 10, 20)
	g.AcousticScales = append(g.AcousticScales, 1.5, 2)
	return g
}

// TuneConnected chooses the word penalty, acoustic scale and prior scale
// with the lowest WER on dev (ties go to the first in grid order), writes
// them into the model's decoder configuration and returns every trial. The
// frames are classified once; only the search is repeated. dev must never
// be test data.
//
// The prior scale matters most: dividing by the state priors boosts the
// rare word states against the frequent silence states, and at full
// strength a word can swallow the silence around it.
func TuneConnected(m *engine.Model, dev []DevUtterance, grid TuneGrid) ([]TuneTrial, error) {
	c, err := engine.NewConnected(m)
	if err != nil {
		return nil, err
	}
	if len(dev) == 0 || len(grid.WordPenalties) == 0 || len(grid.AcousticScales) == 0 || len(grid.PriorScales) == 0 {
		return nil, fmt.Errorf("rfstream: tuning needs dev strings and a grid")
	}
	post := make([]blas32.General, len(dev))
	for i, d := range dev {
		x, err := c.Frames(d.Audio)
		if err != nil {
			return nil, err
		}
		post[i] = c.LogPosteriors(x)
	}
	rawPrior := c.LogPriors()
	ll := make([]blas32.General, len(dev))
	var trials []TuneTrial
	best := -1
	for _, ps := range grid.PriorScales {
		for i, p := range post {
			ll[i] = linalg.NewGeneral32(p.Rows, p.Cols)
			for f := 0; f < p.Rows; f++ {
				src, dst := linalg.Row32(p, f), linalg.Row32(ll[i], f)
				for j, v := range src {
					dst[j] = v - float32(ps)*rawPrior[j]
				}
			}
		}
		if err := tryGrid(c, ps, grid, dev, ll, &trials, &best); err != nil {
			return nil, err
		}
	}
	dc := c.Decoder
	dc.WordPenalty, dc.AcousticScale, dc.PriorScale = trials[best].WordPenalty, trials[best].AcousticScale, trials[best].PriorScale
	if m.Decoder, err = json.Marshal(dc); err != nil {
		return nil, err
	}
	return trials, nil
}

func tryGrid(c *engine.Connected, ps float64, grid TuneGrid, dev []DevUtterance, ll []blas32.General, trials *[]TuneTrial, best *int) error {
	for _, wp := range grid.WordPenalties {
		for _, as := range grid.AcousticScales {
			dc := c.Decoder
			dc.WordPenalty, dc.AcousticScale = wp, as
			decodeWith, err := c.DecoderWith(dc)
			if err != nil {
				return err
			}
			var counts decode.ErrorCounts
			groups := map[string]*decode.ErrorCounts{}
			for i, d := range dev {
				r, err := decodeWith(ll[i])
				if err != nil {
					return err
				}
				ref, hyp := grid.Fold.Fold(d.Words), grid.Fold.Fold(decode.Labels(r.Words))
				counts.Add(ref, hyp)
				if groups[d.Group] == nil {
					groups[d.Group] = &decode.ErrorCounts{}
				}
				groups[d.Group].Add(ref, hyp)
			}
			t := TuneTrial{WordPenalty: wp, AcousticScale: as, PriorScale: ps, WER: counts.ErrorRate(), SER: counts.SER()}
			if len(groups) > 1 {
				t.GroupWER = make(map[string]float64, len(groups))
				for g, c := range groups {
					t.GroupWER[g] = c.ErrorRate()
				}
			}
			*trials = append(*trials, t)
			if *best < 0 || (*trials)[len(*trials)-1].WER < (*trials)[*best].WER {
				*best = len(*trials) - 1
			}
		}
	}
	return nil
}
