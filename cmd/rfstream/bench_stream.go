package main

import (
	"context"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"runtime/pprof"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/nats-io/nats.go"

	"github.com/rfstream/rfstream/datasets"
	"github.com/rfstream/rfstream/engine"
	"github.com/rfstream/rfstream/frontend"
	"github.com/rfstream/rfstream/internal/defaults"
	"github.com/rfstream/rfstream/internal/linalg"
	"github.com/rfstream/rfstream/internal/toymodels"
	"github.com/rfstream/rfstream/streaming"
)

func init() {
	register(&command{name: "bench-stream", summary: "how many real-time audio streams the NATS pipeline holds, and image throughput through NATS vs in-process", run: runBenchStream})
}

// benchUtterance is one recording with the final text the in-process
// recogniser gives it: the pipeline must give the same.
type benchUtterance struct {
	audio *frontend.Audio
	want  string
}

// benchLevel is what one number of concurrent streams achieved.
type benchLevel struct {
	streams, utterances     int
	p50, p99, worst         float64 // end-of-speech → final result, ms
	published, lost, errors int64
	mismatches, timeouts    int
}

func (l benchLevel) held(p99Target float64) bool {
	return l.utterances > 0 && l.p99 <= p99Target && l.lost == 0 && l.errors == 0 && l.mismatches == 0 && l.timeouts == 0
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
	var levels []int
	for _, f := range strings.Split(*levelsFlag, ",") {
		n, err := strconv.Atoi(strings.TrimSpace(f))
		if err != nil || n <= 0 {
			return fmt.Errorf("--streams: %q is not a positive count", f)
		}
		levels = append(levels, n)
	}
	load0 := loadAverage()

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
	more, conns, err := startMoreShards(pl, streaming.AllStages, func(name string) (*nats.Conn, error) { return srv.Connect(name) })
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
	fmt.Fprintf(stdout, "| streams | utterances | p50 ms | p99 ms | max ms | PCM msgs | lost | error results | wrong text | timeouts | held |\n")
	fmt.Fprintf(stdout, "|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|:--|\n")
	best := 0
	var totalLost int64
	for li, n := range levels {
		l := benchAudioLevel(clients, pipe, utts, n, li, time.Duration(*seconds*float64(time.Second)), st)
		totalLost += l.lost
		held := l.held(*p99Target)
		mark := "yes"
		if !held {
			mark = "no"
		}
		fmt.Fprintf(stdout, "| %d | %d | %.1f | %.1f | %.1f | %d | %d | %d | %d | %d | %s |\n",
			n, l.utterances, l.p50, l.p99, l.worst, l.published, l.lost, l.errors, l.mismatches, l.timeouts, mark)
		if !held {
			break
		}
		best = n
	}

	fmt.Fprintf(stdout, "\nimages: %s\n", imageSource)
	inBatch, inAll, viaNATS, wrong, tagErrs, err := benchImages(clients[0], pipe, tagger, payloads, streaming.TaggerBatch(pl), *chunk, *rounds)
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

	fmt.Fprintf(stdout, "\nsummary (load average after: %s):\n", loadAverage())
	fmt.Fprintf(stdout, "  concurrent real-time audio streams held: %d (target ≥ 50 with p99 ≤ %.0f ms)\n", best, *p99Target)
	fmt.Fprintf(stdout, "  image throughput NATS / in-process (same batch): %.2f× (target ≥ 0.8×); / whole-round call: %.2f×\n", viaNATS/inBatch, viaNATS/inAll)
	fmt.Fprintf(stdout, "  messages lost: %d (audio levels) + %d (stage counters) (must be 0)\n", totalLost, s.Lost)
	return nil
}

// benchAudioData returns the word model and the FSDD test recordings with
// their in-process results, or the toy model and utterance when the data
// set is missing.
func benchAudioData(stderr io.Writer) (*engine.WordClassifier, []benchUtterance, string, error) {
	recs, err := datasets.FSDD(defaults.FSDDDir())
	var words *engine.WordClassifier
	var utts []benchUtterance
	source := ""
	if err != nil {
		fmt.Fprintf(stderr, "FSDD not found (%v): benchmarking the toy word model instead\n", err)
		if words, err = toymodels.Words(); err != nil {
			return nil, nil, "", err
		}
		utts = []benchUtterance{{audio: &frontend.Audio{Rate: 8000, Samples: toymodels.UpDown()}}}
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
			utts = append(utts, benchUtterance{audio: a})
		}
		source = fmt.Sprintf("%d FSDD test recordings (%s), the default digit model", len(test), defaults.FSDDDir())
	}
	for i := range utts {
		sp, err := engine.NewWordSpotter(words, engine.DefaultSpotterConfig(), utts[i].audio.Rate)
		if err != nil {
			return nil, nil, "", err
		}
		sp.Push(utts[i].audio.Samples)
		res := sp.Flush()
		utts[i].want = res[len(res)-1].Text
	}
	return words, utts, source, nil
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
		payloads := make([][]byte, n)
		for i := range payloads {
			payloads[i] = make([]byte, 64)
			for j, v := range toymodels.Bars(i%2, (i/2)%8) {
				payloads[i][j] = byte(255 * v)
			}
		}
		return t, payloads, "TOY 8×8 bars model (MNIST missing): not representative", nil
	}
	t, err := imageModel("", stderr)
	if err != nil {
		return nil, nil, "", err
	}
	b, err := loadImages([]string{path}, n)
	if err != nil {
		return nil, nil, "", err
	}
	return t, b.payloads, fmt.Sprintf("%d MNIST test images as raw u8 payloads, the default MNIST model (top-3 tags)", len(b.payloads)), nil
}

// benchAudioLevel runs n concurrent real-time streams for dur.
func benchAudioLevel(clients []*nats.Conn, pipe string, utts []benchUtterance, n, level int, dur time.Duration, stats func() streaming.Stats) benchLevel {
	before := stats()
	var mu sync.Mutex
	var lat []float64
	l := benchLevel{streams: n}
	deadline := time.Now().Add(dur)
	var wg sync.WaitGroup
	for i := 0; i < n; i++ {
		wg.Add(1)
		go func(i int) {
			defer wg.Done()
			// Spread the streams' chunk boundaries over a chunk period.
			time.Sleep(time.Duration(i) * 100 * time.Millisecond / time.Duration(n))
			for k := 0; time.Now().Before(deadline); k++ {
				u := utts[(i*37+k*n)%len(utts)]
				var eosAt time.Time
				var ms float64 = -1
				res, err := streaming.StreamAudio(context.Background(), clients[i%len(clients)], pipe,
					fmt.Sprintf("b%d-%d-%d", level, i, k), u.audio,
					streaming.StreamOptions{RealTime: true, ChunkMs: 100, Timeout: 10 * time.Second, OnEOS: func() { eosAt = time.Now() }},
					func(r engine.Result) {
						if r.EOS {
							ms = float64(time.Since(eosAt).Microseconds()) / 1000
						}
					})
				chunks := int64(math.Ceil(float64(len(u.audio.Samples)) / float64(u.audio.Rate/10)))
				mu.Lock()
				l.published += chunks
				switch {
				case err != nil:
					l.timeouts++
				case res.Text != u.want:
					l.mismatches++
				}
				if ms >= 0 {
					lat = append(lat, ms)
				}
				mu.Unlock()
			}
		}(i)
	}
	wg.Wait()
	after := stats()
	l.utterances = len(lat)
	l.errors = after.Errors - before.Errors
	// Every published PCM message must have reached the frontend, and
	// every stream must have had its final result.
	l.lost = l.published - (after.Messages - before.Messages) + (after.Lost - before.Lost) + int64(l.timeouts)
	sort.Float64s(lat)
	if len(lat) > 0 {
		l.p50, l.p99, l.worst = quantile(lat, 0.5), quantile(lat, 0.99), lat[len(lat)-1]
	}
	return l
}

// sumStats returns the counters of every stage set added up: shards'
// frontends each count their own streams' messages.
func sumStats(all []*streaming.Stages) func() streaming.Stats {
	return func() streaming.Stats {
		var t streaming.Stats
		for _, st := range all {
			s := st.Stats()
			t.Messages += s.Messages
			t.Duplicates += s.Duplicates
			t.Errors += s.Errors
			t.Lost += s.Lost
			t.Vectors += s.Vectors
			t.Batches += s.Batches
			t.Shed += s.Shed
			t.Voices += s.Voices
		}
		return t
	}
}

// startMoreShards starts shards 1 … p.Shards-1 of whichever of the
// frontend and decoder names lists, each on a connection of its own from
// connect, and returns them with their connections (those that started,
// when it fails).
func startMoreShards(p streaming.Pipeline, names []string, connect func(name string) (*nats.Conn, error)) ([]*streaming.Stages, []*nats.Conn, error) {
	var stateful []string
	for _, n := range names {
		if n == streaming.StageFrontend || n == streaming.StageDecoder {
			stateful = append(stateful, n)
		}
	}
	var all []*streaming.Stages
	var conns []*nats.Conn
	for k := 1; k < p.Shards && len(stateful) > 0; k++ {
		nc, err := connect(fmt.Sprintf("rfstream shard %d", k))
		if err != nil {
			return all, conns, err
		}
		p.Shard = k
		st, err := streaming.Start(nc, p, stateful...)
		if err != nil {
			nc.Close()
			return all, conns, err
		}
		all, conns = append(all, st), append(conns, nc)
	}
	return all, conns, nil
}

// quantile of sorted values, by the nearest rank.
func quantile(sorted []float64, q float64) float64 {
	i := int(math.Ceil(q*float64(len(sorted)))) - 1
	return sorted[max(0, min(i, len(sorted)-1))]
}

// benchImages measures images/s in process (in the stage's batches, and
// in one call) and through NATS. Each round takes the next chunk of the
// images and runs the three paths in a rotating order, so a burst of load
// from other work does not always hit the same path; each path reports
// its best round. It also counts NATS top tags that differ from the
// in-process ones, over every round.
func benchImages(nc *nats.Conn, pipe string, t *engine.ImageTagger, all [][]byte, batch, chunk, rounds int) (inBatch, inAll, viaNATS float64, wrong, errs int, err error) {
	dim := t.Map.InDim()
	chunk = max(1, min(chunk, len(all)))
	tagIn := func(payloads [][]byte, batch int) ([][]engine.Tag, error) {
		var out [][]engine.Tag
		for lo := 0; lo < len(payloads); lo += batch {
			hi := min(lo+batch, len(payloads))
			x := linalg.NewGeneral32(hi-lo, dim)
			for i := lo; i < hi; i++ {
				row := linalg.Row32(x, i-lo)
				for j, b := range payloads[i] {
					row[j] = float32(b) / 255
				}
			}
			tags, err := t.TagRows(x, 3)
			if err != nil {
				return nil, err
			}
			out = append(out, tags...)
		}
		return out, nil
	}
	for r := 0; r < rounds; r++ {
		lo := (r * chunk) % len(all)
		payloads := all[lo:min(lo+chunk, len(all))]
		var want [][]engine.Tag
		var replies []streaming.TagsMessage
		paths := []func() error{
			func() (err error) { want, err = tagIn(payloads, batch); return err },
			func() (err error) { _, err = tagIn(payloads, len(payloads)); return err },
			func() (err error) {
				replies, err = streaming.TagImages(context.Background(), nc, pipe, "img"+strconv.Itoa(r), payloads, true, 5*time.Minute)
				return err
			},
		}
		rates := []*float64{&inBatch, &inAll, &viaNATS}
		for k := 0; k < len(paths); k++ {
			i := (k + r) % len(paths)
			start := time.Now()
			if err := paths[i](); err != nil {
				return 0, 0, 0, 0, 0, err
			}
			*rates[i] = math.Max(*rates[i], float64(len(payloads))/time.Since(start).Seconds())
		}
		for i, rep := range replies {
			switch {
			case rep.Error != "":
				errs++
			case rep.Tags[0].Label != want[i][0].Label || math.Abs(rep.Tags[0].Score-want[i][0].Score) > 1e-5:
				wrong++
			}
		}
	}
	return inBatch, inAll, viaNATS, wrong, errs, nil
}

func loadAverage() string {
	b, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return "unknown"
	}
	f := strings.Fields(string(b))
	if len(f) < 3 {
		return "unknown"
	}
	return strings.Join(f[:3], " ")
}
