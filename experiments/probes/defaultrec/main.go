// Command defaultrec measures the candidates for the product's default
// speech recogniser (issue 38: one default for recognize, stream, serve
// and the page) on sets of recordings with known digit strings, made by
// sets.sh from FSDD's official test takes:
//
//   - words: the word model classifying the whole file as one word
//     (recognize's default before issue 38);
//   - spotter: the word model behind the live segmenter (engine.WordSpotter,
//     stream's and serve's default before issue 38);
//   - connected: the connected digit model decoding the whole file;
//   - connected-stream: the connected model behind its utterance
//     endpointer (engine.ConnectedStream, what serve --model
//     connected.rfm runs).
//
// The streaming recognisers get the audio in 100 ms chunks, as rfstream
// stream sends it; the NATS pipeline runs the same steps (the streaming
// tests hold the two equal). A result is right when its text is the
// string exactly.
//
// usage: go run ./experiments/probes/defaultrec --words W.rfm --connected C.rfm SET.tsv…
package main

import (
	"bufio"
	"flag"
	"fmt"
	"log"
	"os"
	"strings"

	"github.com/rfstream/rfstream/engine"
	"github.com/rfstream/rfstream/frontend"
)

func main() {
	wordsPath := flag.String("words", "data/models/digits-maxout.rfm", "the word model")
	connPath := flag.String("connected", "data/models/connected.rfm", "the connected digit model")
	verbose := flag.Bool("v", false, "print every wrong result")
	flag.Parse()
	wm, err := engine.LoadModel(*wordsPath)
	if err != nil {
		log.Fatal(err)
	}
	wc, err := engine.NewWordClassifier(wm)
	if err != nil {
		log.Fatal(err)
	}
	cm, err := engine.LoadModel(*connPath)
	if err != nil {
		log.Fatal(err)
	}
	cc, err := engine.NewConnected(cm)
	if err != nil {
		log.Fatal(err)
	}
	names := []string{"words", "spotter", "connected", "connected-stream"}
	recognise := []func(a *frontend.Audio) string{
		func(a *frontend.Audio) string {
			r, err := wc.Recognize(a.Samples, a.Rate)
			return textOr(r, err)
		},
		func(a *frontend.Audio) string {
			s, err := engine.NewWordSpotter(wc, engine.DefaultSpotterConfig(), a.Rate)
			must(err)
			return streamed(a, s.Push, s.Flush)
		},
		func(a *frontend.Audio) string {
			r, err := cc.Recognize(a)
			return textOr(r, err)
		},
		func(a *frontend.Audio) string {
			s, err := engine.NewConnectedStream(cc, engine.DefaultConnectedStreamConfig(), a.Rate)
			must(err)
			return streamed(a, s.Push, s.Flush)
		},
	}
	fmt.Printf("%-14s %5s", "set", "n")
	for _, n := range names {
		fmt.Printf("  %16s", n)
	}
	fmt.Println()
	for _, set := range flag.Args() {
		items := readSet(set)
		right := make([]int, len(names))
		for _, it := range items {
			a, err := frontend.ReadAudio(it[0], 8000)
			must(err)
			for k, rec := range recognise {
				got := rec(a)
				if got == it[1] {
					right[k]++
				} else if *verbose {
					fmt.Printf("  %s %s: %q, want %q\n", names[k], it[0], got, it[1])
				}
			}
		}
		fmt.Printf("%-14s %5d", strings.TrimSuffix(set[strings.LastIndex(set, "/")+1:], ".tsv"), len(items))
		for _, r := range right {
			fmt.Printf("  %7d (%5.1f%%)", r, 100*float64(r)/float64(len(items)))
		}
		fmt.Println()
	}
}

// textOr is a result's text, or its error in its place (an error is never
// a right answer).
func textOr(r engine.Result, err error) string {
	if err != nil {
		return "error: " + err.Error()
	}
	return r.Text
}

// streamed pushes a recording in 100 ms chunks and returns the text of the
// end-of-stream result.
func streamed(a *frontend.Audio, push func([]float32) []engine.Result, flush func() []engine.Result) string {
	chunk := a.Rate / 10
	for i := 0; i < len(a.Samples); i += chunk {
		push(a.Samples[i:min(i+chunk, len(a.Samples))])
	}
	rs := flush()
	return rs[len(rs)-1].Text
}

// readSet reads path<TAB>text lines.
func readSet(path string) [][2]string {
	f, err := os.Open(path)
	must(err)
	defer f.Close()
	var out [][2]string
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		p := strings.Split(sc.Text(), "\t")
		if len(p) != 2 {
			log.Fatalf("%s: line %q: want path, text", path, sc.Text())
		}
		out = append(out, [2]string{p[0], p[1]})
	}
	must(sc.Err())
	return out
}

func must(err error) {
	if err != nil {
		log.Fatal(err)
	}
}
