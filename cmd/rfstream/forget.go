package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"time"

	"github.com/rfstream/rfstream/engine"
	"github.com/rfstream/rfstream/streaming"
)

func init() {
	register(&command{name: "forget", summary: "forget a named voice: in a running pipeline (--nats) or in a voice directory (--voices)", run: runForget})
}

// runForget forgets a voice the way the web page's button does, from the
// command line: through a running pipeline (the frontend stage drops it
// from memory and deletes its file), or, with no pipeline running, in a
// voice directory, for every model that kept it.
func runForget(args []string, stdout, stderr io.Writer) error {
	fs := newFlagSet("forget", "VOICE (--nats URL | --voices DIR) [flags]", stderr)
	var nf natsFlags
	nf.register(fs, false)
	voices := fs.String("voices", "", "delete the voice's files in this directory (serve --voices, stream --voices, recognize --voices), for every model; no serve may be using it")
	timeout := fs.Duration("timeout", 10*time.Second, "with --nats: how long to wait for the frontend stage's answer")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if err := nf.checkTLS(); err != nil {
		return err
	}
	if fs.NArg() != 1 {
		fs.Usage()
		return errUsage
	}
	name := fs.Arg(0)
	if err := streaming.CheckName("voice", name); err != nil {
		return err
	}
	url := nf.serverURL()
	if *voices != "" && !nf.given("nats", nf.url) {
		url = "" // --voices names the directory; $NATS_URL is only a default
	}
	switch {
	case (url == "") == (*voices == ""):
		return errors.New("give --nats (or $NATS_URL), to reach the pipeline that holds the voice (a running serve), or --voices, the directory a stopped one kept it in")
	case url != "":
		sess, err := nf.connect("rfstream forget", false, stderr)
		if err != nil {
			return err
		}
		defer sess.Close()
		ctx, cancel := context.WithTimeout(context.Background(), *timeout)
		defer cancel()
		known, err := streaming.ForgetVoice(ctx, sess.nc, nf.pipeline, name)
		if err != nil {
			return err
		}
		if known {
			fmt.Fprintf(stdout, "forgot voice %q in pipeline %q\n", name, nf.pipeline)
		} else {
			fmt.Fprintf(stdout, "pipeline %q holds nothing of voice %q\n", nf.pipeline, name)
		}
		return nil
	}
	models, err := os.ReadDir(*voices)
	if err != nil {
		return err
	}
	removed := 0
	for _, m := range models {
		if !m.IsDir() {
			continue
		}
		n, err := engine.RemoveVoiceFiles(filepath.Join(*voices, m.Name()), name)
		removed += n
		if err != nil {
			return err
		}
	}
	if removed == 0 {
		fmt.Fprintf(stdout, "%s holds nothing of voice %q\n", *voices, name)
	} else {
		fmt.Fprintf(stdout, "forgot voice %q: removed %d file(s) from %s\n", name, removed, *voices)
	}
	return nil
}
