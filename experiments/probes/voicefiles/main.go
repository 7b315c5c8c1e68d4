// Command voicefiles asks what a voice gains when each of its recordings
// is its own stream but the streams name the voice (streaming.HdrVoice:
// they share one voice session), against streams that are each a voice
// of their own. It plays one FSDD speaker's recordings in the order `make
// demo` part 5 uses (datasets.SpeakerSession), one after another, each
// through a fresh in-process WordSpotter (what the NATS pipeline computes,
// tests/TestNamedVoiceSpansStreams), and counts a recording right when the
// end-of-stream text is its digit:
//
//   - alone: every recording its own session;
//   - named voice: the spotters of a voice share one session,
//     self-training at its checkpoints (the default for an adaptable
//     model);
//   - named voice without self-training: the shared session only moves
//     the voice's mean-spectrum estimate.
//
// --official-test plays the official test takes (0–4) of every voice
// instead, 300 recordings in a seeded shuffled order; the named sessions
// are then one per voice, and each row is followed by its count per voice.
//
// After the runs it prints the size of each self-trained session's voice
// file (serve --voices): how long the streaming stage holds its lock to
// copy it, and how long its writer then takes to encode and save it, and
// a reader to read it.
//
// usage: go run ./experiments/probes/voicefiles [--model M --fsdd DIR --speaker S | --official-test]
package main

import (
	"bytes"
	"flag"
	"fmt"
	"log"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/rfstream/rfstream/datasets"
	"github.com/rfstream/rfstream/engine"
	"github.com/rfstream/rfstream/experiments/probes/voicebench"
	"github.com/rfstream/rfstream/frontend"
)

func main() {
	vf := voicebench.Register()
	official := flag.Bool("official-test", false, "stream the official test takes of every voice instead")
	flag.Parse()
	words := vf.Words()
	var recs []datasets.Recording
	what := *vf.Speaker
	if *official {
		all, err := datasets.FSDD(*vf.FSDD)
		if err != nil {
			log.Fatal(err)
		}
		_, test := datasets.OfficialSplit(all)
		for _, j := range datasets.SessionOrder(len(test), 1) {
			recs = append(recs, test[j])
		}
		what = "the official test takes"
	} else {
		plan, err := datasets.SpeakerSession(*vf.FSDD, *vf.Speaker)
		if err != nil {
			log.Fatal(err)
		}
		recs = plan.Parts
	}
	audio := make([]*frontend.Audio, len(recs))
	for i, r := range recs {
		f, err := os.Open(r.Path)
		if err != nil {
			log.Fatal(err)
		}
		audio[i], err = frontend.ReadWAV(f)
		f.Close()
		if err != nil {
			log.Fatalf("%s: %v", r.Path, err)
		}
	}
	// run plays every recording as its own stream; with sessions each
	// joins its voice's, without each has its own.
	run := func(sessions map[string]*engine.VoiceSession) (right, errs int, byVoice map[string][2]int) {
		byVoice = map[string][2]int{} // right, of
		for i, a := range audio {
			sp, err := engine.NewWordSpotter(words, engine.DefaultSpotterConfig(), a.Rate)
			if err != nil {
				log.Fatal(err)
			}
			if session := sessions[recs[i].Speaker]; session != nil {
				sp.SetSession(session)
			}
			res := append(sp.Push(a.Samples), sp.Flush()...)
			for _, r := range res {
				if r.Error != "" {
					errs++
				}
			}
			v := byVoice[recs[i].Speaker]
			if res[len(res)-1].Text == recs[i].Label {
				right++
				v[0]++
			}
			v[1]++
			byVoice[recs[i].Speaker] = v
		}
		return right, errs, byVoice
	}
	if *official {
		fmt.Printf("%s, %d recordings, each its own stream, in a shuffled order (model %s)\n", what, len(audio), *vf.Model)
	} else {
		fmt.Printf("%s, %d recordings, each its own stream, in the demo's session order (model %s)\n", what, len(audio), *vf.Model)
	}
	fmt.Printf("%-40s %9s %7s %8s\n", "sessions", "accuracy", "errors", "seconds")
	var trained map[string]*engine.VoiceSession
	for _, c := range []struct {
		name      string
		named     bool
		selfTrain bool
	}{
		{"alone (each stream a voice of its own)", false, false},
		{"named voice, self-training", true, true},
		{"named voice, no self-training", true, false},
	} {
		start := time.Now()
		sessions := map[string]*engine.VoiceSession{}
		for _, r := range recs {
			if c.named && sessions[r.Speaker] == nil {
				sessions[r.Speaker] = words.NewVoiceSession()
				sessions[r.Speaker].SelfTrain = c.selfTrain && words.CanAdapt()
			}
		}
		right, errs, byVoice := run(sessions)
		fmt.Printf("%-40s %8.2f%% %7d %8.1f\n", c.name, 100*float64(right)/float64(len(audio)), errs, time.Since(start).Seconds())
		if *official {
			var parts []string
			for _, v := range slices.Sorted(maps.Keys(byVoice)) {
				parts = append(parts, fmt.Sprintf("%s %d/%d", v, byVoice[v][0], byVoice[v][1]))
			}
			fmt.Printf("  right per voice: %s\n", strings.Join(parts, ", "))
		}
		if c.named && c.selfTrain {
			trained = sessions
		}
	}
	voiceFileCost(words, trained)
}

// voiceFileCost prints what keeping the self-trained sessions in voice
// files (serve --voices) costs: bytes; the copy the streaming stage makes
// under its lock (VoiceSession.Clone); the time to encode and to save to
// a file, which the stage's voice writer spends off the lock; and the time
// to decode (which also checks the model's fingerprint and every value).
func voiceFileCost(words *engine.WordClassifier, sessions map[string]*engine.VoiceSession) {
	if _, err := words.Fingerprint(); err != nil { // once per model: not a file's cost
		log.Fatal(err)
	}
	dir, err := os.MkdirTemp("", "voicefiles-")
	if err != nil {
		log.Fatal(err)
	}
	defer os.RemoveAll(dir)
	for name, s := range sessions {
		start := time.Now()
		c := s.Clone()
		copied := time.Since(start)
		var b bytes.Buffer
		start = time.Now()
		if _, err := c.WriteTo(&b); err != nil {
			log.Fatal(err)
		}
		encoded := time.Since(start)
		start = time.Now()
		if err := c.Save(filepath.Join(dir, name+".rfv")); err != nil {
			log.Fatal(err)
		}
		saved := time.Since(start)
		start = time.Now()
		r, err := words.ReadVoiceSession(b.Bytes())
		if err != nil {
			log.Fatal(err)
		}
		fmt.Printf("voice file of %s (%d recordings, read-out self-trained on %d): %.2f MB; copied in %.1f µs, encoded in %.1f ms, saved in %.1f ms, read in %.1f ms\n",
			name, r.Recordings(), r.AdaptedOn(), float64(b.Len())/1e6, copied.Seconds()*1e6, encoded.Seconds()*1e3, saved.Seconds()*1e3, time.Since(start).Seconds()*1e3)
	}
}
