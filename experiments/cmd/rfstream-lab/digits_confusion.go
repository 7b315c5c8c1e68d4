package main

import (
	"encoding/csv"
	"fmt"
	"io"
	"os"
	"sort"
	"strconv"
	"strings"

	"gonum.org/v1/gonum/blas/blas32"

	"github.com/rfstream/rfstream/classifier"
	"github.com/rfstream/rfstream/datasets"
	"github.com/rfstream/rfstream/internal/linalg"
)

// confusionCounts is counts[true][predicted] over k classes.
func confusionCounts(truth, pred []int, k int) ([][]int, error) {
	if len(truth) != len(pred) {
		return nil, fmt.Errorf("confusion: %d labels, %d predictions", len(truth), len(pred))
	}
	counts := make([][]int, k)
	for i := range counts {
		counts[i] = make([]int, k)
	}
	for i, t := range truth {
		p := pred[i]
		if t < 0 || t >= k || p < 0 || p >= k {
			return nil, fmt.Errorf("confusion: class %d → %d outside 0..%d", t, p, k-1)
		}
		counts[t][p]++
	}
	return counts, nil
}

// confusedPair is one off-diagonal cell of a confusion matrix.
type confusedPair struct {
	True, Pred string
	Count      int
}

// topConfusions lists the off-diagonal cells with a count, largest first
// (ties in row-major order), at most n of them.
func topConfusions(counts [][]int, labels []string, n int) []confusedPair {
	var out []confusedPair
	for t, row := range counts {
		for p, c := range row {
			if t != p && c > 0 {
				out = append(out, confusedPair{labels[t], labels[p], c})
			}
		}
	}
	sort.SliceStable(out, func(a, b int) bool { return out[a].Count > out[b].Count })
	if len(out) > n {
		out = out[:n]
	}
	return out
}

// writeConfusionTable prints a confusion matrix as text (rows: true
// class, columns: predicted, then the row's accuracy), followed by its
// most frequent confusions and the share of all errors they make up.
func writeConfusionTable(w io.Writer, title string, labels []string, counts [][]int) {
	fmt.Fprintf(w, "confusion, %s (rows true, columns predicted)\n", title)
	fmt.Fprintf(w, "%8s", "")
	for _, l := range labels {
		fmt.Fprintf(w, "%6s", l)
	}
	fmt.Fprintf(w, "%8s\n", "acc")
	var errs int
	for t, row := range counts {
		fmt.Fprintf(w, "%8s", labels[t])
		var n int
		for p, c := range row {
			n += c
			if p != t {
				errs += c
			}
			if c == 0 {
				fmt.Fprintf(w, "%6s", ".")
			} else {
				fmt.Fprintf(w, "%6d", c)
			}
		}
		if n > 0 {
			fmt.Fprintf(w, "%7.1f%%\n", 100*float64(row[t])/float64(n))
		} else {
			fmt.Fprintf(w, "%8s\n", "-")
		}
	}
	top := topConfusions(counts, labels, 5)
	if len(top) == 0 {
		fmt.Fprintln(w, "no errors")
		return
	}
	var parts []string
	var inTop int
	for _, c := range top {
		parts = append(parts, fmt.Sprintf("%s→%s %d", c.True, c.Pred, c.Count))
		inTop += c.Count
	}
	fmt.Fprintf(w, "most confused: %s (%d of %d errors)\n", strings.Join(parts, ", "), inTop, errs)
}

// predictionWriter records one TSV row per test recording: split, path,
// speaker, true label, predicted label, and the margin between the best
// and second-best of the scores the decision was made on. Only the first
// seed is written.
type predictionWriter struct {
	f *os.File
	w *csv.Writer
}

func newPredictionWriter(path string) (*predictionWriter, error) {
	f, err := os.Create(path)
	if err != nil {
		return nil, err
	}
	w := csv.NewWriter(f)
	w.Comma = '\t'
	if err := w.Write([]string{"split", "path", "speaker", "label", "predicted", "margin"}); err != nil {
		f.Close()
		return nil, err
	}
	return &predictionWriter{f, w}, nil
}

func (p *predictionWriter) add(split string, recs []datasets.Recording, labels []string, pred []int, decision blas32.General) error {
	if len(recs) != len(pred) || decision.Rows != len(recs) {
		return fmt.Errorf("predictions: %d recordings, %d predictions, %d score rows", len(recs), len(pred), decision.Rows)
	}
	for i, r := range recs {
		m := strconv.FormatFloat(classifier.Margin(linalg.Row32(decision, i)), 'g', 6, 32)
		if err := p.w.Write([]string{split, r.Path, r.Speaker, r.Label, labels[pred[i]], m}); err != nil {
			return err
		}
	}
	return nil
}

func (p *predictionWriter) close() error {
	p.w.Flush()
	if err := p.w.Error(); err != nil {
		p.f.Close()
		return err
	}
	return p.f.Close()
}

// prediction is one row of a --predictions file.
type prediction struct {
	Label, Predicted string
	Margin           float64
}

// readPredictions reads a --predictions file back by path. A path listed
// twice (two splits) keeps its last row.
func readPredictions(path string) (map[string]prediction, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	r := csv.NewReader(f)
	r.Comma = '\t'
	r.FieldsPerRecord = 6
	rows, err := r.ReadAll()
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	if len(rows) == 0 || rows[0][1] != "path" {
		return nil, fmt.Errorf("%s: not a predictions file (want the header split, path, speaker, label, predicted, margin)", path)
	}
	out := map[string]prediction{}
	for i, row := range rows[1:] {
		m, err := strconv.ParseFloat(row[5], 64)
		if row[1] == "" || err != nil {
			return nil, fmt.Errorf("%s: row %d: want a path and a numeric margin", path, i+2)
		}
		out[row[1]] = prediction{row[3], row[4], m}
	}
	return out, nil
}
