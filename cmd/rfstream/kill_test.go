package main

import (
	"bytes"
	"context"
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

	"github.com/rfstream/rfstream"
	"github.com/rfstream/rfstream/frontend"
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
	p := &proc{cmd: exec.Command(path, args...), out: &syncBuffer{}}
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
// runs fault faultAt into the stream, and returns the end-of-stream result.
func (r *faultRig) stream(name string, a *frontend.Audio, faultAt time.Duration, fault func()) (rfstream.Result, error) {
	nc, err := nats.Connect(r.url, nats.MaxReconnects(-1), nats.ReconnectWait(100*time.Millisecond))
	if err != nil {
		r.t.Fatal(err)
	}
	defer nc.Close()
	type outcome struct {
		r   rfstream.Result
		err error
	}
	done := make(chan outcome, 1)
	go func() {
		ctx, cancel := context.WithTimeout(context.Background(), 40*time.Second)
		defer cancel()
		res, err := streaming.StreamAudio(ctx, nc, "rfs", name, a, streaming.StreamOptions{RealTime: true, Durable: r.durable, Timeout: 15 * time.Second}, nil)
		done <- outcome{res, err}
	}()
	time.Sleep(faultAt)
	fault()
	o := <-done
	return o.r, o.err
}

// checkKept checks an end-of-stream result against the undisturbed one:
// each word it holds is an undisturbed word (label and times), in order,
// and each undisturbed word it lacks lies within a gap it reports. It
// returns how many words were kept.
func checkKept(t *testing.T, got, want rfstream.Result) int {
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
func undisturbed(t *testing.T, a *frontend.Audio) rfstream.Result {
	t.Helper()
	words, err := toymodels.Words()
	if err != nil {
		t.Fatal(err)
	}
	sp, err := rfstream.NewWordSpotter(words, rfstream.DefaultSpotterConfig(), a.Rate)
	if err != nil {
		t.Fatal(err)
	}
	rs := append(sp.Push(a.Samples), sp.Flush()...)
	return rs[len(rs)-1]
}

// Each stage process killed with SIGKILL 1.3 s into a 4.7 s real-time
// stream of four words and started again downFor later, the features
// worker with and without --durable: the stream still gets its
// end-of-stream result, whose words are undisturbed ones and whose gaps
// hold every word it lacks (a killed frontend: see there). The words kept per fault are logged
// (docs/streaming.md, "What a fault costs").
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
		kill    string
		all     bool // every word must survive
	}{
		{"features", false, streaming.StageFeatures, false},
		{"features-durable", true, streaming.StageFeatures, true},
		{"decoder", false, streaming.StageDecoder, false},
		{"frontend", false, streaming.StageFrontend, false},
	} {
		t.Run(c.name, func(t *testing.T) {
			r := newFaultRig(t, c.durable)
			start := time.Now()
			got, err := r.stream("f", a, 1300*time.Millisecond, func() {
				r.stages[c.kill].kill()
				time.Sleep(downFor)
				r.startStage(c.kill)
			})
			if err != nil {
				logs := ""
				for name, p := range r.stages {
					logs += name + ":\n" + p.out.String()
				}
				t.Fatalf("%v after %v; the stages said:\n%s", err, time.Since(start), logs)
			}
			if c.kill == streaming.StageFrontend {
				// A new frontend knows nothing of the audio before it
				// started: it hears the words after it, but counts their
				// times from its first message (docs/streaming.md).
				last := want.Words[len(want.Words)-1]
				if n := len(got.Words); n == 0 || got.Words[n-1].Word != last.Word {
					t.Fatalf("after a killed frontend: %+v, want the last word %q heard", got, last.Word)
				}
				t.Logf("kill frontend: words %+v (undisturbed %+v)", got.Words, want.Words)
				return
			}
			kept := checkKept(t, got, want)
			t.Logf("kill %s (durable %v): %d of %d words kept, %d gaps, end-of-stream result after %v", c.kill, c.durable, kept, len(want.Words), len(got.Gaps), time.Since(start))
			if c.all && kept != len(want.Words) {
				t.Errorf("with --durable every word survives a killed %s: %+v", c.kill, got)
			}
		})
	}
}
