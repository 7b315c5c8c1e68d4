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
// when the source has them. An image refused before publishing has no
// payload and its reason in failed.
type imageBatch struct {
	names    []string
	payloads [][]byte
	failed   []string
	raw      bool
	labels   []int
}

// add appends one image file's payload, or the reason it cannot be tagged.
func (b *imageBatch) add(name string, data []byte, failed string) {
	b.names, b.payloads, b.failed = append(b.names, name), append(b.payloads, data), append(b.failed, failed)
}

// looksIDX tells an IDX file (magic 00 00, or gzipped) from an image file
// by its first bytes, so an IDX file whose header is wrong is reported as
// that, not as an image in an unknown format.
func looksIDX(path string) bool {
	f, err := os.Open(path)
	if err != nil {
		return false
	}
	defer f.Close()
	var head [2]byte
	if _, err := io.ReadFull(f, head[:]); err != nil {
		return false
	}
	return head == [2]byte{0, 0} || head == [2]byte{0x1f, 0x8b}
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
			b.names, b.payloads, b.failed = append(b.names, sub.names...), append(b.payloads, sub.payloads...), append(b.failed, sub.failed...)
			continue
		}
		if looksIDX(p) {
			f, err := frontend.ReadIDX(p)
			if err != nil {
				return nil, err // names the file and what is wrong with it
			}
			if len(f.Dims) != 3 {
				return nil, fmt.Errorf("%s: IDX file of dimensions %v; tag takes images, an IDX of 3 dimensions (count × rows × columns)", p, f.Dims)
			}
			n, px := f.Dims[0], f.Dims[1]*f.Dims[2]
			if limit > 0 {
				n = min(n, limit)
			}
			for i := 0; i < n; i++ {
				b.add(fmt.Sprintf("%s#%d", filepath.Base(p), i), f.Data[i*px:(i+1)*px], "")
			}
			b.raw = true
			if lp := labelsBeside(p); lp != "" {
				if l, err := frontend.ReadIDXLabels(lp); err == nil && len(l) >= n {
					b.labels = l[:n]
				}
			}
			continue
		}
		// An image the pipeline would refuse fails here, alone: published,
		// one over the server's message limit would end the whole run.
		if st.Size() > streaming.MaxImageBytes {
			b.add(p, nil, fmt.Sprintf("file of %d bytes is over the %d-byte limit of an image message", st.Size(), streaming.MaxImageBytes))
			continue
		}
		data, err := os.ReadFile(p)
		if err != nil {
			b.add(p, nil, err.Error())
			continue
		}
		if err := frontend.CheckImageSize(data); err != nil {
			b.add(p, nil, err.Error())
			continue
		}
		b.add(p, data, "")
	}
	if limit > 0 && len(b.names) > limit {
		b.names, b.payloads, b.failed = b.names[:limit], b.payloads[:limit], b.failed[:limit]
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
	if len(batch.names) == 0 {
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
	replies := make([]streaming.TagsMessage, len(batch.names))
	for i, why := range batch.failed {
		if why != "" {
			replies[i] = streaming.TagsMessage{Seq: i, Error: why}
			continue
		}
		payloads, index = append(payloads, batch.payloads[i]), append(index, i)
	}
	tagged, err := streaming.TagImages(context.Background(), sess.nc, nf.pipeline, name, payloads, batch.raw, time.Minute)
	if err != nil {
		return err
	}
	for j, r := range tagged {
		r.Seq = index[j]
		replies[index[j]] = r
	}
	sec := time.Since(start).Seconds()
	return reportTags(stdout, batch, replies, sec, *asJSON, *quiet)
}

func reportTags(w io.Writer, batch *imageBatch, replies []streaming.TagsMessage, sec float64, asJSON, quiet bool) error {
	correct, errs, outside := 0, 0, 0
	for i, r := range replies {
		if r.Error != "" {
			errs++
		}
		if r.OutOfDomain {
			outside++
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
		case r.Error != "": // even with quiet: a failure is always named
			fmt.Fprintf(w, "%s: error: %s\n", batch.names[i], r.Error)
		case quiet:
		case r.OutOfDomain: // no tag is claimed; the best guess is shown as one
			fmt.Fprintf(w, "%s: out of domain (familiarity %.2f; best guess %s %.0f%%)\n", batch.names[i], r.Familiarity, r.Tags[0].Label, 100*r.Tags[0].Score)
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
		// Last, so the line reads as before up to here (experiments/results.py
		// parses it).
		if outside > 0 {
			fmt.Fprintf(w, "; %d out of domain", outside)
		}
		fmt.Fprintln(w)
	}
	if errs > 0 {
		return fmt.Errorf("%d of %d images could not be tagged (named above)", errs, len(replies))
	}
	return nil
}
