// Command livesession streams one FSDD voice's recordings, rendered as one
// session the way `make demo` part 5 renders them, through an embedded
// NATS pipeline in real time, and reports how late each word's final
// result comes after the word ends in the stream: with the voice session
// self-training at its checkpoints (the default for an adaptable model)
// or, with --no-self-train, without. A word whose session is still
// self-training when it needs the new read-out waits for it; this is
// where that would show. --copies N streams the session N times at once,
// each its own stream and session.
//
// usage: go run ./experiments/probes/livesession [--model M --fsdd DIR --speaker S --no-self-train --copies N]
package main

import (
	"context"
	"flag"
	"fmt"
	"log"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/rfstream/rfstream/datasets"
	"github.com/rfstream/rfstream/decode"
	"github.com/rfstream/rfstream/engine"
	"github.com/rfstream/rfstream/experiments/probes/voicebench"
	"github.com/rfstream/rfstream/streaming"
)

func main() {
	vf := voicebench.Register()
	noSelfTrain := flag.Bool("no-self-train", false, "the stream's session does not self-train")
	copies := flag.Int("copies", 1, "stream the session this many times at once, each as its own stream")
	flag.Parse()
	words := vf.Words()
	plan, err := datasets.SpeakerSession(*vf.FSDD, *vf.Speaker) // the demo's order
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

	// Each copy is its own stream with its own session; they reach their
	// checkpoints together, the worst case for the self-training queue.
	type run struct {
		late []float64 // seconds from a word's end in the stream to its final result
		last engine.Result
		err  error
	}
	runs := make([]run, *copies)
	var wg sync.WaitGroup
	start := time.Now()
	for i := range runs {
		wg.Add(1)
		go func(r *run) {
			defer wg.Done()
			seen := 0
			r.last, r.err = streaming.StreamAudio(context.Background(), client, "live", fmt.Sprintf("live-%s-%d", *vf.Speaker, i), audio,
				streaming.StreamOptions{RealTime: true}, func(res engine.Result) {
					if !res.Final || res.EOS || len(res.Words) <= seen {
						return
					}
					at := time.Since(start).Seconds()
					for _, w := range res.Words[seen:] {
						r.late = append(r.late, at-w.End)
					}
					seen = len(res.Words)
				})
		}(&runs[i])
	}
	wg.Wait()
	mode := "self-training"
	if *noSelfTrain {
		mode = "no self-training"
	}
	fmt.Printf("%s, %s: %.0f s of audio, %d concurrent real-time stream(s), done in %.0f s\n", *vf.Speaker, mode, audio.Duration(), *copies, time.Since(start).Seconds())
	var late []float64
	for i, r := range runs {
		if r.err != nil {
			log.Fatal(r.err)
		}
		e := decode.EditDistance(plan.Words(), strings.Fields(r.last.Text))
		fmt.Printf("  stream %d: %.2f%% of %d words right (%d substituted, %d missed, %d extra)\n",
			i, 100*float64(e.RefLen-e.Errors())/float64(e.RefLen), e.RefLen, e.Sub, e.Del, e.Ins)
		late = append(late, r.late...)
	}
	slices.Sort(late)
	q := func(p float64) float64 { return 1000 * late[min(len(late)-1, int(p*float64(len(late))))] }
	fmt.Printf("  word end → final result, ms: p50 %.0f, p90 %.0f, p99 %.0f, max %.0f (%d words)\n", q(0.5), q(0.9), q(0.99), 1000*late[len(late)-1], len(late))
}
