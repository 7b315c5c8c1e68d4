package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"github.com/rfstream/rfstream/internal/imagebatch"
	"github.com/rfstream/rfstream/streaming"
)

func init() {
	register(&command{name: "tag", summary: "tag images (a folder, image files or an IDX file) through the NATS pipeline", run: runTag})
}

func runTag(args []string, stdout, stderr io.Writer) error {
	fs := newFlagSet("tag", "DIR|FILE.idx|IMAGE… [flags]", stderr)
	var nf natsFlags
	nf.register(fs, false)
	model := fs.String("model", "", "image model for the embedded pipeline (default: the MNIST model in the data cache)")
	limit := fs.Int("limit", 0, "tag at most this many images (0: all)")
	asJSON := fs.Bool("json", false, "print one JSON object per image")
	quiet := fs.Bool("quiet", false, "print only the summary")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if err := nf.checkTLS(); err != nil {
		return err
	}
	if fs.NArg() == 0 {
		fs.Usage()
		return errUsage
	}
	batch, err := imagebatch.Load(fs.Args(), *limit)
	if err != nil {
		return err
	}
	if len(batch.Names) == 0 {
		// Exit 0 with "tagged 0 images" read as success to a script.
		return fmt.Errorf("no images to tag in %s (PNG, JPEG and PGM files, or an IDX image file)", strings.Join(fs.Args(), ", "))
	}
	sess, err := nf.connect("rfstream tag", false, stderr)
	if err != nil {
		return err
	}
	defer sess.Close()
	if sess.embedded != nil {
		tagger, err := imageModel(*model, stderr)
		if err != nil {
			return err
		}
		st, err := streaming.Start(sess.nc, streaming.Pipeline{Name: nf.pipeline, Images: tagger, Durable: nf.durable}, streaming.StageTagger)
		if err != nil {
			return err
		}
		defer st.Close()
	}
	start := time.Now()
	name := fmt.Sprintf("tag-%d-%d", os.Getpid(), time.Now().UnixNano())
	// Only the images that passed the checks go out; the others' replies
	// are their reasons.
	var payloads [][]byte
	var index []int
	replies := make([]streaming.TagsMessage, len(batch.Names))
	for i, why := range batch.Failed {
		if why != "" {
			replies[i] = streaming.TagsMessage{Seq: i, Error: why}
			continue
		}
		payloads, index = append(payloads, batch.Payloads[i]), append(index, i)
	}
	tagged, err := streaming.TagImages(context.Background(), sess.nc, nf.pipeline, name, payloads, batch.Raw, time.Minute)
	if err != nil {
		return err
	}
	for j, r := range tagged {
		r.Seq = index[j]
		replies[index[j]] = r
	}
	sec := time.Since(start).Seconds()
	return imagebatch.Report(stdout, batch, replies, sec, *asJSON, *quiet)
}
