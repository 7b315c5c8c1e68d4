package main

import (
	"context"
	"fmt"
	"io"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/nats-io/nats.go"

	"github.com/rfstream/rfstream/classifier"
	"github.com/rfstream/rfstream/datasets"
	"github.com/rfstream/rfstream/engine"
	"github.com/rfstream/rfstream/frontend"
	"github.com/rfstream/rfstream/internal/defaults"
	"github.com/rfstream/rfstream/internal/imagebatch"
	"github.com/rfstream/rfstream/streaming"
	"github.com/rfstream/rfstream/train"
)

func init() {
	registerDemoPart(demoPart{order: 20, name: "spoken digits (FSDD): whole-word random maxout features + RLS", run: demoDigits,
		takes: "synthesises 2200 recordings of digits and trains the digit model: about 1 min on two cores"})
	registerDemoPart(demoPart{order: 30, name: "live: the embedded NATS pipeline on real test recordings and images", run: demoLive,
		takes: "trains nothing and streams 300 recordings and 10000 images: a few seconds"})
}

func demoDigits(stdout, stderr io.Writer) error {
	words, err := digitModel("", stderr)
	if err != nil {
		return err
	}
	recs, err := datasets.FSDD(defaults.FSDDDir())
	if err != nil {
		return err
	}
	_, test := datasets.OfficialSplit(recs)
	x, err := train.WordVectors(test, words.Config, train.Condition{}, stderr)
	if err != nil {
		return err
	}
	y, err := train.Indices(test, train.LabelIndex(words.Model.Labels))
	if err != nil {
		return err
	}
	pred := classifier.Argmax(words.ScoreRows(x))
	fmt.Fprintf(stdout, "offline: %d FSDD test recordings (takes 0-4 of 6 speakers), accuracy %.2f%%\n",
		len(test), 100*(1-classifier.ErrorRate(pred, y)))
	return nil
}

func demoLive(stdout, stderr io.Writer) error {
	words, err := digitModel("", stderr)
	if err != nil {
		return err
	}
	tagger, err := imageModel("", stderr)
	if err != nil {
		return err
	}
	srv, client, stop, err := startDemoPipeline(streaming.Pipeline{Name: "demo", Words: words, Images: tagger}, "demo client")
	if err != nil {
		return err
	}
	defer stop()
	st := srv.Stages
	fmt.Fprintf(stdout, "embedded NATS server on %s (loopback only), stages: %v\n", srv.ClientURL(), streaming.AllStages)

	recs, err := datasets.FSDD(defaults.FSDDDir())
	if err != nil {
		return err
	}
	_, test := datasets.OfficialSplit(recs)
	// Four recordings in real time, one after another, with every result
	// as it arrives.
	fmt.Fprintln(stdout, "\nreal-time streams (100 ms chunks):")
	for _, r := range []datasets.Recording{test[3], test[77], test[151], test[233]} {
		if err := streamLive(stdout, client, "demo", "live-"+strings.TrimSuffix(filepath.Base(r.Path), ".wav"), r.Path, r.Label); err != nil {
			return err
		}
	}
	// Every test recording as its own stream, 16 at a time, as fast as
	// the pipeline takes them.
	start := time.Now()
	paths := make([]string, len(test))
	for i, r := range test {
		paths[i] = r.Path
	}
	lasts, streamErrs := streamFiles(client, "demo", "fsdd", paths, 16)
	correct, errs := 0, 0
	for i, r := range test {
		switch {
		case streamErrs[i] != nil:
			errs++
		case lasts[i].Text == r.Label:
			correct++
		}
	}
	fmt.Fprintf(stdout, "\n%d FSDD test recordings streamed through NATS in %.1fs: %d recognised exactly (%.2f%%), %d stream errors\n",
		len(test), time.Since(start).Seconds(), correct, 100*float64(correct)/float64(len(test)), errs)
	fmt.Fprintln(stdout, "(live, the segmenter finds each word in the stream; the offline figure above takes each whole file as one word)")

	batch, err := imagebatch.Load([]string{filepath.Join(defaults.MNISTDir(), "t10k-images-idx3-ubyte")}, 0)
	if err != nil {
		return err
	}
	start = time.Now()
	replies, err := streaming.TagImages(context.Background(), client, "demo", "mnist-test", batch.Payloads, batch.Raw, time.Minute)
	if err != nil {
		return err
	}
	fmt.Fprintln(stdout)
	for i := 0; i < 5; i++ {
		fmt.Fprintf(stdout, "  %s (true %d):", batch.Names[i], batch.Labels[i])
		for _, t := range replies[i].Tags {
			fmt.Fprintf(stdout, " %s %.0f%%", t.Label, 100*t.Score)
		}
		fmt.Fprintln(stdout)
	}
	if err := imagebatch.Report(stdout, batch, replies, time.Since(start).Seconds(), false, true); err != nil {
		return err
	}
	s := st.Stats()
	fmt.Fprintf(stdout, "pipeline: %d messages, %d error results, %d lost\n", s.Messages, s.Errors, s.Lost)
	return nil
}

// streamLive streams one recording in real time and prints every result
// as it arrives, with the time since the stream began.
func streamLive(stdout io.Writer, client *nats.Conn, pipeline, stream, path, said string) error {
	a, err := readWAVFile(path)
	if err != nil {
		return err
	}
	fmt.Fprintf(stdout, "  %s (said %q, %.2fs):\n", filepath.Base(path), said, a.Duration())
	start := time.Now()
	_, err = streaming.StreamAudio(context.Background(), client, pipeline, stream, a,
		streaming.StreamOptions{RealTime: true}, func(res engine.Result) {
			fmt.Fprintf(stdout, "    +%5.0f ms  ", float64(time.Since(start).Milliseconds()))
			printResult(stdout, res, false)
		})
	return err
}

// streamFiles streams each recording as its own stream prefix-i, par at a
// time, as fast as the pipeline takes them, and returns every stream's last
// result, or its error.
func streamFiles(client *nats.Conn, pipeline, prefix string, paths []string, par int) ([]engine.Result, []error) {
	lasts := make([]engine.Result, len(paths))
	errs := make([]error, len(paths))
	sem := make(chan struct{}, par)
	var wg sync.WaitGroup
	for i, path := range paths {
		wg.Add(1)
		sem <- struct{}{}
		go func() {
			defer wg.Done()
			defer func() { <-sem }()
			a, err := readWAVFile(path)
			if err == nil {
				lasts[i], err = streaming.StreamAudio(context.Background(), client, pipeline, fmt.Sprintf("%s-%d", prefix, i), a, streaming.StreamOptions{}, nil)
			}
			errs[i] = err
		}()
	}
	wg.Wait()
	return lasts, errs
}

func readWAVFile(path string) (*frontend.Audio, error) { return readAudio(path, 0, nil) }
