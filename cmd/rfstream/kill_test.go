package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"

	"github.com/rfstream/rfstream/engine"
	"github.com/rfstream/rfstream/frontend"
	"github.com/rfstream/rfstream/internal/testproc"
	"github.com/rfstream/rfstream/internal/toymodels"
	"github.com/rfstream/rfstream/streaming"
)

// Fault tests with real processes: a nats-server, and every stage as an
// `rfstream serve --stages X` process of its own, built from this
// checkout. One process is killed with SIGKILL in the middle
// of a real-time stream and started again, and the test checks which words
// reach the stream's end-of-stream result: every word the result holds is
// one the undisturbed pipeline hears, at the same times, and every word it
// lacks lies in a gap the result reports.

var builtCLI struct {
	once sync.Once
	path string
	err  error
}

// cliBinary builds rfstream from this checkout once per test run.
func cliBinary(t *testing.T) string {
	t.Helper()
	builtCLI.once.Do(func() {
		dir, err := os.MkdirTemp("", "rfstream-cli-")
		if err != nil {
			builtCLI.err = err
			return
		}
		builtCLI.path = filepath.Join(dir, "rfstream")
		out, err := exec.Command("go", "build", "-o", builtCLI.path, "github.com/rfstream/rfstream/cmd/rfstream").CombinedOutput()
		if err != nil {
			builtCLI.err = fmt.Errorf("building rfstream: %v: %s", err, out)
		}
	})
	if builtCLI.err != nil {
		t.Fatal(builtCLI.err)
	}
	return builtCLI.path
}

// natsServerBinary finds nats-server (installed by .ci/run), or skips.
func natsServerBinary(t *testing.T) string {
	t.Helper()
	if p, err := exec.LookPath("nats-server"); err == nil {
		return p
	}
	if _, err := os.Stat("/usr/sbin/nats-server"); err == nil {
		return "/usr/sbin/nats-server"
	}
	t.Skip("nats-server is not installed (apt-get install nats-server; .ci/run does)")
	return ""
}

// proc is a child process with its output kept for failure messages.
type proc struct {
	cmd *exec.Cmd
	out *syncBuffer
}

type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

func startProc(t *testing.T, ready string, path string, args ...string) *proc {
	t.Helper()
	p := &proc{cmd: testproc.Command(path, args...), out: &syncBuffer{}}
	p.cmd.Stdout, p.cmd.Stderr = p.out, p.out
	if err := p.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(p.kill)
	for deadline := time.Now().Add(20 * time.Second); !strings.Contains(p.out.String(), ready); time.Sleep(10 * time.Millisecond) {
		if time.Now().After(deadline) || p.cmd.ProcessState != nil {
			t.Fatalf("%s %v not ready in 20 s:\n%s", path, args, p.out.String())
		}
	}
	return p
}

// kill sends SIGKILL and reaps the process.
func (p *proc) kill() {
	if p.cmd.ProcessState == nil {
		p.cmd.Process.Signal(syscall.SIGKILL)
		p.cmd.Wait()
	}
}

func freePort(t *testing.T) int {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port
}

// faultRig is a nats-server and one serve process per audio stage.
type faultRig struct {
	t            *testing.T
	natsBin, cli string
	port         int
	store, model string
	durable      bool
	server       *proc
	stages       map[string]*proc
	url          string
}

func newFaultRig(t *testing.T, durable bool) *faultRig {
	t.Helper()
	words, err := toymodels.Words()
	if err != nil {
		t.Fatal(err)
	}
	model, _ := toyFiles(t, words.Model)
	r := &faultRig{t: t, natsBin: natsServerBinary(t), cli: cliBinary(t), port: freePort(t), store: t.TempDir(), model: model,
		durable: durable, stages: map[string]*proc{}}
	r.url = "nats://127.0.0.1:" + strconv.Itoa(r.port)
	r.startServer()
	for _, s := range []string{streaming.StageFrontend, streaming.StageFeatures, streaming.StageDecoder} {
		r.startStage(s)
	}
	return r
}

func (r *faultRig) startServer() {
	args := []string{"-a", "127.0.0.1", "-p", strconv.Itoa(r.port)}
	if r.durable {
		args = append(args, "-js", "-sd", r.store)
	}
	r.server = startProc(r.t, "Server is ready", r.natsBin, args...)
}

func (r *faultRig) startStage(stage string) {
	args := []string{"serve", "--nats", r.url, "--stages", stage, "--model", r.model, "--idle-timeout", "1s"}
	if r.durable {
		args = append(args, "--durable", "--ack-wait", "1s")
	}
	r.stages[stage] = startProc(r.t, "serving pipeline", r.cli, args...)
}

// stream sends audio in real time through the rig as a client of its own,
// runs fault faultAt into the stream, and returns the end-of-stream result
// and every result the client got, the end-of-stream one included.
func (r *faultRig) stream(name string, a *frontend.Audio, faultAt time.Duration, fault func()) (engine.Result, []engine.Result, error) {
	nc, err := nats.Connect(r.url, nats.MaxReconnects(-1), nats.ReconnectWait(100*time.Millisecond))
	if err != nil {
		r.t.Fatal(err)
	}
	defer nc.Close()
	type outcome struct {
		r   engine.Result
		err error
	}
	var mu sync.Mutex
	var all []engine.Result
	done := make(chan outcome, 1)
	go func() {
		ctx, cancel := context.WithTimeout(context.Background(), 40*time.Second)
		defer cancel()
		res, err := streaming.StreamAudio(ctx, nc, "rfs", name, a, streaming.StreamOptions{RealTime: true, Durable: r.durable, Timeout: 15 * time.Second},
			func(res engine.Result) {
				mu.Lock()
				all = append(all, res)
				mu.Unlock()
			})
		done <- outcome{res, err}
	}()
	time.Sleep(faultAt)
	fault()
	o := <-done
	// Results after the end-of-stream one would come at once: a second
	// end-of-stream result is looked for a moment longer.
	time.Sleep(200 * time.Millisecond)
	mu.Lock()
	defer mu.Unlock()
	return o.r, append([]engine.Result(nil), all...), o.err
}

// connect opens a client connection to the rig's server.
func (r *faultRig) connect() *nats.Conn {
	nc, err := nats.Connect(r.url)
	if err != nil {
		r.t.Fatal(err)
	}
	return nc
}

// finish sends a through the rig at full speed as stream name and returns
// its end-of-stream result.
func (r *faultRig) finish(name string, a *frontend.Audio) engine.Result {
	nc := r.connect()
	defer nc.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	res, err := streaming.StreamAudio(ctx, nc, "rfs", name, a, streaming.StreamOptions{Durable: r.durable, Timeout: 10 * time.Second}, nil)
	if err != nil {
		r.t.Fatalf("stream %s: %v", name, err)
	}
	return res
}

// storedEOS counts the end-of-stream results stored for stream name in a
// durable rig.
func (r *faultRig) storedEOS(name string) int {
	nc := r.connect()
	defer nc.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	js, err := jetstream.New(nc)
	if err != nil {
		r.t.Fatal(err)
	}
	store, err := js.Stream(ctx, streaming.StreamName("rfs"))
	if err != nil {
		r.t.Fatal(err)
	}
	n := 0
	for seq := uint64(1); ; {
		m, err := store.GetMsg(ctx, seq, jetstream.WithGetMsgSubject(streaming.ResultSubject("rfs", "", name)))
		if errors.Is(err, jetstream.ErrMsgNotFound) {
			return n
		}
		if err != nil {
			r.t.Fatal(err)
		}
		if m.Header.Get(streaming.HdrEOS) == "1" {
			n++
		}
		seq = m.Sequence + 1
	}
}

// restartServer kills the NATS server with SIGKILL and starts it again,
// with the same store, downFor later.
func (r *faultRig) restartServer(downFor time.Duration) {
	r.server.kill()
	time.Sleep(downFor)
	r.startServer()
}

// checkKept checks an end-of-stream result against the undisturbed one:
// each word it holds is an undisturbed word (label and times), in order,
// and each undisturbed word it lacks lies within a gap it reports. It
// returns how many words were kept.
func checkKept(t *testing.T, got, want engine.Result) int {
	t.Helper()
	j := 0
	for _, w := range want.Words {
		if j < len(got.Words) && got.Words[j].Word == w.Word && got.Words[j].Start == w.Start && got.Words[j].End == w.End {
			j++
			continue
		}
		inGap := false
		for _, g := range got.Gaps {
			inGap = inGap || (g.Start <= w.Start+1e-9 && (g.End == nil || w.End <= *g.End+1e-9))
		}
		if !inGap {
			t.Errorf("word %+v is neither kept nor in a reported gap: %+v", w, got)
		}
	}
	if j != len(got.Words) {
		t.Errorf("words %+v are not the undisturbed %+v", got.Words, want.Words)
	}
	return j
}

// undisturbed is what the pipeline hears in a without a fault.
func undisturbed(t *testing.T, a *frontend.Audio) engine.Result {
	t.Helper()
	words, err := toymodels.Words()
	if err != nil {
		t.Fatal(err)
	}
	sp, err := engine.NewWordSpotter(words, engine.DefaultSpotterConfig(), a.Rate)
	if err != nil {
		t.Fatal(err)
	}
	rs := append(sp.Push(a.Samples), sp.Flush()...)
	return rs[len(rs)-1]
}

// Each stage process, and the NATS server, killed with SIGKILL 1.3 s into
// a 4.7 s real-time stream of four words and started again downFor later,
// with and without --durable: the stream gets exactly one end-of-stream
// result, whose words are undisturbed ones (label and times) and whose
// gaps hold every word it lacks; with --durable no fault loses a word
// (a restarted frontend or decoder takes the stream up from the store)
// and a stream that ended before the fault is not taken up again. The words kept per fault are
// logged (docs/streaming.md, "What a fault costs").
func TestFaultsWithRealProcesses(t *testing.T) {
	const downFor = 700 * time.Millisecond // the second word's end falls in it
	if testing.Short() {
		t.Skip("real processes, about 10 s a fault")
	}
	var pcm []float32
	for range 2 {
		pcm = append(pcm, toymodels.UpDown()...)
	}
	a := &frontend.Audio{Rate: 8000, Samples: pcm}
	want := undisturbed(t, a)
	if len(want.Words) != 4 {
		t.Fatalf("undisturbed: %+v", want)
	}
	for _, c := range []struct {
		name    string
		durable bool
		kill    string // a stage, or "" for the NATS server
		all     bool   // every word must survive
	}{
		{"features", false, streaming.StageFeatures, false},
		{"features-durable", true, streaming.StageFeatures, true},
		{"decoder", false, streaming.StageDecoder, false},
		{"decoder-durable", true, streaming.StageDecoder, true},
		{"frontend", false, streaming.StageFrontend, false},
		{"frontend-durable", true, streaming.StageFrontend, true},
		{"nats-server", false, "", false},
		{"nats-server-durable", true, "", true},
	} {
		t.Run(c.name, func(t *testing.T) {
			r := newFaultRig(t, c.durable)
			if c.durable {
				// A stream that ended before the fault: a stage started
				// again must not take it up from the store.
				r.finish("ended", &frontend.Audio{Rate: 8000, Samples: toymodels.UpDown()})
			}
			start := time.Now()
			got, all, err := r.stream("f", a, 1300*time.Millisecond, func() {
				if c.kill == "" {
					r.restartServer(downFor)
					return
				}
				r.stages[c.kill].kill()
				time.Sleep(downFor)
				r.startStage(c.kill)
			})
			took := time.Since(start)
			if err != nil {
				logs := ""
				for name, p := range r.stages {
					logs += name + ":\n" + p.out.String()
				}
				t.Fatalf("%v after %v; the stages said:\n%s", err, took, logs)
			}
			eos := 0
			for _, res := range all {
				if res.EOS {
					eos++
				}
			}
			if eos != 1 {
				t.Errorf("%d end-of-stream results, want exactly one: %+v", eos, all)
			}
			if c.durable {
				if n := r.storedEOS("ended"); n != 1 {
					t.Errorf("the stream that ended before the fault has %d end-of-stream results stored, want 1", n)
				}
			}
			kept := checkKept(t, got, want)
			if t.Failed() {
				for _, res := range all {
					t.Logf("result %+v", res)
				}
			}
			what := "NATS server restarted"
			if c.kill != "" {
				what = c.kill + " killed"
			}
			t.Logf("%s (durable %v): %d of %d words kept, gaps %s, end-of-stream result after %v", what, c.durable, kept, len(want.Words), gapsText(got.Gaps), took)
			if c.all && (kept != len(want.Words) || len(got.Gaps) > 0) {
				t.Errorf("with --durable every word survives: %+v", got)
			}
		})
	}
}

// gapsText lists gaps as start-end spans for the log.
func gapsText(gaps []engine.Gap) string {
	var b strings.Builder
	for _, g := range gaps {
		end := "?"
		if g.End != nil {
			end = strconv.FormatFloat(*g.End, 'f', 2, 64)
		}
		fmt.Fprintf(&b, "[%.2f-%s] ", g.Start, end)
	}
	return strings.TrimSpace(b.String())
}
