package benchstream

import (
	"github.com/rfstream/rfstream/engine"
	"github.com/rfstream/rfstream/frontend"
	"github.com/rfstream/rfstream/internal/toymodels"
)

// LongWorkloadNames say what each long workload of LongWorkloads is.
var LongWorkloadNames = map[string]string{"30s": "30 s fluent strings", "2m": "2 min fluent strings", "mix": "a mix (single digits, 30 s and 2 min strings)"}

// LongWorkloads joins recordings into the long workloads: "30s" and "2m",
// four fluent strings each (the recordings one after another with nothing
// between them, digits spoken on without pauses), and "mix", single
// recordings between those strings.
func LongWorkloads(clips []*frontend.Audio) map[string][]*frontend.Audio {
	fluent := func(k int, secs float64) *frontend.Audio {
		a := &frontend.Audio{Rate: clips[0].Rate}
		for i := k; float64(len(a.Samples)) < secs*float64(a.Rate); i++ {
			a.Samples = append(a.Samples, clips[(i*7)%len(clips)].Samples...)
		}
		return a
	}
	sets := map[string][]*frontend.Audio{}
	for k := range 4 {
		sets["30s"] = append(sets["30s"], fluent(60*k, 30))
		sets["2m"] = append(sets["2m"], fluent(60*k+30, 120))
	}
	sets["mix"] = []*frontend.Audio{clips[0], sets["30s"][0], clips[1], sets["2m"][0], clips[2], sets["30s"][1]}
	return sets
}

// Expect sets each utterance's Want to what words' spotter hears in it in
// process, the answer the pipeline must give.
func Expect(words *engine.WordClassifier, utts []Utterance) error {
	for i := range utts {
		sp, err := engine.NewWordSpotter(words, engine.DefaultSpotterConfig(), utts[i].Audio.Rate)
		if err != nil {
			return err
		}
		sp.Push(utts[i].Audio.Samples)
		res := sp.Flush()
		utts[i].Want = res[len(res)-1].Text
	}
	return nil
}

// ToyImages are n raw 8×8 payloads of the toy image model's bars, for a
// benchmark without MNIST.
func ToyImages(n int) [][]byte {
	payloads := make([][]byte, n)
	for i := range payloads {
		payloads[i] = make([]byte, 64)
		for j, v := range toymodels.Bars(i%2, (i/2)%8) {
			payloads[i][j] = byte(255 * v)
		}
	}
	return payloads
}
