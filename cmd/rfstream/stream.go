package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"time"

	"github.com/rfstream/rfstream/engine"
	"github.com/rfstream/rfstream/frontend"
	"github.com/rfstream/rfstream/internal/defaults"
	"github.com/rfstream/rfstream/internal/localcreds"
	"github.com/rfstream/rfstream/internal/vosk"
	"github.com/rfstream/rfstream/streaming"
)

func init() {
	register(&command{name: "stream", summary: "stream a recording through the NATS pipeline and print live results", run: runStream})
}

// readAudio reads an audio file (WAV, SPHERE, FLAC, Ogg Vorbis or Opus,
// MP3: told apart by its header, not its name), or raw s16le PCM when
// rate is set ("-" is standard input).
func readAudio(path string, rate int, stdin io.Reader) (*frontend.Audio, error) {
	return readAudioUpTo(path, rate, 0, stdin)
}

// readAudioUpTo is readAudio refusing a recording longer than maxSeconds
// (0: no bound but the readers' own). Raw PCM is read only up to the bound
// and one sample more, so an endless input (/dev/zero) costs the bound's
// memory, not the machine's; an audio file is read up to 2 GiB and its
// decoder stops at the bound, so a small compressed file that unpacks to
// hours costs no more.
func readAudioUpTo(path string, rate int, maxSeconds float64, stdin io.Reader) (*frontend.Audio, error) {
	var r io.Reader = stdin
	if path != "-" {
		f, err := os.Open(path)
		if err != nil {
			return nil, err
		}
		defer f.Close()
		r = f
	}
	tooLong := func() error {
		return fmt.Errorf("%s: the recording is longer than the %g s --max-seconds allows; raise --max-seconds or cut it", path, maxSeconds)
	}
	if rate > 0 {
		limit := int64(1 << 30)
		if maxSeconds > 0 {
			limit = min(limit, 2*int64(maxSeconds*float64(rate)))
		}
		b, err := io.ReadAll(io.LimitReader(r, limit+2))
		if err != nil {
			return nil, err
		}
		if maxSeconds > 0 && int64(len(b)) > limit {
			return nil, tooLong()
		}
		return frontend.DecodePCM16(b, rate)
	}
	var a *frontend.Audio
	var err error
	if path == "-" {
		a, err = frontend.ReadAudioFromUpTo(r, maxSeconds)
	} else {
		a, err = frontend.ReadFileUpTo(path, maxSeconds)
	}
	switch {
	case errors.Is(err, frontend.ErrTooLong) && maxSeconds > 0:
		return nil, tooLong()
	case errors.Is(err, frontend.ErrUnknownFormat):
		// Raw samples have no header: say how to give them.
		return nil, fmt.Errorf("%s: %w (raw 16-bit PCM needs --rate)", path, err)
	case err != nil:
		return nil, fmt.Errorf("%s: %w", path, frontend.NamePath(err, path))
	}
	return a, nil
}

var stdin io.Reader = os.Stdin

func runStream(args []string, stdout, stderr io.Writer) error {
	fs := newFlagSet("stream", "FILE.wav|- [flags]", stderr)
	var nf natsFlags
	nf.register(fs, false)
	rate := fs.Int("rate", 0, "the input is raw signed 16-bit little-endian PCM at this rate")
	fast := fs.Bool("fast", false, "publish as fast as possible instead of in real time")
	asJSON := fs.Bool("json", false, "print one JSON result per line")
	format := registerFormat(fs)
	model := fs.String("model", "", "audio model for the embedded pipeline: a word model or a connected-word model (default: the connected digit model in the data cache, as recognize and serve use)")
	chunk := fs.Float64("chunk-ms", 100, "audio per message")
	voice := fs.String("voice", "", "the voice speaking: a pipeline's streams that name the same voice share its voice session, so with an adaptable word model each recording learns from that voice's earlier ones (a serve reached with --nats, or the embedded pipeline with --voices)")
	voices := fs.String("voices", "", "the embedded pipeline keeps named voices in this directory (as serve --voices), so --voice learns across runs")
	adaptable := fs.Bool("adaptable", false, adaptableUsage)
	maxSeconds := fs.Float64("max-seconds", 600, "refuse a recording longer than this many seconds (raw PCM is read no further), as recognize does, so an endless input such as /dev/zero stops with an error instead of filling memory")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if *maxSeconds <= 0 {
		return fmt.Errorf("stream: --max-seconds %g: want a positive length", *maxSeconds)
	}
	if err := nf.checkTLS(); err != nil {
		return err
	}
	f, err := outputFormat(*format, *asJSON)
	if err != nil {
		return err
	}
	if fs.NArg() != 1 {
		fs.Usage()
		return errUsage
	}
	if *voice != "" {
		if err := streaming.CheckName("voice", *voice); err != nil {
			return err
		}
	}
	if *voice != "" && *voices == "" && nf.serverURL() == "" {
		*voices = defaults.TaughtVoicesDir() // the embedded pipeline hears what enroll taught the voice
	}
	if *voices != "" {
		if nf.given("nats", nf.url) && nf.serverURL() != "" {
			return errors.New("--voices is for the embedded pipeline: give it to the serve that --nats reaches")
		}
		nf.embedded() // --voices asks for the embedded pipeline, whatever $NATS_URL says
	}
	a, err := readAudioUpTo(fs.Arg(0), *rate, *maxSeconds, stdin)
	if err != nil {
		return err
	}
	sess, err := nf.connect("rfstream stream", false, stderr)
	if err != nil {
		return err
	}
	defer sess.Close()
	if sess.embedded != nil {
		words, conn, err := liveAudioModel(*model, *adaptable, stderr)
		if err != nil {
			return err
		}
		st, err := streaming.Start(sess.nc, streaming.Pipeline{Name: nf.pipeline, Words: words, Connected: conn, Durable: nf.durable, VoiceDir: *voices},
			streaming.StageFrontend, streaming.StageFeatures, streaming.StageDecoder)
		if err != nil {
			return err
		}
		defer st.Close()
	}
	name := fmt.Sprintf("cli-%d-%d", os.Getpid(), time.Now().UnixNano())
	show := func(r engine.Result) { printResult(stdout, r, f == formatJSON) }
	var vp *vosk.Printer
	if f == formatVosk {
		vp = &vosk.Printer{W: stdout}
		show = func(r engine.Result) {
			if r.Error != "" {
				fmt.Fprintf(stderr, "rfstream stream: the pipeline reports: %s\n", r.Error)
			}
			vp.Add(r)
		}
	}
	last, err := streaming.StreamAudio(context.Background(), sess.nc, nf.pipeline, name, a,
		streaming.StreamOptions{ChunkMs: *chunk, RealTime: !*fast, Durable: nf.durable, Voice: *voice, Timeout: time.Duration(a.Duration()+30) * time.Second},
		show)
	if err != nil {
		return localcreds.RefusedHint(err, nf.url, nf.hasCredentials())
	}
	if vp != nil {
		vp.End()
	}
	if last.Error != "" {
		return fmt.Errorf("pipeline reported: %s", last.Error)
	}
	return nil
}

func printResult(w io.Writer, r engine.Result, asJSON bool) {
	if asJSON {
		b, _ := json.Marshal(r)
		fmt.Fprintln(w, string(b))
		return
	}
	switch {
	case r.Error != "":
		fmt.Fprintf(w, "error:   %s\n", r.Error)
	case r.EOS && r.NoSpeech:
		fmt.Fprintln(w, "end:     \"\" (no speech)")
	case r.EOS:
		fmt.Fprintf(w, "end:     %q", r.Text)
		for _, wd := range r.Words {
			word := wd.Word
			if wd.Rejected {
				word = "(not a digit)"
			}
			fmt.Fprintf(w, "  %s[%.2f-%.2fs %.0f%%]", word, wd.Start, wd.End, 100*wd.Conf)
		}
		fmt.Fprintln(w)
	case r.Final:
		fmt.Fprintf(w, "final:   %q\n", r.Text)
	default:
		fmt.Fprintf(w, "partial: %q\n", r.Text)
	}
}
