package main

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime/pprof"
	"slices"
	"strings"
	"time"

	"github.com/nats-io/nats.go"

	"github.com/rfstream/rfstream/datasets"
	"github.com/rfstream/rfstream/engine"
	"github.com/rfstream/rfstream/frontend"
	"github.com/rfstream/rfstream/internal/benchstream"
	"github.com/rfstream/rfstream/internal/defaults"
	"github.com/rfstream/rfstream/internal/imagebatch"
	"github.com/rfstream/rfstream/internal/linalg"
	"github.com/rfstream/rfstream/internal/toymodels"
	"github.com/rfstream/rfstream/streaming"
)

func init() {
	register(&command{name: "bench-stream", summary: "how many real-time audio streams the NATS pipeline holds, and image throughput through NATS vs in-process", run: runBenchStream})
}

func runBenchStream(args []string, stdout, stderr io.Writer) error {
	fs := newFlagSet("bench-stream", "[flags]", stderr)
	levelsFlag := fs.String("streams", "25,50,100,200,300,400,500,600,800", "numbers of concurrent real-time streams to try, in order; stops at the first level not held")
	seconds := fs.Float64("seconds", 12, "wall time per level")
	p99Target := fs.Float64("p99-ms", 150, "a level is held when p99 end-of-speech → final latency is at most this, with nothing lost or wrong")
	nImages := fs.Int("images", 10000, "MNIST test images to tag")
	chunk := fs.Int("chunk", 2500, "images per throughput round")
	rounds := fs.Int("rounds", 8, "throughput rounds, each on the next chunk of images (best of)")
	shed := fs.Bool("shed-partials", true, "run the pipeline as serve does by default, shedding stale partial words under a backlog")
	cpuProfile := fs.String("cpuprofile", "", "write a CPU profile of the run to this file")
	blasThreads := fs.Int("blas-threads", 1, "as serve's: "+blasThreadsUsage)
	procs := fs.Int("procs", 0, "as serve's: "+procsUsage)
	shards := fs.Int("shards", 1, "split the frontend and decoder stages into this many shards (serve --shard), each on its own connection")
	long := fs.String("long", "30s,2m,mix", "after the word model's levels, connected-digit streams of long recordings (the default speech model): fluent FSDD test strings of 30 s, of 2 min, and a mix of those with single digits; empty skips them")
	longLevels := fs.String("long-streams", "1,2,4,8,16,32", "numbers of concurrent streams to try for each long workload, in order; stops at the first level not held")
	longP99 := fs.Float64("long-p99-ms", 100, "a long workload's level is held when p99 end-of-speech → final latency is at most this, with nothing lost or wrong")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if *cpuProfile != "" {
		f, err := os.Create(*cpuProfile)
		if err != nil {
			return err
		}
		defer f.Close()
		if err := pprof.StartCPUProfile(f); err != nil {
			return err
		}
		defer pprof.StopCPUProfile()
	}
	levels, err := benchstream.ParseCounts("--streams", *levelsFlag)
	if err != nil {
		return err
	}
	longCounts, err := benchstream.ParseCounts("--long-streams", *longLevels)
	if err != nil {
		return err
	}
	var workloads []string
	for _, w := range strings.Split(*long, ",") {
		if w = strings.TrimSpace(w); w == "" {
			continue
		}
		if !slices.Contains([]string{"30s", "2m", "mix"}, w) {
			return fmt.Errorf("--long: %q is none of 30s, 2m, mix", w)
		}
		workloads = append(workloads, w)
	}
	load0 := benchstream.LoadAverage()

	words, utts, audioSource, err := benchAudioData(stderr)
	if err != nil {
		return err
	}
	tagger, payloads, imageSource, err := benchImageData(*nImages, stderr)
	if err != nil {
		return err
	}

	const pipe = "bench"
	if *shards < 1 {
		return fmt.Errorf("--shards %d: want at least 1", *shards)
	}
	if err := setLiveBLASThreads(*blasThreads); err != nil {
		return err
	}
	procsLine, err := setLiveProcs(*procs)
	if err != nil {
		return err
	}
	pl := streaming.Pipeline{Name: pipe, Words: words, Images: tagger, ShedPartials: *shed, Shards: *shards}
	srv, err := startLocalPipeline(pl)
	if err != nil {
		return err
	}
	defer srv.Close()
	more, conns, err := benchstream.StartMoreShards(pl, streaming.AllStages, func(name string) (*nats.Conn, error) { return srv.Connect(name) })
	defer func() {
		for i, st := range more {
			st.Close()
			conns[i].Close()
		}
	}()
	if err != nil {
		return err
	}
	st := sumStats(append([]*streaming.Stages{srv.Stages}, more...))
	clients := make([]*nats.Conn, 4)
	for i := range clients {
		if clients[i], err = srv.Connect(fmt.Sprintf("bench client %d", i)); err != nil {
			return err
		}
		defer clients[i].Close()
	}

	fmt.Fprintf(stdout, "rfstream bench-stream: embedded NATS server on %s, stages and clients in this process, TCP loopback\n", srv.ClientURL())
	fmt.Fprintf(stdout, "BLAS: %s, threads per call: %d; %s\n", linalg.Backend, linalg.Threads(), procsLine)
	fmt.Fprintf(stdout, "load average before: %s (the machine is shared: other work lowers these numbers)\n\n", load0)
	fmt.Fprintf(stdout, "audio: %s\n", audioSource)
	fmt.Fprintf(stdout, "each stream publishes 100 ms s16le chunks at real time, recording after recording, for %.0f s per level;\n", *seconds)
	fmt.Fprintf(stdout, "latency = the recording's last chunk (end of speech, with Rfs-Eos) published → its final result received;\n")
	if *shed {
		fmt.Fprintf(stdout, "the pipeline runs as `serve` does, shedding stale partial words under a backlog (finals are never shed)\n\n")
	} else {
		fmt.Fprintf(stdout, "partial words are never shed (--shed-partials=false)\n\n")
	}
	best, totalLost := benchstream.Ramp(stdout, levels, *p99Target, func(li, n int) benchstream.Level {
		return benchstream.AudioLevel(clients, pipe, utts, n, li, time.Duration(*seconds*float64(time.Second)), st)
	})

	fmt.Fprintf(stdout, "\nimages: %s\n", imageSource)
	inBatch, inAll, viaNATS, wrong, tagErrs, err := benchstream.Images(clients[0], pipe, tagger, payloads, streaming.TaggerBatch(pl), *chunk, *rounds)
	if err != nil {
		return err
	}
	fmt.Fprintf(stdout, "\n| path | images/s (best of %d rounds of %d images) |\n|---|---:|\n", *rounds, min(*chunk, len(payloads)))
	fmt.Fprintf(stdout, "| in-process, batches of %d (the tagger stage's largest batch) | %.0f |\n", streaming.TaggerBatch(pl), inBatch)
	fmt.Fprintf(stdout, "| in-process, a whole round in one call | %.0f |\n", inAll)
	fmt.Fprintf(stdout, "| NATS: client → embedded server → tagger stage → client | %.0f |\n", viaNATS)
	fmt.Fprintf(stdout, "NATS tags that differ from in-process: %d; error replies: %d\n", wrong, tagErrs)
	s := st()
	fmt.Fprintf(stdout, "stateless stages over the whole run: %d batches, %.1f messages per batch; %d partial words shed\n", s.Batches,
		float64(s.Vectors+int64(*rounds*min(*chunk, len(payloads))))/float64(max(1, s.Batches)), s.Shed)

	longHeld, err := benchLongStreams(stdout, stderr, workloads, longCounts, *longP99, *shed)
	if err != nil {
		return err
	}

	fmt.Fprintf(stdout, "\nsummary (load average after: %s):\n", benchstream.LoadAverage())
	fmt.Fprintf(stdout, "  concurrent real-time audio streams held: %d (target ≥ 50 with p99 ≤ %.0f ms)\n", best, *p99Target)
	for _, w := range workloads {
		fmt.Fprintf(stdout, "  connected-digit streams of %s held: %d (p99 ≤ %.0f ms)\n", benchstream.LongWorkloadNames[w], longHeld[w], *longP99)
	}
	fmt.Fprintf(stdout, "  image throughput NATS / in-process (same batch): %.2f× (target ≥ 0.8×); / whole-round call: %.2f×\n", viaNATS/inBatch, viaNATS/inAll)
	fmt.Fprintf(stdout, "  messages lost: %d (audio levels) + %d (stage counters) (must be 0)\n", totalLost, s.Lost)
	return nil
}

// benchAudioData returns the word model and the FSDD test recordings with
// their in-process results, or the toy model and utterance when the data
// set is missing.
func benchAudioData(stderr io.Writer) (*engine.WordClassifier, []benchstream.Utterance, string, error) {
	recs, err := datasets.FSDD(defaults.FSDDDir())
	var words *engine.WordClassifier
	var utts []benchstream.Utterance
	source := ""
	if err != nil {
		fmt.Fprintf(stderr, "FSDD not found (%v): benchmarking the toy word model instead\n", err)
		if words, err = toymodels.Words(); err != nil {
			return nil, nil, "", err
		}
		utts = []benchstream.Utterance{{Audio: &frontend.Audio{Rate: 8000, Samples: toymodels.UpDown()}}}
		source = "TOY model and synthetic audio (FSDD missing): not representative"
	} else {
		if words, err = digitModel("", stderr); err != nil {
			return nil, nil, "", err
		}
		_, test := datasets.OfficialSplit(recs)
		for _, r := range test {
			a, err := readWAVFile(r.Path)
			if err != nil {
				return nil, nil, "", err
			}
			utts = append(utts, benchstream.Utterance{Audio: a})
		}
		source = fmt.Sprintf("%d FSDD test recordings (%s), the default digit model", len(test), defaults.FSDDDir())
	}
	return words, utts, source, benchstream.Expect(words, utts)
}

// benchImageData returns the image model and n raw MNIST test images, or
// the toy tagger and bar images when MNIST is missing.
func benchImageData(n int, stderr io.Writer) (*engine.ImageTagger, [][]byte, string, error) {
	path := filepath.Join(defaults.MNISTDir(), "t10k-images-idx3-ubyte")
	if _, err := os.Stat(path); err != nil {
		fmt.Fprintf(stderr, "MNIST not found (%v): benchmarking the toy image model instead\n", err)
		t, err := toymodels.Images()
		if err != nil {
			return nil, nil, "", err
		}
		return t, benchstream.ToyImages(n), "TOY 8×8 bars model (MNIST missing): not representative", nil
	}
	t, err := imageModel("", stderr)
	if err != nil {
		return nil, nil, "", err
	}
	b, err := imagebatch.Load([]string{path}, n)
	if err != nil {
		return nil, nil, "", err
	}
	return t, b.Payloads, fmt.Sprintf("%d MNIST test images as raw u8 payloads, the default MNIST model (top-3 tags)", len(b.Payloads)), nil
}

// benchLongStreams runs the long workloads through a connected-digit
// pipeline of its own, each level for as long as its longest recording
// (every stream then hears about one recording of it), and returns the
// most streams each held.
func benchLongStreams(stdout, stderr io.Writer, workloads []string, counts []int, p99 float64, shed bool) (map[string]int, error) {
	held := map[string]int{}
	if len(workloads) == 0 {
		return held, nil
	}
	recs, err := datasets.FSDD(defaults.FSDDDir())
	if err != nil {
		fmt.Fprintf(stderr, "FSDD not found (%v): no long streams\n", err)
		return held, nil
	}
	rec, err := connectedModel(stderr)
	if err != nil {
		return nil, err
	}
	live, err := engine.NewLiveRecognizer(rec.Model)
	if err != nil {
		return nil, err
	}
	_, test := datasets.OfficialSplit(recs)
	var clips []*frontend.Audio
	for _, r := range test {
		a, err := readWAVFile(r.Path)
		if err != nil {
			return nil, err
		}
		clips = append(clips, a)
	}
	sets := benchstream.LongWorkloads(clips)

	const pipe = "benchlong"
	pl := streaming.Pipeline{Name: pipe, Connected: rec, ShedPartials: shed}
	srv, err := startLocalPipeline(pl, streaming.StageFrontend, streaming.StageFeatures, streaming.StageDecoder)
	if err != nil {
		return nil, err
	}
	defer srv.Close()
	clients := make([]*nats.Conn, 4)
	for i := range clients {
		if clients[i], err = srv.Connect(fmt.Sprintf("bench long client %d", i)); err != nil {
			return nil, err
		}
		defer clients[i].Close()
	}
	st := sumStats([]*streaming.Stages{srv.Stages})
	fmt.Fprintf(stdout, "\nlong recordings: fluent strings joined from FSDD test recordings, the default speech model (connected digits), its own pipeline;\n")
	fmt.Fprintf(stdout, "each level lasts as long as its longest recording, so each stream hears about one; held: p99 ≤ %.0f ms, nothing lost or wrong\n", p99)
	for wi, w := range workloads {
		var utts []benchstream.Utterance
		longest := 0.0
		for _, a := range sets[w] {
			r, err := live.Recognize(a.Samples, a.Rate)
			if err != nil {
				return nil, err
			}
			utts = append(utts, benchstream.Utterance{Audio: a, Want: r.Text})
			longest = max(longest, a.Duration())
		}
		fmt.Fprintf(stdout, "\n%s (%d recordings, the longest %.0f s):\n\n", benchstream.LongWorkloadNames[w], len(utts), longest)
		held[w], _ = benchstream.Ramp(stdout, counts, p99, func(li, n int) benchstream.Level {
			return benchstream.AudioLevel(clients, pipe, utts, n, 100*(wi+1)+li, time.Duration(longest*float64(time.Second)), st)
		})
	}
	return held, nil
}
