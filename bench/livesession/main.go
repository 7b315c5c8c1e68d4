// Command livesession streams one FSDD voice's recordings, rendered as one
// session the way `make demo` part 5 renders them, through an embedded
// NATS pipeline in real time, and reports how late each word's final
// result comes after the word ends in the stream: with the voice session
// self-training at its checkpoints (the default for an adaptable model)
// or, with --no-self-train, without. A word whose session is still
// self-training when it needs the new read-out waits for it; this is
// where that would show.
//
// usage: go run ./bench/livesession [--model M --fsdd DIR --speaker S --no-self-train]
package main

import (
	"context"
	"flag"
	"fmt"
	"log"
	"slices"
	"strings"
	"time"

	"github.com/rfstream/rfstream"
	"github.com/rfstream/rfstream/datasets"
	"github.com/rfstream/rfstream/decode"
	"github.com/rfstream/rfstream/streaming"
)

func main() {
	modelPath := flag.String("model", "data/models/digits-adaptable-without-george.rfm", "an adaptable word model trained without the speaker")
	fsdd := flag.String("fsdd", "../shared/fsdd/recordings", "FSDD recordings")
	speaker := flag.String("speaker", "george", "the voice to stream")
	noSelfTrain := flag.Bool("no-self-train", false, "the stream's session does not self-train")
	flag.Parse()
	m, err := rfstream.LoadModel(*modelPath)
	if err != nil {
		log.Fatal(err)
	}
	words, err := rfstream.NewWordClassifier(m)
	if err != nil {
		log.Fatal(err)
	}
	plan, err := datasets.SpeakerSession(*fsdd, *speaker) // the demo's order
	if err != nil {
		log.Fatal(err)
	}
	audio, _, err := datasets.RenderString(plan, words.Config.Audio.SampleRate, datasets.Noise{}, 1)
	if err != nil {
		log.Fatal(err)
	}
	srv, err := streaming.StartEmbedded(streaming.EmbeddedOptions{})
	if err != nil {
		log.Fatal(err)
	}
	defer srv.Close()
	worker, err := srv.Connect("livesession stages")
	if err != nil {
		log.Fatal(err)
	}
	defer worker.Close()
	stages, err := streaming.Start(worker, streaming.Pipeline{Name: "live", Words: words, NoSelfTrain: *noSelfTrain},
		streaming.StageFrontend, streaming.StageFeatures, streaming.StageDecoder)
	if err != nil {
		log.Fatal(err)
	}
	defer stages.Close()
	client, err := srv.Connect("livesession client")
	if err != nil {
		log.Fatal(err)
	}
	defer client.Close()

	var late []float64 // seconds from a word's end in the stream to its final result
	seen := 0
	start := time.Now()
	last, err := streaming.StreamAudio(context.Background(), client, "live", "live-"+*speaker, audio,
		streaming.StreamOptions{RealTime: true}, func(r rfstream.Result) {
			if !r.Final || r.EOS || len(r.Words) <= seen {
				return
			}
			at := time.Since(start).Seconds()
			for _, w := range r.Words[seen:] {
				late = append(late, at-w.End)
			}
			seen = len(r.Words)
		})
	if err != nil {
		log.Fatal(err)
	}
	e := decode.EditDistance(plan.Words(), strings.Fields(last.Text))
	mode := "self-training"
	if *noSelfTrain {
		mode = "no self-training"
	}
	slices.Sort(late)
	q := func(p float64) float64 { return 1000 * late[min(len(late)-1, int(p*float64(len(late))))] }
	fmt.Printf("%s, %s: %.0f s of audio streamed in real time in %.0f s; %.2f%% of %d words right (%d substituted, %d missed, %d extra)\n",
		*speaker, mode, audio.Duration(), time.Since(start).Seconds(), 100*float64(e.RefLen-e.Errors())/float64(e.RefLen), e.RefLen, e.Sub, e.Del, e.Ins)
	fmt.Printf("  word end → final result, ms: p50 %.0f, p90 %.0f, p99 %.0f, max %.0f (%d words)\n", q(0.5), q(0.9), q(0.99), 1000*late[len(late)-1], len(late))
}
