package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"image"
	"image/png"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/coder/websocket"
	"github.com/nats-io/nats.go"

	"github.com/rfstream/rfstream/engine"
	"github.com/rfstream/rfstream/frontend"
	"github.com/rfstream/rfstream/internal/localcreds"
	"github.com/rfstream/rfstream/internal/nodeclients"
	"github.com/rfstream/rfstream/internal/testproc"
	"github.com/rfstream/rfstream/internal/toymodels"
	"github.com/rfstream/rfstream/streaming"
	"github.com/rfstream/rfstream/streaming/web"
)

// The hostile-client suite: each attack runs against an `rfstream serve`
// process of its own, built from this checkout (embedded NATS server, the
// page on --http, the toy word and image models), sent by a third-party
// client (nats.js from npm, testdata/hostile.cjs) or, for WebSockets, by
// this test. While it runs, a well-behaved client streams the toy "up down"
// recording over and over, and the test asserts the bounds
// docs/streaming.md ("Limits") states: the serve process's peak memory
// (VmHWM) grows by no more than the attack's bound, the well-behaved
// stream's end-of-stream result comes no more than maxStall later than
// without the attack, and every one of its transcripts equals the
// undisturbed one.

// The stall of an attack is how much later than undisturbed the
// well-behaved streams' end-of-stream results come during it: the 95th
// percentile of their latencies (a stream starts every probeEvery, so a
// stall shows in every stream it holds up) over the undisturbed one,
// measured just before in the same process. maxStall is the bound; the
// attacks that move over 80 MB or end thousands of streams at once (the
// "bulk" ones) are held to looser bounds. Since each stage of serve has a
// connection of its own, the 1 MB messages, spread over every stage's
// subjects, no longer hold up the well-behaved streams' segments and
// scores: 168 ms at most in ten runs at load 12-17, where one shared
// connection gave up to 851 ms, so maxSpreadStall bounds them. The
// withheld and flood attacks put their megabytes on the frontend's own
// connection, which the well-behaved streams' audio shares, and cost CPU
// the two cores' other work competes for; turns by stream do not help
// thousands of streams ending together: they stay at maxBulkStall (up to
// 1.6 s seen for the withheld case at load 14). None of them stayed under
// maxStall in every run (experiments/journal/streaming.md, Nov 27).
const (
	maxStall       = 100 * time.Millisecond
	maxSpreadStall = 500 * time.Millisecond
	maxBulkStall   = 2 * time.Second
	// maxFloodStall bounds the stall of a flood of WebSocket audio, the
	// issue's goal: the sockets are paced (streaming/web/pace.go), so
	// what they move is bounded, but the attack's own traffic (hundreds
	// of MB offered on loopback) costs the two cores' CPU.
	maxFloodStall = 200 * time.Millisecond
)

// hostileServe is one serve process under attack and the well-behaved
// client probing it.
type hostileServe struct {
	t        *testing.T
	p        *proc
	port     int
	httpAddr string
	nc       *nats.Conn
	seed     string          // the local tools' seed file, when serve left one (localcreds.go)
	voice    string          // the probe's voice ("" for a plain stream)
	audio    *frontend.Audio // what the probe streams
	want     engine.Result   // its undisturbed end-of-stream result
	base     []time.Duration // its undisturbed latencies
	probes   atomic.Int64
}

// hostileModels saves the toy word and image models once per test.
func hostileModels(t *testing.T) (words, images string) {
	t.Helper()
	w, err := toymodels.Words()
	if err != nil {
		t.Fatal(err)
	}
	im, err := toymodels.Images()
	if err != nil {
		t.Fatal(err)
	}
	words, _ = toyFiles(t, w.Model)
	images = filepath.Join(t.TempDir(), "images.rfm")
	if err := engine.SaveModel(images, im.Model); err != nil {
		t.Fatal(err)
	}
	return words, images
}

// startHostileServe starts serve with the extra flags and env, connects the
// well-behaved client with opts, and measures it undisturbed.
func startHostileServe(t *testing.T, models [2]string, extra []string, env []string, voice string, opts ...nats.Option) *hostileServe {
	t.Helper()
	h := &hostileServe{t: t, port: freePort(t), httpAddr: "127.0.0.1:" + strconv.Itoa(freePort(t)), voice: voice,
		audio: &frontend.Audio{Rate: 8000, Samples: toymodels.UpDown()}}
	args := append([]string{"serve", "--port", strconv.Itoa(h.port), "--http", h.httpAddr, "--model", models[0], "--image-model", models[1],
		"--idle-timeout", "2s", "--socket-idle", "2s"}, extra...)
	h.p = &proc{cmd: testproc.Command(cliBinary(t), args...), out: &syncBuffer{}}
	h.p.cmd.Stdout, h.p.cmd.Stderr = h.p.out, h.p.out
	h.p.cmd.Env = append(cleanNATSEnv(), env...)
	if err := h.p.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(h.p.kill)
	for deadline := time.Now().Add(20 * time.Second); !strings.Contains(h.p.out.String(), "web page on"); time.Sleep(10 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("serve not ready in 20 s:\n%s", h.p.out.String())
		}
	}
	// Without credentials the embedded server leaves the local tools' seed
	// (localcreds.go): the well-behaved client and the attackers present
	// it, as rfstream's commands do, unless they are the guests or the
	// confined clients under test.
	if seed := localcreds.SeedFor("127.0.0.1:" + strconv.Itoa(h.port)); seed != "" && len(opts) == 0 {
		h.seed = seed
		opts = append(opts, h.localCreds())
	}
	nc, err := nats.Connect("nats://127.0.0.1:"+strconv.Itoa(h.port), opts...)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(nc.Close)
	h.nc = nc
	// The first stream warms the process (its tables, its goroutines);
	// a second of streams after it are the undisturbed latencies.
	p := h.probe()
	if p.err != nil || p.r.Error != "" || p.r.Text != "up down" {
		t.Fatalf("undisturbed: %+v %v\nserve said:\n%s", p.r, p.err, h.p.out.String())
	}
	h.want = p.r
	h.base = h.probing(func() { time.Sleep(time.Second) })
	return h
}

// localCreds presents the local tools' seed (none for a server that was
// given credentials or opened).
func (h *hostileServe) localCreds() nats.Option {
	if h.seed == "" {
		return func(*nats.Options) error { return nil }
	}
	o, err := nats.NkeyOptionFromSeed(h.seed)
	if err != nil {
		h.t.Fatal(err)
	}
	return o
}

// cleanNATSEnv is this process's environment without the NATS connection
// variables, which would change what serve starts.
func cleanNATSEnv() []string {
	var env []string
	for _, kv := range os.Environ() {
		name, _, _ := strings.Cut(kv, "=")
		if name == "NATS_URL" || strings.HasPrefix(name, "RFSTREAM_NATS_") {
			continue
		}
		env = append(env, kv)
	}
	return env
}

// probeEvery is how often the well-behaved client starts a stream: each
// runs on its own, so a stall shows in every stream it holds up.
const probeEvery = 20 * time.Millisecond

// probeResult is one well-behaved stream: its end-of-stream result and how
// long after its end-of-stream message that came.
type probeResult struct {
	r    engine.Result
	took time.Duration
	err  error
}

// probe streams the recording once under a new name.
func (h *hostileServe) probe() probeResult {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	var sent time.Time
	r, err := streaming.StreamAudio(ctx, h.nc, "rfs", "a"+strconv.FormatInt(h.probes.Add(1), 10), h.audio,
		streaming.StreamOptions{Voice: h.voice, Timeout: 20 * time.Second, OnEOS: func() { sent = time.Now() }}, nil)
	return probeResult{r, time.Since(sent), err}
}

// probing starts a well-behaved stream every probeEvery while during runs
// (and 300 ms after: the process may still be working through what it was
// sent), checks each one's transcript against the undisturbed one, and
// returns their latencies.
func (h *hostileServe) probing(during func()) []time.Duration {
	h.t.Helper()
	done := make(chan struct{})
	go func() {
		defer close(done)
		during()
	}()
	var wg sync.WaitGroup
	results := make(chan probeResult, 1<<12)
	settle := time.Time{}
	for tick := time.NewTicker(probeEvery); settle.IsZero() || time.Now().Before(settle); <-tick.C {
		wg.Add(1)
		go func() {
			defer wg.Done()
			results <- h.probe()
		}()
		select {
		case <-done:
			if settle.IsZero() {
				settle = time.Now().Add(300 * time.Millisecond)
			}
		default:
		}
	}
	wg.Wait()
	close(results)
	var took []time.Duration
	for p := range results {
		if p.err != nil {
			h.t.Fatalf("the well-behaved stream: %v\nserve said:\n%s", p.err, h.p.out.String())
		}
		if p.r.Text != h.want.Text || p.r.Error != "" || len(p.r.Gaps) != 0 || !slices.Equal(p.r.Words, h.want.Words) {
			h.t.Fatalf("the well-behaved stream heard %+v, undisturbed %+v\nserve said:\n%s", p.r, h.want, h.p.out.String())
		}
		took = append(took, p.took)
	}
	slices.Sort(took)
	return took
}

// resetPeak sets the serve process's VmHWM to its resident memory now
// (proc(5), clear_refs) and returns that.
func (h *hostileServe) resetPeak() int64 {
	h.t.Helper()
	if err := os.WriteFile("/proc/"+strconv.Itoa(h.p.cmd.Process.Pid)+"/clear_refs", []byte("5"), 0); err != nil {
		h.t.Skipf("cannot reset the peak memory of serve: %v", err)
	}
	return h.peakMemory()
}

// peakMemory reads the serve process's VmHWM, in bytes.
func (h *hostileServe) peakMemory() int64 {
	h.t.Helper()
	f, err := os.Open("/proc/" + strconv.Itoa(h.p.cmd.Process.Pid) + "/status")
	if err != nil {
		h.t.Skipf("no /proc: peak memory is read from /proc/PID/status (%v)", err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if v, ok := strings.CutPrefix(sc.Text(), "VmHWM:"); ok {
			kb, err := strconv.ParseInt(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(v), "kB")), 10, 64)
			if err != nil {
				h.t.Fatalf("VmHWM %q: %v", v, err)
			}
			return kb << 10
		}
	}
	h.t.Fatal("no VmHWM in /proc/PID/status")
	return 0
}

// latencyQuantile is the q-quantile of sorted latencies.
func latencyQuantile(sorted []time.Duration, q float64) time.Duration {
	return sorted[min(len(sorted)-1, int(q*float64(len(sorted))))]
}

// underAttack runs attack while the well-behaved client streams, checks
// every transcript, then the stall and the peak memory's growth against
// their bounds, and logs the figures.
func (h *hostileServe) underAttack(name string, maxGrowth int64, maxStall time.Duration, attack func()) (stallWithin bool) {
	h.t.Helper()
	before := h.resetPeak()
	during := h.probing(attack)
	growth := h.peakMemory() - before
	median := latencyQuantile(h.base, 0.5)
	stall := latencyQuantile(during, 0.95) - latencyQuantile(h.base, 0.95)
	h.t.Logf("%s: peak memory %+.1f MB (from %.1f MB); %d well-behaved streams, every transcript %q; latency p50/p95/p99/max %v/%v/%v/%v (undisturbed %v/%v/%v/%v): stall %v",
		name, float64(growth)/(1<<20), float64(before)/(1<<20), len(during), h.want.Text,
		latencyQuantile(during, 0.5).Round(time.Millisecond), latencyQuantile(during, 0.95).Round(time.Millisecond), latencyQuantile(during, 0.99).Round(time.Millisecond), slices.Max(during).Round(time.Millisecond),
		median.Round(time.Millisecond), latencyQuantile(h.base, 0.95).Round(time.Millisecond), latencyQuantile(h.base, 0.99).Round(time.Millisecond), slices.Max(h.base).Round(time.Millisecond),
		stall.Round(time.Millisecond))
	if growth > maxGrowth {
		h.t.Errorf("%s: serve's peak memory grew %.1f MB, over the %.1f MB bound", name, float64(growth)/(1<<20), float64(maxGrowth)/(1<<20))
	}
	if stall > maxStall {
		h.t.Logf("%s: the well-behaved streams' results came %v later than undisturbed, over the %v bound", name, stall, maxStall)
		return false
	}
	return true
}

// startAliceAndBobServe starts serve with a clients file of two confined
// clients, alice (the well-behaved client, password al) and bob (the
// attacker, password bo).
func startAliceAndBobServe(t *testing.T, models [2]string) *hostileServe {
	t.Helper()
	clients := filepath.Join(t.TempDir(), "clients.json")
	os.WriteFile(clients, []byte(`{"clients": [{"name": "alice", "password": "al"}, {"name": "bob", "password": "bo"}]}`), 0o600)
	return startHostileServe(t, models, nil, []string{"RFSTREAM_NATS_USERS=" + clients}, "alice",
		nats.UserInfo("alice", "al"), nats.CustomInboxPrefix(streaming.InboxPrefix("alice")))
}

// twice runs attempt (a serve process and an attack), and once more when
// the stall was over its bound: on a loaded machine (CI's, or this
// project's two cores shared by many jobs) a pause of the whole machine
// in the attack's window looks like a stall. A stall the attack causes
// shows both times.
func twice(t *testing.T, attempt func() (stallWithin bool)) { t.Helper(); tries(t, 2, attempt) }

// tries is twice with n attempts.
func tries(t *testing.T, n int, attempt func() (stallWithin bool)) {
	t.Helper()
	for range n {
		if attempt() {
			return
		}
	}
	t.Errorf("the stall was over its bound %d times", n)
}

// hostileReport is what testdata/hostile.cjs prints.
type hostileReport struct {
	Sent, Ended, Answered, Refused, RefusedImages, Overheard int
	Bytes                                                    int64
	Errors                                                   []string
	StreamErrors                                             map[string][]string // each of the attack's streams' error texts
	Ms                                                       int
}

// natsJS starts testdata/hostile.cjs against the serve process and waits
// until it has connected; the attack it returns sends it on its way and
// waits for its report, so node's start is not counted as the attack's.
func (h *hostileServe) natsJS(attack, arg string, env ...string) (run func() hostileReport) {
	h.t.Helper()
	node, modules := nodeClients(h.t)
	script, err := filepath.Abs(filepath.Join("testdata", "hostile.cjs"))
	if err != nil {
		h.t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	h.t.Cleanup(cancel)
	cmd := testproc.CommandContext(ctx, node, script, strconv.Itoa(h.port), attack, arg)
	if h.seed != "" && !slices.ContainsFunc(env, func(kv string) bool { return strings.HasPrefix(kv, "RFS_USER=") || kv == "RFS_GUEST=1" }) {
		env = append(env, "RFS_SEED="+h.seed)
	}
	cmd.Env = append(os.Environ(), append(env, "NODE_PATH="+modules)...)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	stdin, err := cmd.StdinPipe()
	if err != nil {
		h.t.Fatal(err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		h.t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		h.t.Fatal(err)
	}
	lines := bufio.NewScanner(stdout)
	// The report names each stream's errors: more than a Scanner's 64 KiB
	// default line when an attack's streams hear many.
	lines.Buffer(nil, 4<<20)
	if !lines.Scan() || lines.Text() != "ready" {
		cmd.Wait()
		h.t.Fatalf("nats.js %s did not start: %q\n%s", attack, lines.Text(), stderr.String())
	}
	return func() hostileReport {
		stdin.Write([]byte("go\n"))
		var out []byte
		if lines.Scan() {
			out = lines.Bytes()
		}
		if err := cmd.Wait(); err != nil {
			h.t.Errorf("nats.js %s: %v\n%s%s", attack, err, out, stderr.String())
			return hostileReport{}
		}
		var r hostileReport
		if err := json.Unmarshal(out, &r); err != nil {
			h.t.Errorf("nats.js %s printed %q: %v", attack, out, err)
		}
		h.t.Logf("nats.js %s: %s", attack, out)
		return r
	}
}

// nodeClients returns node and where nats.js is installed, or skips
// without node.
func nodeClients(t *testing.T) (node, modules string) {
	t.Helper()
	return nodeclients.NatsJS(t, "the hostile-client suite's attacker is nats.js")
}

// hugePNGFile writes a 6400 × 6400 grey PNG (about 67 KB: it compresses to
// almost nothing) and returns its path.
func hugePNGFile(t *testing.T) string {
	t.Helper()
	var b bytes.Buffer
	enc := png.Encoder{CompressionLevel: png.BestSpeed}
	if err := enc.Encode(&b, image.NewGray(image.Rect(0, 0, 6400, 6400))); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "huge.png")
	if err := os.WriteFile(path, b.Bytes(), 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

const mb = 1 << 20

// quietFLAC makes a mono 48 kHz FLAC of seconds of faint brown noise (it
// compresses to about a third) with sox and returns its bytes.
func quietFLAC(t *testing.T, seconds int) []byte {
	t.Helper()
	if _, err := exec.LookPath("sox"); err != nil {
		t.Skip("sox is not installed (Debian: apt-get install sox)")
	}
	path := filepath.Join(t.TempDir(), "quiet.flac")
	if out, err := exec.Command("sox", "-n", "-r", "48000", "-c", "1", "-b", "16", path, "synth", strconv.Itoa(seconds), "brownnoise", "vol", "0.0005").CombinedOutput(); err != nil {
		t.Fatalf("sox: %v %s", err, out)
	}
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// TestHostileClients: each attack the issue measured against serve, now
// against its bounds (docs/streaming.md, "Limits").
func TestHostileClients(t *testing.T) {
	if testing.Short() {
		t.Skip("real processes, about 5 s an attack")
	}
	nodeClients(t)
	words, images := hostileModels(t)
	models := [2]string{words, images}
	t.Run("costly-rate", func(t *testing.T) {
		twice(t, func() bool {
			// Before: ten such messages stalled every stream 5.2 s, +700 MB.
			h := startHostileServe(t, models, nil, nil, "")
			var r hostileReport
			attack := h.natsJS("rate", "10")
			stallWithin := h.underAttack("ten streams of ten 1.6 KB messages at 767998 Hz", 30*mb, maxStall, func() { r = attack() })
			if r.Ended != 10 || len(r.Errors) == 0 || !strings.Contains(r.Errors[0], "767998") {
				t.Errorf("the streams at 767998 Hz: %+v, want each refused naming the rate and ended", r)
			}
			h.p.kill()
			return stallWithin
		})
	})
	t.Run("withheld", func(t *testing.T) {
		twice(t, func() bool {
			// Before: 64 × 1 MB parked per stream, +476 MB for eight. Now a
			// message over the 256 KiB limit waits without its payload. The
			// 128 MB sent would otherwise all be held, on top of what is in
			// transit.
			h := startHostileServe(t, models, nil, nil, "")
			var r hostileReport
			attack := h.natsJS("withhold", strconv.Itoa(mb-1024)+":16")
			stallWithin := h.underAttack("eight streams withholding message 0, 16 × 1 MB after it", 128*mb, maxBulkStall, func() { r = attack() })
			if r.Ended != 8 || !containsAll(r.Errors, "byte limit") {
				t.Errorf("the withholding streams: %+v, want each message refused and each stream ended", r)
			}
			h.p.kill()
			return stallWithin
		})
	})
	t.Run("valid-audio-flood", func(t *testing.T) {
		twice(t, func() bool {
			// Before the per-stream audio bound: +107 MB, stall 1.1 s. Each
			// 250 KB message (under the 256 KiB limit) is 15.6 s of valid
			// 8 kHz audio (silence), so a stream's 64 are 1000 s: past the
			// 2 MiB held behind its gap the frontend gives up on message 0,
			// and the 39th or so message takes the stream over its 600 s
			// burst (--max-audio-burst), the bound the design trips first:
			// the 9.5 MB a stream has sent by then are far from the 64 MiB
			// stream queue. The defaults trip within the suite's time, so
			// serve gets no flags. What they admit, 8 × 600 s of 16 kB/s
			// audio (77 MB), may all be queued at once, on top of the 128 MB
			// in transit (garbage once admitted or dropped, until the
			// collector runs): the bound is twice what is sent, the 256 MiB
			// a stage's queue may hold (+81 to +200 MB measured). The stall
			// is a bulk one: the well-behaved streams' audio comes on the
			// frontend's connection behind 128 MB, and the admitted audio
			// costs CPU (with --max-audio-burst 60 the stall stayed, on one
			// connection, and the memory dropped to about +30 MB).
			h := startHostileServe(t, models, nil, nil, "")
			var r hostileReport
			attack := h.natsJS("withhold", "250000:64")
			stallWithin := h.underAttack("eight streams withholding message 0, 64 × 250 KB of 8 kHz audio after it", 256*mb, maxBulkStall, func() { r = attack() })
			if r.Ended != 8 || len(r.StreamErrors) != 8 {
				t.Errorf("the flooding streams: %d ended, %d heard errors, want 8 and 8", r.Ended, len(r.StreamErrors))
			}
			for stream, errs := range r.StreamErrors {
				if !containsAll(errs, "--max-audio-burst") {
					t.Errorf("flooding stream %s heard %q, want an error naming --max-audio-burst", stream, errs)
				}
			}
			h.p.kill()
			return stallWithin
		})
	})
	t.Run("huge-images", func(t *testing.T) {
		twice(t, func() bool {
			// Before: twenty blocked the tagger for everyone 8.5 s, +1 GB.
			h := startHostileServe(t, models, nil, nil, "")
			file := hugePNGFile(t)
			var r hostileReport
			attack := h.natsJS("png", file)
			stallWithin := h.underAttack("forty 6400 × 6400 PNGs, by request and by stream", 30*mb, maxStall, func() { r = attack() })
			if r.Answered != 40 || r.Refused != 40 || !containsAll(r.Errors, "pixel limit") {
				t.Errorf("the huge images: %+v, want all forty refused from the header", r)
			}
			h.p.kill()
			return stallWithin
		})
	})
	t.Run("1MB-messages", func(t *testing.T) {
		twice(t, func() bool {
			h := startHostileServe(t, models, nil, nil, "")
			var r hostileReport
			attack := h.natsJS("big", "")
			stallWithin := h.underAttack("80 messages of 1 MB on the pcm, image, vector, scores and tag subjects", 64*mb, maxSpreadStall, func() { r = attack() })
			if r.Ended != 16 || r.RefusedImages != 32 || !containsAll(r.Errors, "byte limit") {
				t.Errorf("the 1 MB messages: %+v, want each audio stream refused and ended, each image refused", r)
			}
			h.p.kill()
			return stallWithin
		})
	})
	t.Run("streams-expiring-together", func(t *testing.T) {
		twice(t, func() bool {
			// Before: 5000 stream names expiring together stalled every stream
			// 2.9 s. (With the default --max-streams, 1024 would start and the
			// rest, the well-behaved streams too, be refused until they end.)
			h := startHostileServe(t, models, []string{"--max-streams", "6000"}, nil, "")
			// Counted on a connection of their own, so that the
			// well-behaved streams' results do not queue behind theirs.
			counter, err := nats.Connect("nats://127.0.0.1:"+strconv.Itoa(h.port), h.localCreds())
			if err != nil {
				t.Fatal(err)
			}
			defer counter.Close()
			idle := make(chan *nats.Msg, 1<<13)
			sub, err := counter.ChanSubscribe(streaming.Subject("rfs", streaming.KindResult, "*"), idle)
			if err != nil {
				t.Fatal(err)
			}
			defer sub.Unsubscribe()
			sub.SetPendingLimits(-1, -1)
			r := h.natsJS("expire", "5000")()
			stallWithin := h.underAttack("5000 streams going idle together", 128*mb, maxBulkStall, func() {
				ended := 0
				for deadline := time.After(30 * time.Second); ended < 5000; {
					select {
					case m := <-idle:
						if strings.HasPrefix(m.Subject, streaming.Subject("rfs", streaming.KindResult, "idle")) && m.Header.Get(streaming.HdrEOS) == "1" {
							ended++
						}
					case <-deadline:
						t.Errorf("%d of the 5000 idle streams ended", ended)
						return
					}
				}
			})
			if r.Sent != 5000 {
				t.Errorf("nats.js: %+v", r)
			}
			h.p.kill()
			return stallWithin
		})
	})
	t.Run("forged-and-cross-stream", func(t *testing.T) {
		twice(t, func() bool {
			// Before: any local process could forge another stream's result or
			// end it early. With a clients file, bob is refused every such
			// message while alice streams, and she hears exactly her words.
			h := startAliceAndBobServe(t, models)
			var r hostileReport
			attack := h.natsJS("forge", "2000", "RFS_USER=bob", "RFS_PASS=bo")
			stallWithin := h.underAttack("bob forging alice's results and ends, feeding her decoder, reading her results", 20*mb, maxStall, func() { r = attack() })
			if r.Sent == 0 || r.Refused < r.Sent || r.Overheard != 0 {
				t.Errorf("bob: %+v, want every one of his messages refused and nothing of alice's overheard", r)
			}
			h.p.kill()
			return stallWithin
		})
	})
	t.Run("guest-on-default-server", func(t *testing.T) {
		twice(t, func() bool {
			// Before: the default server let any local process read and
			// forge every stream (the acceptance check overheard 2 of 3
			// results). Now a client without credentials is a guest: while
			// alice streams with the local tools' seed, the guest's every
			// message and its subscription to her results are refused, and
			// its subscription to > delivers nothing of hers.
			h := startHostileServe(t, models, nil, nil, "alice")
			if h.seed == "" {
				t.Fatalf("the default server left no local seed:\n%s", h.p.out.String())
			}
			var r hostileReport
			attack := h.natsJS("forge", "2000", "RFS_GUEST=1")
			stallWithin := h.underAttack("a guest forging alice's results and ends, feeding her decoder, reading her results and >", 20*mb, maxStall, func() { r = attack() })
			if r.Sent == 0 || r.Refused < r.Sent || r.Overheard != 0 {
				t.Errorf("the guest: %+v, want every one of its messages refused and nothing of alice's overheard", r)
			}
			h.p.kill()
			return stallWithin
		})
	})
	t.Run("idle-sockets", func(t *testing.T) {
		twice(t, func() bool {
			// Before: 300 WebSockets that sent nothing stayed open for ever.
			h := startHostileServe(t, models, nil, nil, "")
			base := "ws://" + h.httpAddr
			var admitted []*websocket.Conn
			refused := 0
			stallWithin := h.underAttack("300 WebSockets on /ws/audio and /vosk that send nothing", 30*mb, maxStall, func() {
				ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
				defer cancel()
				for i := range 300 {
					c, resp, err := websocket.Dial(ctx, base+[]string{"/ws/audio?rate=8000", "/vosk"}[i%2], nil)
					switch {
					case err == nil:
						admitted = append(admitted, c)
					case resp != nil && resp.StatusCode == http.StatusServiceUnavailable:
						refused++
					default:
						t.Errorf("socket %d: %v", i, err)
					}
				}
				opened := time.Now()
				for i, c := range admitted {
					_, _, err := c.Read(ctx)
					var ce websocket.CloseError
					if !errors.As(err, &ce) || ce.Code != websocket.StatusPolicyViolation || time.Since(opened) > 6*time.Second {
						t.Errorf("idle socket %d: %v after %v, want closed for idleness (--socket-idle 2s)", i, err, time.Since(opened))
					}
				}
			})
			if len(admitted) != web.DefaultMaxSockets || refused != 300-web.DefaultMaxSockets {
				t.Errorf("%d sockets admitted and %d refused, want %d and the rest", len(admitted), refused, web.DefaultMaxSockets)
			}
			h.p.kill()
			return stallWithin
		})
	})
	t.Run("websocket-flood", func(t *testing.T) {
		// Five tries: the case nearest its bound (first tries of 10-232 ms
		// on a quiet machine, 62-453 ms with other work on the cores; the
		// journal, Dec 2), where a loaded machine's own pauses show most.
		// On a slower CPU (Dec 2, Intel Xeon) the code of that day gave
		// 151-261 ms and later code 25-342 ms, alone on the machine: three
		// tries all over the bound happened under make test's other
		// packages. A stall the attack causes shows in every try.
		tries(t, 5, func() bool {
			// Before: 64 WebSockets sending 256 KiB frames of 16 kHz audio
			// as fast as they could took serve from 67 MB to 1.3 GB within
			// 5 s, and the frontend's NATS client dropped messages of every
			// stream, the well-behaved ones too: each socket was bounded
			// (600 s of audio), nothing bounded them together. Now each
			// socket goes at a live speaker's pace, and what is faster
			// shares one pool (pace.go); the test's sockets offer hundreds
			// of MB, serve reads a small part of it.
			h := startHostileServe(t, models, nil, nil, "")
			var sent atomic.Int64
			// The flood is sent by this test process: under the race
			// detector its own sending takes the cores the well-behaved
			// streams need (stalls of 0.6-1.2 s seen), so there the bound
			// is the bulk one; make test holds it to the 200 ms.
			bound := maxFloodStall
			if raceDetector {
				bound = maxBulkStall
			}
			stallWithin := h.underAttack("64 WebSockets sending 256 KiB frames of 16 kHz audio as fast as they can for 5 s", 256*mb, bound, func() {
				sent.Store(floodSockets(t, "ws://"+h.httpAddr+"/ws/audio?rate=16000", web.DefaultMaxSockets, 5*time.Second))
			})
			t.Logf("the flood's sockets sent %.1f MB in 5 s", float64(sent.Load())/mb)
			h.p.kill()
			return stallWithin
		})
	})
	t.Run("one-clients-streams", func(t *testing.T) {
		twice(t, func() bool {
			// Before: 1,024 one-chunk streams of one client (sent in 0.02 s)
			// took every stream slot, and 99 of 200 well-behaved streams
			// were refused for ~20 s. Now a voice named by its subject (a
			// confined client's) holds at most --max-voice-streams (64).
			h := startAliceAndBobServe(t, models)
			var r hostileReport
			attack := h.natsJS("streams", "1024", "RFS_USER=bob", "RFS_PASS=bo")
			stallWithin := h.underAttack("bob opening 1024 streams of his voice at once", 30*mb, maxStall, func() { r = attack() })
			if r.Ended != 1024 || r.Refused != 1024-64 || !containsAll(r.Errors, "--max-voice-streams") {
				t.Errorf("bob's streams: %d ended, %d refused naming --max-voice-streams, want 1024 and 960 (%q)", r.Ended, r.Refused, r.Errors)
			}
			h.p.kill()
			return stallWithin
		})
	})
	t.Run("recording-uploads", func(t *testing.T) {
		twice(t, func() bool {
			// The page's POST /api/recognize holds a posted file while it
			// decodes it: twenty clients at once posting a FLAC of quiet
			// noise that decodes to 2^23 samples (174 s at 48 kHz, the
			// most it takes) get one heard and the rest told to come back
			// (one an address, two in all), and serve holds one file.
			file := quietFLAC(t, 174)
			h := startHostileServe(t, models, nil, nil, "")
			var mu sync.Mutex
			codes := map[int]int{}
			stallWithin := h.underAttack("twenty posts at once of a FLAC that decodes to 2^23 samples", 256*mb, maxBulkStall, func() {
				var wg sync.WaitGroup
				for range 20 {
					wg.Go(func() {
						code := 0
						if resp, err := http.Post("http://"+h.httpAddr+"/api/recognize", "application/octet-stream", bytes.NewReader(file)); err == nil {
							io.Copy(io.Discard, resp.Body)
							resp.Body.Close()
							code = resp.StatusCode
						}
						mu.Lock()
						codes[code]++
						mu.Unlock()
					})
				}
				wg.Wait()
			})
			t.Logf("the twenty posts (%.1f MB each): statuses %v", float64(len(file))/mb, codes)
			if codes[http.StatusOK] < 1 || codes[http.StatusOK]+codes[http.StatusTooManyRequests]+codes[http.StatusServiceUnavailable] != 20 {
				t.Errorf("statuses %v: want the first heard (200), the others 429 or 503", codes)
			}
			h.p.kill()
			return stallWithin
		})
	})
	t.Run("image-bombs", func(t *testing.T) {
		twice(t, func() bool {
			// Before: requests were tagged one at a time, so 150 small PNGs
			// slow to decode (33 KB each) delayed another client's image
			// 27 s. Now tag requests queue fairly by client and are decoded
			// on every core: another client's image waits for at most a
			// turn (7-9 ms measured at load 7). The bombs' decoding takes
			// both cores for 3-5 s, yet the audio stalled 6-19 ms: the
			// stages' goroutines get their turns.
			h := startHostileServe(t, models, nil, nil, "")
			good, err := nats.Connect("nats://127.0.0.1:"+strconv.Itoa(h.port), h.localCreds())
			if err != nil {
				t.Fatal(err)
			}
			defer good.Close()
			var r hostileReport
			var took time.Duration
			attack := h.natsJS("tagbombs", bombPNGFile(t))
			stallWithin := h.underAttack("forty PNG bombs (1400 × 1400, 16-bit RGBA) by request from one client", 128*mb, maxStall, func() {
				done := make(chan struct{})
				go func() { r = attack(); close(done) }()
				time.Sleep(200 * time.Millisecond) // the bombs are queued first
				start := time.Now()
				reply, err := good.Request(streaming.TagSubject("rfs"), smallPNG(t), 30*time.Second)
				took = time.Since(start)
				if err != nil || bytes.Contains(reply.Data, []byte(`"error"`)) {
					t.Errorf("another client's image: %v %s", err, reply.Data)
				}
				<-done
			})
			t.Logf("another client's image was answered in %v, the bomber's forty in %d ms", took.Round(time.Millisecond), r.Ms)
			if r.Answered != 40 {
				t.Errorf("the bombs: %+v, want every one answered", r)
			}
			if took > time.Second {
				t.Errorf("another client's image waited %v behind the bombs, over 1 s", took)
			}
			h.p.kill()
			return stallWithin
		})
	})
}

// bombPNGFile writes a PNG that is small (a flat 16-bit RGBA image
// compresses to about 30 KB) but decodes to 15 MB, just under the 16 MiB
// decoded-bytes bound, and returns its path.
func bombPNGFile(t *testing.T) string {
	t.Helper()
	im := image.NewNRGBA64(image.Rect(0, 0, 1400, 1400))
	for i := range im.Pix {
		im.Pix[i] = byte(i * 7 % 251)
	}
	var b bytes.Buffer
	if err := png.Encode(&b, im); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "bomb.png")
	if err := os.WriteFile(path, b.Bytes(), 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

// smallPNG is an 8 × 8 grey image.
func smallPNG(t *testing.T) []byte {
	t.Helper()
	var b bytes.Buffer
	if err := png.Encode(&b, image.NewGray(image.Rect(0, 0, 8, 8))); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

// floodSockets opens n WebSockets on url, then sends 256 KiB frames of
// silence on each as fast as the server takes them, for d; it returns the
// bytes the server took. The sockets are opened first, on their own
// deadline: under the race detector opening 64 took over 5 s.
func floodSockets(t *testing.T, url string, n int, d time.Duration) int64 {
	t.Helper()
	dial, cancelDial := context.WithTimeout(context.Background(), time.Minute)
	defer cancelDial()
	var conns []*websocket.Conn
	for range n {
		c, _, err := websocket.Dial(dial, url, nil)
		if err != nil {
			t.Errorf("a flood socket: %v", err)
			continue
		}
		conns = append(conns, c)
	}
	ctx, cancel := context.WithTimeout(context.Background(), d)
	defer cancel()
	frame := make([]byte, streaming.MaxChunkBytes)
	var sent atomic.Int64
	var wg sync.WaitGroup
	for _, c := range conns {
		wg.Add(1)
		go func() {
			defer wg.Done()
			defer c.CloseNow()
			for c.Write(ctx, websocket.MessageBinary, frame) == nil {
				sent.Add(int64(len(frame)))
			}
		}()
	}
	wg.Wait()
	return sent.Load()
}

// containsAll reports whether each of wants is in one of the texts.
func containsAll(texts []string, wants ...string) bool {
	for _, w := range wants {
		if !slices.ContainsFunc(texts, func(s string) bool { return strings.Contains(s, w) }) {
			return false
		}
	}
	return true
}
