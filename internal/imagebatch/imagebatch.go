// Package imagebatch reads the images `rfstream tag` and the demo send
// through the pipeline (an IDX file with its labels, image files, a
// folder) and reports the tags that come back.
package imagebatch

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/rfstream/rfstream/frontend"
	"github.com/rfstream/rfstream/streaming"
)

// Batch is what `rfstream tag` publishes: payloads, their names, and labels
// when the source has them. An image refused before publishing has no
// payload and its reason in failed.
type Batch struct {
	Names    []string
	Payloads [][]byte
	Failed   []string
	// Raw: the payloads are an IDX file's raw pixels, not encoded images.
	Raw bool
	// Labels are the IDX file's labels, when found beside it.
	Labels []int
}

// add appends one image file's payload, or the reason it cannot be tagged.
func (b *Batch) add(name string, data []byte, failed string) {
	b.Names, b.Payloads, b.Failed = append(b.Names, name), append(b.Payloads, data), append(b.Failed, failed)
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

// Load reads an IDX image file (with its labels beside it when
// found), image files, or every image file in a folder.
func Load(paths []string, limit int) (*Batch, error) {
	b := &Batch{}
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
			sub, err := Load(files, limit-len(b.Names))
			if err != nil {
				return nil, err
			}
			b.Names, b.Payloads, b.Failed = append(b.Names, sub.Names...), append(b.Payloads, sub.Payloads...), append(b.Failed, sub.Failed...)
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
			b.Raw = true
			if lp := labelsBeside(p); lp != "" {
				if l, err := frontend.ReadIDXLabels(lp); err == nil && len(l) >= n {
					b.Labels = l[:n]
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
	if limit > 0 && len(b.Names) > limit {
		b.Names, b.Payloads, b.Failed = b.Names[:limit], b.Payloads[:limit], b.Failed[:limit]
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

// Report prints a batch's tags (or JSON, or only the summary with quiet),
// then a summary line with the throughput, errors and, when the batch has
// labels, top-1 accuracy; it fails when any image could not be tagged.
func Report(w io.Writer, batch *Batch, replies []streaming.TagsMessage, sec float64, asJSON, quiet bool) error {
	correct, errs, outside := 0, 0, 0
	for i, r := range replies {
		if r.Error != "" {
			errs++
		}
		if r.OutOfDomain {
			outside++
		}
		ok := ""
		if batch.Labels != nil && r.Error == "" {
			if r.Tags[0].Label == fmt.Sprint(batch.Labels[i]) {
				correct++
			} else {
				ok = fmt.Sprintf("  ✗ (true %d)", batch.Labels[i])
			}
		}
		switch {
		case asJSON:
			b, _ := json.Marshal(struct {
				Name string `json:"name"`
				streaming.TagsMessage
			}{batch.Names[i], r})
			fmt.Fprintln(w, string(b))
		case r.Error != "": // even with quiet: a failure is always named
			fmt.Fprintf(w, "%s: error: %s\n", batch.Names[i], r.Error)
		case quiet:
		case r.OutOfDomain: // no tag is claimed; the best guess is shown as one
			fmt.Fprintf(w, "%s: out of domain (familiarity %.2f; best guess %s %.0f%%)\n", batch.Names[i], r.Familiarity, r.Tags[0].Label, 100*r.Tags[0].Score)
		default:
			fmt.Fprintf(w, "%s:", batch.Names[i])
			for _, t := range r.Tags {
				fmt.Fprintf(w, " %s %.0f%%", t.Label, 100*t.Score)
			}
			fmt.Fprintln(w, ok)
		}
	}
	if !asJSON {
		fmt.Fprintf(w, "tagged %d images in %.2fs (%.0f images/s), %d errors", len(replies), sec, float64(len(replies))/sec, errs)
		if batch.Labels != nil {
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
