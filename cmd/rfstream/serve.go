package main

import (
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"os/signal"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/nats-io/nats.go"

	"github.com/rfstream/rfstream/frontend"
	"github.com/rfstream/rfstream/internal/enrol"
	"github.com/rfstream/rfstream/internal/linalg"
	"github.com/rfstream/rfstream/streaming"
)

func init() {
	register(&command{name: "serve", summary: "run pipeline stages on NATS (an embedded loopback server by default)", run: runServe})
}

func runServe(args []string, stdout, stderr io.Writer) error {
	sv, err := startServe(args, stdout, stderr)
	if err != nil {
		return err
	}
	sig := make(chan os.Signal, 1)
	signal.Notify(sig, os.Interrupt, syscall.SIGTERM)
	<-sig
	fmt.Fprintln(stderr, "stopping: draining in-flight messages")
	return sv.Close(stdout)
}

// serving is a running `rfstream serve`: its NATS session, its stages
// (each on a connection of its own: servestages.go) and, with --http, the
// web page.
type serving struct {
	sess   *session
	stages []stageConn
	shards int      // frontend and decoder shards in this process (--frontends)
	page   *webPage // nil without --http
}

// startServe parses serve's flags and starts everything; runServe waits
// for a signal, tests call Close.
func startServe(args []string, stdout, stderr io.Writer) (*serving, error) {
	fs := newFlagSet("serve", "[flags]", stderr)
	var nf natsFlags
	nf.register(fs, true)
	model := fs.String("model", "", "audio model: a word model or a connected-word model (default: the connected digit model in the data cache, as recognize and stream use; trained on first use)")
	adaptable := fs.Bool("adaptable", false, adaptableUsage)
	imgModel := fs.String("image-model", "", "image model (default: the MNIST model in the data cache)")
	shed := fs.Bool("shed-partials", true, "under a backlog, skip partial words whose stream already has a later segment waiting (final results are never skipped)")
	selfTrain := fs.Bool("session-self-train", true, "with an adaptable word model, each stream's voice session self-trains at 10, 20, 40, … words (each checkpoint costs a few seconds of CPU, and a stream's words wait for its rounds where they need them: turn it off for many long streams)")
	voices := fs.String("voices", "", "keep the sessions of named voices (the web page's browsers, stream --voice) in this directory, so they outlive the process (default: in memory only)")
	bySubject := fs.Bool("voices-by-subject", false, "a stream names its voice only by publishing on rfs.v1.<pipeline>.voice.<voice>.<stream>, never by the Rfs-Voice header, so NATS permissions on those subjects decide who may speak as which voice (docs/streaming.md)")
	maxEnded := fs.Int("max-ended", streaming.DefaultMaxEnded, "the most ended streams the frontend and decoder each remember, to drop late copies of their messages (oldest forgotten first; each is also forgotten 10 idle timeouts after its end)")
	maxStreams := fs.Int("max-streams", streaming.DefaultMaxStreams, "the most streams the frontend serves at once (per shard); a stream beyond it gets one end-of-stream error result, and the others are unaffected")
	idle := fs.Duration("idle-timeout", time.Minute, "a stream silent this long without its end-of-stream message is ended for it (the decoder waits twice as long for lost segments), with the words that arrived")
	ackWait := fs.Duration("ack-wait", streaming.DefaultAckWait, "with --durable: how long a features or tagger worker may hold a message before it goes to another worker (a killed worker's messages wait this long)")
	stages := fs.String("stages", strings.Join(streaming.AllStages, ","), "stages to run here: "+strings.Join(streaming.AllStages, ","))
	shard := fs.String("shard", "", "K/N: this process's frontend and decoder take the K-th (from 0) of N shares of the streams, by stream name or a voice's name (docs/streaming.md); run one such process for every K, all with the same N")
	frontends := fs.Int("frontends", 1, "run the frontend and decoder as this many shards in this process, each on its own connection, so streams are cut and decoded on that many cores at once (the Rfs-Voice header is then refused: voices are named by subject)")
	blasThreads := fs.Int("blas-threads", 0, blasThreadsUsage+"; 0: one when this process runs an audio stage, else the BLAS's own count (OPENBLAS_NUM_THREADS, or one a core)")
	procs := fs.Int("procs", 0, procsUsage)
	httpAddr := fs.String("http", "", "serve the web page (microphone and image tagging) at this address, e.g. 127.0.0.1:8080; a bare :PORT binds loopback")
	httpHosts := fs.String("http-host", "", "with --http: more host names (comma-separated) the page may be reached by, e.g. behind a proxy; requests naming any other host get 403, which stops DNS rebinding (the listen host, and for loopback 127.0.0.1, localhost and [::1], are always taken)")
	var sockets socketFlags
	sockets.register(fs)
	var admission admissionFlags
	admission.register(fs)
	if err := parseFlags(fs, args); err != nil {
		return nil, err
	}
	if err := sockets.check(); err != nil {
		return nil, err
	}
	if err := nf.checkTLS(); err != nil {
		return nil, err
	}
	// Ports are checked before the models load (which can take minutes on
	// first use), so a second serve on a busy port says so at once.
	if nf.url == "" && nf.port != 0 {
		if err := portFree(nf.port); err != nil {
			return nil, err
		}
	}
	var httpLn net.Listener
	if *httpAddr != "" {
		var err error
		if httpLn, err = listenWebPage(*httpAddr); err != nil {
			return nil, err
		}
		// Closed again on every failure below; Close owns it once served.
		defer func() {
			if httpLn != nil {
				httpLn.Close()
			}
		}()
	}
	names := strings.Split(*stages, ",")
	threads := *blasThreads
	if threads == 0 && !slices.Equal(names, []string{streaming.StageTagger}) {
		threads = 1
	}
	if err := setLiveBLASThreads(threads); err != nil {
		return nil, err
	}
	procsLine, err := setLiveProcs(*procs)
	if err != nil {
		return nil, err
	}
	p := streaming.Pipeline{Name: nf.pipeline, Durable: nf.durable, ShedPartials: *shed, NoSelfTrain: !*selfTrain, VoiceDir: *voices, VoicesBySubject: *bySubject, Version: version,
		MaxStreams: *maxStreams, MaxEnded: *maxEnded, IdleTimeout: *idle, AckWait: *ackWait}
	if err := admission.apply(&p); err != nil {
		return nil, err
	}
	switch {
	case *idle <= 0 || *ackWait <= 0:
		return nil, fmt.Errorf("--idle-timeout %v, --ack-wait %v: want positive durations", *idle, *ackWait)
	case *maxStreams < 1:
		return nil, fmt.Errorf("--max-streams %d: want at least 1", *maxStreams)
	case *maxEnded < 1:
		return nil, fmt.Errorf("--max-ended %d: want at least 1", *maxEnded)
	case *frontends < 1:
		return nil, fmt.Errorf("--frontends %d: want at least 1", *frontends)
	case *frontends > 1 && *shard != "":
		return nil, errors.New("--frontends and --shard split the same stages: give one (--shard K/N for a share of several processes)")
	case *shard != "":
		var err error
		if p.Shard, p.Shards, err = parseShard(*shard); err != nil {
			return nil, err
		}
	default:
		p.Shards = *frontends
	}
	for _, n := range names {
		switch n {
		case streaming.StageFrontend, streaming.StageFeatures, streaming.StageDecoder:
			if p.Words == nil && p.Connected == nil {
				w, c, err := liveAudioModel(*model, *adaptable, stderr)
				if err != nil {
					return nil, err
				}
				p.Words, p.Connected = w, c
			}
		case streaming.StageTagger:
			t, err := imageModel(*imgModel, stderr)
			if err != nil {
				return nil, err
			}
			p.Images = t
		default:
			return nil, fmt.Errorf("unknown stage %q (known: %s)", n, strings.Join(streaming.AllStages, ", "))
		}
	}
	sess, err := nf.connect("rfstream serve", true, stderr)
	if err != nil {
		return nil, err
	}
	if sess.embedded != nil && sess.embedded.Confined() {
		// A client's streams are its voice's (its namespace): the header
		// would let it name another's.
		p.VoicesBySubject = true
	}
	shards := []int{p.Shard}
	if *frontends > 1 {
		shards = make([]int, *frontends)
		for k := range shards {
			shards[k] = k
		}
	}
	sv := &serving{sess: sess, shards: len(shards)}
	sv.stages, err = startStageConns(p, names, shards, func(name string) (*nats.Conn, error) { return nf.another(sess, name) })
	if err != nil {
		sv.Close(io.Discard)
		return nil, err
	}
	if sess.embedded != nil && p.Durable {
		sess.embedded.OnStoreFault(streaming.StoreFaults(stderr, sv.stage("")...))
	}
	fmt.Fprintf(stdout, "serving pipeline %q, stages %s; subjects %s\n", p.Name, strings.Join(names, ","), streaming.Subject(p.Name, "*", "<stream>"))
	fmt.Fprintf(stdout, "BLAS: %s, threads per call: %d; %s\n", linalg.Backend, linalg.Threads(), procsLine)
	switch {
	case sv.shards > 1:
		fmt.Fprintf(stdout, "frontend and decoder as %d shards in this process\n", p.Shards)
	case p.Shards > 1:
		fmt.Fprintf(stdout, "frontend and decoder: shard %d of %d (streams and voices by streaming.ShardOf)\n", p.Shard, p.Shards)
	}
	if *httpAddr != "" {
		var audio frontend.AudioConfig // the speech model's frontend: its rate and the frames the page draws
		switch {
		case p.Words != nil:
			audio = p.Words.Config.Audio
		case p.Connected != nil:
			audio = p.Connected.Input.Audio
		}
		learns := p.Words != nil && p.Words.Model.Adapt != nil && p.Words.Model.Adapt.VoiceNorm
		if sv.page, err = startWebPage(*httpAddr, httpLn, strings.Split(*httpHosts, ","), sess.nc, p.Name, audio, learns, enrol.PageTeacher(p.Connected, p.VoiceDir), sockets, stderr); err != nil {
			sv.Close(io.Discard)
			return nil, err
		}
		httpLn = nil // the page's server closes it
		fmt.Fprintf(stdout, "web page on %s\n", sv.page.URL)
		fmt.Fprintf(stdout, "Vosk WebSocket on %s\n", sv.page.VoskURL)
	}
	return sv, nil
}

// Close stops the page, drains the stages and reports their counters.
func (sv *serving) Close(stdout io.Writer) error {
	if sv.page != nil {
		sv.page.Close()
	}
	err := closeStageConns(sv.stages)
	s := sv.stats()
	fmt.Fprintf(stdout, "handled %d audio and image messages and %d word vectors (%d partials shed): %d errors, %d duplicates, %d lost\n",
		s.Messages, s.Vectors, s.Shed, s.Errors, s.Duplicates, s.Lost)
	if s.StorageErrors > 0 {
		fmt.Fprintf(stdout, "%d voice file reads or writes failed, the last: %s\n", s.StorageErrors, s.StorageError)
	}
	sv.sess.Close()
	if errors.Is(err, os.ErrClosed) {
		return nil
	}
	return err
}

// portFree checks that the embedded server's loopback port is free: a
// port in use is refused naming it, rather than found out after the models
// have loaded.
func portFree(port int) error {
	addr := net.JoinHostPort("127.0.0.1", strconv.Itoa(port))
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return fmt.Errorf("--port %d: %w (is another rfstream serve running? --port 0 picks a free port)", port, err)
	}
	return ln.Close()
}

// parseShard reads --shard K/N.
func parseShard(v string) (k, n int, err error) {
	ks, ns, ok := strings.Cut(v, "/")
	k, err1 := strconv.Atoi(ks)
	n, err2 := strconv.Atoi(ns)
	if !ok || err1 != nil || err2 != nil || n < 1 || k < 0 || k >= n {
		return 0, 0, fmt.Errorf("--shard %q: want K/N with 0 ≤ K < N, e.g. 0/2", v)
	}
	return k, n, nil
}

const blasThreadsUsage = "threads per BLAS call, whatever OPENBLAS_NUM_THREADS says: the stages already run side by side and a live stream's products are small, so on the 2-core project machine a second thread per call mostly spun on a core the other stages needed (at 300 streams p50 latency halved with one); more help the tagger's throughput (docs/streaming.md)"

// setLiveBLASThreads sets the BLAS threads of a process that runs live
// stages; 0 leaves them as they are.
func setLiveBLASThreads(n int) error {
	if n < 0 {
		return fmt.Errorf("--blas-threads %d: want 1 or more (0: the default)", n)
	}
	linalg.SetThreads(n)
	return nil
}
