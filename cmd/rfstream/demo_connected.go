package main

import (
	"fmt"
	"io"
	"path/filepath"
	"strings"
	"time"

	"github.com/rfstream/rfstream/datasets"
	"github.com/rfstream/rfstream/decode"
	"github.com/rfstream/rfstream/internal/defaults"
	"github.com/rfstream/rfstream/streaming"
)

func init() {
	registerDemoPart(demoPart{order: 40, name: "live connected digits: HMM states from random maxout features, Viterbi in the NATS decoder stage", run: demoConnected,
		takes: "trains nothing (the shipped connected model) and streams 60 strings: about 20 s"})
}

// demoConnectedStrings is how many generated test strings the demo streams.
const demoConnectedStrings = 60

func demoConnected(stdout, stderr io.Writer) error {
	rec, err := connectedModel(stderr)
	if err != nil {
		return err
	}
	recs, err := datasets.FSDD(defaults.FSDDDir())
	if err != nil {
		return err
	}
	_, test := datasets.OfficialSplit(recs)
	manifest, err := datasets.BuildConnectedSet(filepath.Join(defaults.DataDir(), "connected"), datasets.ConnectedSet{Name: "demo-clean"}, test,
		datasets.BuildOptions{Strings: datasets.StringOptions{Count: demoConnectedStrings, Seed: 7}})
	if err != nil {
		return err
	}
	us, err := datasets.ReadTranscripts(manifest)
	if err != nil {
		return err
	}
	srv, client, stop, err := startDemoPipeline(streaming.Pipeline{Name: "democonn", Connected: rec}, "demo client",
		streaming.StageFrontend, streaming.StageFeatures, streaming.StageDecoder)
	if err != nil {
		return err
	}
	defer stop()
	fmt.Fprintf(stdout, "embedded NATS server on %s: frontend → frames → features (log-likelihoods of %d HMM states) → Viterbi decoder\n",
		srv.ClientURL(), rec.Classes())

	fmt.Fprintln(stdout, "\nreal-time streams of strings joined from FSDD test recordings (100 ms chunks):")
	for i, u := range us[:2] {
		if err := streamLive(stdout, client, "democonn", fmt.Sprintf("live-%d", i), u.Path, u.Transcript()); err != nil {
			return err
		}
	}

	// Every string as its own stream, 8 at a time, as fast as the
	// pipeline takes them.
	start := time.Now()
	paths := make([]string, len(us))
	for i, u := range us {
		paths[i] = u.Path
	}
	lasts, errs := streamFiles(client, "democonn", "str", paths, 8)
	var counts decode.ErrorCounts
	failed := 0
	for i, u := range us {
		if errs[i] != nil || lasts[i].Error != "" {
			failed++
			why := lasts[i].Error
			if errs[i] != nil {
				why = errs[i].Error()
			}
			fmt.Fprintf(stderr, "stream str-%d (%s) failed: %s\n", i, filepath.Base(u.Path), why)
			continue
		}
		counts.Add(u.Words, strings.Fields(lasts[i].Text))
	}
	fmt.Fprintf(stdout, "\n%d connected-digit strings (2-7 digits, test speakers) streamed through NATS in %.1fs: WER %.2f%%, %d of %d strings exactly right, %d stream errors\n",
		len(us), time.Since(start).Seconds(), 100*counts.ErrorRate(), counts.Strings-counts.StringError, counts.Strings, failed)
	s := srv.Stages.Stats()
	fmt.Fprintf(stdout, "pipeline: %d messages, %d utterance segments scored, %d error results, %d lost\n", s.Messages, s.Vectors, s.Errors, s.Lost)
	return nil
}
