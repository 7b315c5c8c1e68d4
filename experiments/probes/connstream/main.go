// Command connstream compares a connected-word model's streaming path with
// decoding each file whole: every string of a connected set (a folder with
// manifest.tsv: file, transcript, speaker) is pushed through
// engine.ConnectedStream in 100 ms chunks with the pipeline's default
// endpointing, and its final text is set beside rfstream's whole-file
// decoding and the transcript. The NATS pipeline runs the same steps
// (streaming tests check it gives the same results).
//
// usage: go run ./experiments/probes/connstream [--model M --set DIR]
package main

import (
	"bufio"
	"flag"
	"fmt"
	"log"
	"os"
	"path/filepath"
	"strings"

	"github.com/rfstream/rfstream/engine"
	"github.com/rfstream/rfstream/frontend"
)

func main() {
	modelPath := flag.String("model", "data/models/connected.rfm", "a connected-word model")
	set := flag.String("set", "data/connected/demo-clean", "a connected set: WAV files and manifest.tsv (make demo builds this one)")
	flag.Parse()
	m, err := engine.LoadModel(*modelPath)
	if err != nil {
		log.Fatal(err)
	}
	c, err := engine.NewConnected(m)
	if err != nil {
		log.Fatal(err)
	}
	f, err := os.Open(filepath.Join(*set, "manifest.tsv"))
	if err != nil {
		log.Fatal(err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	var streamOK, wholeOK, same int
	n := 0
	for sc.Scan() {
		p := strings.Split(sc.Text(), "\t")
		if len(p) < 2 {
			log.Fatalf("manifest line %q: want file, transcript, speaker", sc.Text())
		}
		a, err := frontend.ReadAudio(filepath.Join(*set, p[0]), c.Input.Audio.SampleRate)
		if err != nil {
			log.Fatal(err)
		}
		whole, err := c.Recognize(a)
		if err != nil {
			log.Fatal(err)
		}
		st, err := engine.NewConnectedStream(c, engine.DefaultConnectedStreamConfig(), a.Rate)
		if err != nil {
			log.Fatal(err)
		}
		var last engine.Result
		chunk := a.Rate / 10
		for i := 0; i < len(a.Samples); i += chunk {
			st.Push(a.Samples[i:min(i+chunk, len(a.Samples))])
		}
		for _, r := range st.Flush() {
			last = r
		}
		n++
		if last.Text == p[1] {
			streamOK++
		}
		if whole.Text == p[1] {
			wholeOK++
		}
		if last.Text == whole.Text {
			same++
		} else {
			fmt.Printf("%s truth %q whole %q stream %q\n", p[0], p[1], whole.Text, last.Text)
		}
	}
	if err := sc.Err(); err != nil {
		log.Fatal(err)
	}
	fmt.Printf("%d strings: %d right streamed, %d right decoded whole, %d the same both ways\n", n, streamOK, wholeOK, same)
}
