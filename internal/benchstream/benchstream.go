// Package benchstream measures the NATS pipeline under load for
// `rfstream bench-stream`: how many real-time audio streams it holds within
// a latency bound, and how fast it tags images compared with the same
// tagger in-process.
package benchstream

import (
	"context"
	"fmt"
	"io"
	"math"
	"os"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/rfstream/rfstream/engine"
	"github.com/rfstream/rfstream/frontend"
	"github.com/rfstream/rfstream/internal/linalg"
	"github.com/rfstream/rfstream/streaming"
)

// Utterance is one recording with the final text the in-process
// recogniser gives it: the pipeline must give the same.
type Utterance struct {
	Audio *frontend.Audio
	Want  string
}

// Level is what one number of concurrent streams achieved.
type Level struct {
	Streams, Utterances     int
	P50, P99, Worst         float64 // end-of-speech → final result, ms
	Published, Lost, Errors int64
	Mismatches, Timeouts    int
}

// Held reports whether the level kept its p99 latency within p99Target ms
// with nothing lost, refused, wrong or timed out.
func (l Level) Held(p99Target float64) bool {
	return l.Utterances > 0 && l.P99 <= p99Target && l.Lost == 0 && l.Errors == 0 && l.Mismatches == 0 && l.Timeouts == 0
}

// AudioLevel runs n concurrent real-time streams for dur.
func AudioLevel(clients []*nats.Conn, pipe string, utts []Utterance, n, level int, dur time.Duration, stats func() streaming.Stats) Level {
	before := stats()
	var mu sync.Mutex
	var lat []float64
	l := Level{Streams: n}
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
					fmt.Sprintf("b%d-%d-%d", level, i, k), u.Audio,
					streaming.StreamOptions{RealTime: true, ChunkMs: 100, Timeout: 10 * time.Second, OnEOS: func() { eosAt = time.Now() }},
					func(r engine.Result) {
						if r.EOS {
							ms = float64(time.Since(eosAt).Microseconds()) / 1000
						}
					})
				chunks := int64(math.Ceil(float64(len(u.Audio.Samples)) / float64(u.Audio.Rate/10)))
				mu.Lock()
				l.Published += chunks
				switch {
				case err != nil:
					l.Timeouts++
				case res.Text != u.Want:
					l.Mismatches++
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
	l.Utterances = len(lat)
	l.Errors = after.Errors - before.Errors
	// Every published PCM message must have reached the frontend, and
	// every stream must have had its final result.
	l.Lost = l.Published - (after.Messages - before.Messages) + (after.Lost - before.Lost) + int64(l.Timeouts)
	sort.Float64s(lat)
	if len(lat) > 0 {
		l.P50, l.P99, l.Worst = quantile(lat, 0.5), quantile(lat, 0.99), lat[len(lat)-1]
	}
	return l
}

// StartMoreShards starts shards 1 … p.Shards-1 of whichever of the
// frontend and decoder names lists, each on a connection of its own from
// connect, and returns them with their connections (those that started,
// when it fails).
func StartMoreShards(p streaming.Pipeline, names []string, connect func(name string) (*nats.Conn, error)) ([]*streaming.Stages, []*nats.Conn, error) {
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

// Images measures images/s in process (in the stage's batches, and
// in one call) and through NATS. Each round takes the next chunk of the
// images and runs the three paths in a rotating order, so a burst of load
// from other work does not always hit the same path; each path reports
// its best round. It also counts NATS top tags that differ from the
// in-process ones, over every round.
func Images(nc *nats.Conn, pipe string, t *engine.ImageTagger, all [][]byte, batch, chunk, rounds int) (inBatch, inAll, viaNATS float64, wrong, errs int, err error) {
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

func LoadAverage() string {
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

// Ramp runs levels of concurrent streams in turn (run measures the i-th,
// of n streams), printing a Markdown table row for each, until one is not
// held at p99 ms; it returns the most streams held and the messages lost.
func Ramp(w io.Writer, levels []int, p99 float64, run func(i, n int) Level) (best int, lost int64) {
	fmt.Fprintf(w, "| streams | utterances | p50 ms | p99 ms | max ms | PCM msgs | lost | error results | wrong text | timeouts | held |\n")
	fmt.Fprintf(w, "|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|:--|\n")
	for i, n := range levels {
		l := run(i, n)
		lost += l.Lost
		held := l.Held(p99)
		mark := "yes"
		if !held {
			mark = "no"
		}
		fmt.Fprintf(w, "| %d | %d | %.1f | %.1f | %.1f | %d | %d | %d | %d | %d | %s |\n",
			n, l.Utterances, l.P50, l.P99, l.Worst, l.Published, l.Lost, l.Errors, l.Mismatches, l.Timeouts, mark)
		if !held {
			break
		}
		best = n
	}
	return best, lost
}

// ParseCounts reads a flag's comma-separated list of stream counts.
func ParseCounts(flag, list string) ([]int, error) {
	var out []int
	for _, f := range strings.Split(list, ",") {
		n, err := strconv.Atoi(strings.TrimSpace(f))
		if err != nil || n <= 0 {
			return nil, fmt.Errorf("%s: %q is not a positive count", flag, f)
		}
		out = append(out, n)
	}
	return out, nil
}
