package main

import (
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strings"
	"syscall"

	"github.com/rfstream/rfstream/streaming"
)

func init() {
	register(&command{name: "serve", summary: "run pipeline stages on NATS (an embedded loopback server by default)", run: runServe})
}

func runServe(args []string, stdout, stderr io.Writer) error {
	fs := newFlagSet("serve", "[flags]", stderr)
	var nf natsFlags
	nf.register(fs, true)
	model := fs.String("model", "", "word model (default: the digit model in the data cache, trained on first use)")
	imgModel := fs.String("image-model", "", "image model (default: the MNIST model in the data cache)")
	shed := fs.Bool("shed-partials", true, "under a backlog, skip partial words whose stream already has a later segment waiting (final results are never skipped)")
	stages := fs.String("stages", strings.Join(streaming.AllStages, ","), "stages to run here: "+strings.Join(streaming.AllStages, ","))
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	names := strings.Split(*stages, ",")
	p := streaming.Pipeline{Name: nf.pipeline, Durable: nf.durable, ShedPartials: *shed}
	for _, n := range names {
		switch n {
		case streaming.StageFrontend, streaming.StageFeatures, streaming.StageDecoder:
			if p.Words == nil {
				w, err := digitModel(*model, stderr)
				if err != nil {
					return err
				}
				p.Words = w
			}
		case streaming.StageTagger:
			t, err := imageModel(*imgModel, stderr)
			if err != nil {
				return err
			}
			p.Images = t
		default:
			return fmt.Errorf("unknown stage %q (known: %s)", n, strings.Join(streaming.AllStages, ", "))
		}
	}
	sess, err := nf.connect("rfstream serve", true, stderr)
	if err != nil {
		return err
	}
	defer sess.Close()
	st, err := streaming.Start(sess.nc, p, names...)
	if err != nil {
		return err
	}
	fmt.Fprintf(stdout, "serving pipeline %q, stages %s; subjects %s\n", p.Name, strings.Join(names, ","), streaming.Subject(p.Name, "*", "<stream>"))
	sig := make(chan os.Signal, 1)
	signal.Notify(sig, os.Interrupt, syscall.SIGTERM)
	<-sig
	fmt.Fprintln(stderr, "stopping: draining in-flight messages")
	err = st.Close()
	s := st.Stats()
	fmt.Fprintf(stdout, "handled %d audio and image messages and %d word vectors (%d partials shed): %d errors, %d duplicates, %d lost\n",
		s.Messages, s.Vectors, s.Shed, s.Errors, s.Duplicates, s.Lost)
	if errors.Is(err, os.ErrClosed) {
		return nil
	}
	return err
}
