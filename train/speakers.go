package train

import (
	"fmt"
	"maps"
	"slices"

	"gonum.org/v1/gonum/blas/blas32"

	"github.com/rfstream/rfstream/datasets"
	"github.com/rfstream/rfstream/engine"
	"github.com/rfstream/rfstream/frontend"
	"github.com/rfstream/rfstream/internal/linalg"
)

// LambdaRows chooses the training rows λ is judged on: a whole speaker
// with by "speaker", otherwise a tenth of the recordings, each with every
// copy of it (repeats, speed copies, warped copies), so that no copy of a
// held-out recording stays in the fit. groups ties each of the first
// recordings rows to its source recording (nil: every row its own);
// fitRows counts them with the warped copies that follow in blocks. nil
// rows leave the split to classifier.FitRLS, which is only right when there
// are no copies. With "speaker", bySpeaker is true: new voices may want
// another λ grid than new takes.
func LambdaRows(by string, train []datasets.Recording, groups []int, recordings, fitRows int, seed uint64) (rows []int, bySpeaker bool, err error) {
	if rows, err = lambdaHoldOut(by, train, fitRows, seed); err != nil || rows != nil {
		return rows, rows != nil, err
	}
	if groups == nil && fitRows == recordings {
		return nil, false, nil
	}
	if groups == nil {
		groups = make([]int, recordings)
		for i := range groups {
			groups[i] = i
		}
	}
	rows, err = GroupHoldOut(groups, fitRows, 0.1, seed)
	return rows, false, err
}

// lambdaHoldOut lists the rows held out to choose λ: nil for FitRLS's
// random tenth, or with "speaker" every row (augmented copies included)
// of one training speaker, picked by the seed, so λ is the one that
// generalises to a voice the read-out has not heard. rows is a multiple of
// len(train): copies follow the originals in blocks.
func lambdaHoldOut(by string, train []datasets.Recording, rows int, seed uint64) ([]int, error) {
	switch by {
	case "random":
		return nil, nil
	case "speaker":
	default:
		return nil, fmt.Errorf("unknown --lambda-by %q (random, speaker)", by)
	}
	speakers := datasets.Speakers(train)
	if len(speakers) < 2 {
		return nil, fmt.Errorf("--lambda-by speaker needs at least two training speakers, have %d", len(speakers))
	}
	held := speakers[seed%uint64(len(speakers))]
	var out []int
	for i := 0; i < rows; i++ {
		if train[i%len(train)].Speaker == held {
			out = append(out, i)
		}
	}
	return out, nil
}

// SpeakerNorm is speaker-level CMVN of word vectors (frontend.VoiceStats):
// each speaker's mean log-mel spectrum is removed from every frame of their
// vectors (and with scale each band divided by its standard deviation),
// then each row is made a unit word vector again. Statistics come from the
// training recordings of a speaker when there are any (enrolment: no test
// recording is looked at); a voice absent from training is normalised with
// its own test recordings' statistics, as engine.NormaliseVoice does for
// the voice recognize --adapt hears, which is unsupervised adaptation (no
// labels are used) and needs several recordings of that voice, so it suits
// evaluation by speaker, not a single recording of an unknown voice.
type SpeakerNorm struct {
	mels  int
	scale bool
	stats map[string]frontend.VoiceStats
}

// NewSpeakerNorm estimates every training speaker's statistics from the
// rows of train (recordings recs); it changes no row.
func NewSpeakerNorm(train blas32.General, recs []datasets.Recording, mels int, scale bool) *SpeakerNorm {
	n := &SpeakerNorm{mels: mels, scale: scale}
	n.stats = n.estimate(train, recs)
	return n
}

func (n *SpeakerNorm) estimate(x blas32.General, recs []datasets.Recording) map[string]frontend.VoiceStats {
	rows := map[string][][]float32{}
	for i, r := range recs {
		rows[r.Speaker] = append(rows[r.Speaker], linalg.Row32(x, i))
	}
	out := map[string]frontend.VoiceStats{}
	for spk, vs := range rows {
		out[spk] = frontend.EstimateVoice(vs, n.mels, n.scale)
	}
	return out
}

// AverageMean is the mean over speakers of their mean spectra, each
// speaker counting once: what a recording of a voice not seen is
// normalised with when it is the only one heard (engine.Adaptation's
// VoiceMean).
func (n *SpeakerNorm) AverageMean() []float32 {
	sum := make([]float64, n.mels)
	for _, spk := range slices.Sorted(maps.Keys(n.stats)) {
		for k, v := range n.stats[spk].Mean {
			sum[k] += float64(v)
		}
	}
	out := make([]float32, n.mels)
	for k := range out {
		out[k] = float32(sum[k] / float64(len(n.stats)))
	}
	return out
}

// Apply normalises the rows of x (recordings recs) in place: a training
// speaker's with its training statistics, any other voice's with its own
// rows' statistics.
func (n *SpeakerNorm) Apply(x blas32.General, recs []datasets.Recording) {
	unseen := map[string][]int{}
	for i, r := range recs {
		st, ok := n.stats[r.Speaker]
		if !ok {
			unseen[r.Speaker] = append(unseen[r.Speaker], i)
			continue
		}
		st.Normalise(linalg.Row32(x, i))
	}
	for _, rows := range unseen {
		n.normaliseVoice(x, rows)
	}
}

// normaliseVoice normalises the given rows of x, all one voice absent from
// training, with their own statistics. Without scaling that is what the
// product does to a voice it adapts to (engine.NormaliseVoice), so it is
// done by that code; the lab's meanvar scaling has no product counterpart.
func (n *SpeakerNorm) normaliseVoice(x blas32.General, rows []int) {
	if !n.scale {
		v := linalg.AppendRows32(blas32.General{Cols: x.Cols}, x, rows)
		engine.NormaliseVoice(v, n.mels)
		for a, i := range rows {
			copy(linalg.Row32(x, i), linalg.Row32(v, a))
		}
		return
	}
	vs := make([][]float32, len(rows))
	for a, i := range rows {
		vs[a] = linalg.Row32(x, i)
	}
	st := frontend.EstimateVoice(vs, n.mels, true)
	for _, r := range vs {
		st.Normalise(r)
	}
}
