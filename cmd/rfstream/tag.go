package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/rfstream/rfstream/frontend"
	"github.com/rfstream/rfstream/streaming"
)

func init() {
	register(&command{name: "tag", summary: "tag images (a folder, image files or an IDX file) through the NATS pipeline", run: runTag})
}

// imageBatch is what tag publishes: payloads, their names, and labels
// when the source has them.
type imageBatch struct {
	names    []string
	payloads [][]byte
	raw      bool
	labels   []int
}

// loadImages reads an IDX image file (with its labels beside it when
// found), image files, or every image file in a folder.
func loadImages(paths []string, limit int) (*imageBatch, error) {
	b := &imageBatch{}
	for _, p := range paths {
		st, err := os.Stat(p)
		if err != nil {
			return nil, err
		}
		if st.IsDir() {
			ents, err := os.ReadDir(p)
			if err != nil {
				return nil, err
			}
			var files []string
			for _, e := range ents {
				ext := strings.ToLower(filepath.Ext(e.Name()))
				if !e.IsDir() && (ext == ".png" || ext == ".jpg" || ext == ".jpeg" || ext == ".gif" || ext == ".pgm") {
					files = append(files, filepath.Join(p, e.Name()))
				}
			}
			sort.Strings(files)
			sub, err := loadImages(files, limit-len(b.names))
			if err != nil {
				return nil, err
			}
			b.names, b.payloads = append(b.names, sub.names...), append(b.payloads, sub.payloads...)
			continue
		}
		if f, err := frontend.ReadIDX(p); err == nil && len(f.Dims) == 3 {
			n, px := f.Dims[0], f.Dims[1]*f.Dims[2]
			if limit > 0 {
				n = min(n, limit)
			}
			for i := 0; i < n; i++ {
				b.names = append(b.names, fmt.Sprintf("%s#%d", filepath.Base(p), i))
				b.payloads = append(b.payloads, f.Data[i*px:(i+1)*px])
			}
			b.raw = true
			if lp := labelsBeside(p); lp != "" {
				if l, err := frontend.ReadIDXLabels(lp); err == nil && len(l) >= n {
					b.labels = l[:n]
				}
			}
			continue
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return nil, err
		}
		b.names, b.payloads = append(b.names, p), append(b.payloads, data)
	}
	if limit > 0 && len(b.names) > limit {
		b.names, b.payloads = b.names[:limit], b.payloads[:limit]
	}
	return b, nil
}

// labelsBeside guesses the label file of an MNIST-style image file.
func labelsBeside(p string) string {
	lp := strings.Replace(p, "images-idx3", "labels-idx1", 1)
	if lp == p {
		return ""
	}
	if _, err := os.Stat(lp); err != nil {
		return ""
	}
	return lp
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
	batch, err := loadImages(fs.Args(), *limit)
	if err != nil {
		return err
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
	replies, err := streaming.TagImages(context.Background(), sess.nc, nf.pipeline, name, batch.payloads, batch.raw, time.Minute)
	if err != nil {
		return err
	}
	sec := time.Since(start).Seconds()
	return reportTags(stdout, batch, replies, sec, *asJSON, *quiet)
}

func reportTags(w io.Writer, batch *imageBatch, replies []streaming.TagsMessage, sec float64, asJSON, quiet bool) error {
	correct, errs := 0, 0
	for i, r := range replies {
		if r.Error != "" {
			errs++
		}
		ok := ""
		if batch.labels != nil && r.Error == "" {
			if r.Tags[0].Label == fmt.Sprint(batch.labels[i]) {
				correct++
			} else {
				ok = fmt.Sprintf("  ✗ (true %d)", batch.labels[i])
			}
		}
		switch {
		case asJSON:
			b, _ := json.Marshal(struct {
				Name string `json:"name"`
				streaming.TagsMessage
			}{batch.names[i], r})
			fmt.Fprintln(w, string(b))
		case quiet:
		case r.Error != "":
			fmt.Fprintf(w, "%s: error: %s\n", batch.names[i], r.Error)
		default:
			fmt.Fprintf(w, "%s:", batch.names[i])
			for _, t := range r.Tags {
				fmt.Fprintf(w, " %s %.0f%%", t.Label, 100*t.Score)
			}
			fmt.Fprintln(w, ok)
		}
	}
	if !asJSON {
		fmt.Fprintf(w, "tagged %d images in %.2fs (%.0f images/s), %d errors", len(replies), sec, float64(len(replies))/sec, errs)
		if batch.labels != nil {
			fmt.Fprintf(w, "; top-1 accuracy %.2f%%", 100*float64(correct)/float64(len(replies)))
		}
		fmt.Fprintln(w)
	}
	return nil
}
