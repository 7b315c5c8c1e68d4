package main

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"time"

	"gonum.org/v1/gonum/blas/blas32"

	"github.com/rfstream/rfstream/classifier"
	"github.com/rfstream/rfstream/datasets"
	"github.com/rfstream/rfstream/features"
	"github.com/rfstream/rfstream/frontend"
	"github.com/rfstream/rfstream/internal/cli"
	"github.com/rfstream/rfstream/internal/defaults"
	"github.com/rfstream/rfstream/internal/plots"
	"github.com/rfstream/rfstream/invariant"
	"github.com/rfstream/rfstream/train"
)

// figure3Fold is one train/test division of the voices by sex: the gender
// split's two directions, or a dev fold inside one sex's voices.
type figure3Fold struct {
	name        string
	train, test []datasets.Recording
}

// figure3Point is one map's accuracy on one fold.
type figure3Point struct {
	Fold     string  `json:"fold"`
	Map      string  `json:"map"`
	Label    string  `json:"label"`
	M        int     `json:"m"` // templates of the invariant map whose dimension every map of the cell has
	Bins     int     `json:"bins"`
	Dim      int     `json:"dim"`
	Accuracy float64 `json:"accuracy"`
	N        int     `json:"n"`
	Lambda   float64 `json:"lambda"`
	Seconds  float64 `json:"seconds"`
}

// figure3Result is eval any-voice figure3's JSON.
type figure3Result struct {
	Task      string          `json:"task"`
	Args      []string        `json:"args"`
	Split     string          `json:"split"`
	Orbit     train.WarpOrbit `json:"orbit"`
	G         int             `json:"g"`
	Templates string          `json:"templates"`
	Voices    map[string]int  `json:"train_rows"`
	Points    []figure3Point  `json:"points"`
	// Mean is, per map and cell, the mean accuracy over the folds.
	Mean map[string]float64 `json:"mean"`
}

// evalAnyVoiceFigure3 is the invariance paper's Figure 3 for the gender
// split: accuracy against templates × bins for the invariant map pooled
// over pitch, tempo and vocal-tract warps of its templates, beside maxout
// and random Fourier maps of the same dimension, trained on one sex's
// voices (FSDD and the synthesisers') and tested on the other's, both
// directions. Word vectors are computed once; every map is fitted on them
// as eval digits fits (RLS, λ on a random tenth of the training
// recordings). --split dev replaces the test sex by each synthesiser's
// voices of the training sex held out in turn, for choosing settings.
func evalAnyVoiceFigure3(args []string, stdout, stderr io.Writer) error {
	fs := cli.NewFlagSet("eval any-voice figure3", "[flags]", stderr)
	fsdd := fs.String("fsdd", defaults.FSDDDir(), "Free Spoken Digit Dataset recordings folder ($RFSTREAM_FSDD)")
	split := fs.String("split", "gender", "gender (male → female and female → male) or dev (each synthesiser's voices of the training sex held out in turn; chooses settings without the other sex)")
	directions := fs.String("directions", "m2f,f2m", "which directions: m2f, f2m or both")
	mList := fs.String("grid-templates", "25,50,100,200", "invariant map: numbers of templates m")
	nList := fs.String("grid-bins", "1,2,5", "invariant map: bins per side n (2n+1 thresholds)")
	kinds := fs.String("grid-maps", "invariant,maxout,fourier", "maps to compare at every dimension m·(2n+1)")
	out := fs.String("out", "out/figure3-gender", "base name of the JSON and plot files")
	spkNorm := fs.String("speaker-norm", "none", "speaker CMVN of word vectors: none or mean (each voice's mean log-mel spectrum removed, an unseen voice's from its own unlabelled recordings)")
	def := train.DefaultDigitOptions()
	mf := def.Map
	mf.Kind = invariant.Kind
	cli.MapFlags(fs, &mf)
	orbit := train.WarpOrbit{Cents: 400, Tempo: 2, VTLN: 1.15}
	cli.WarpOrbitFlags(fs, &orbit)
	wc := def.Word
	cli.WordConfigFlags(fs, &wc)
	set := datasets.DefaultVoiceSetOptions()
	replot := fs.String("replot", "", "comma-separated JSON files of earlier runs: draw their points together (no fitting)")
	if err := cli.ParseFlags(fs, args); err != nil {
		return err
	}
	if *replot != "" {
		return replotFigure3(strings.Split(*replot, ","), *out, stdout)
	}
	ms, err := parseInts(*mList)
	if err != nil {
		return fmt.Errorf("--grid-templates: %w", err)
	}
	ns, err := parseInts(*nList)
	if err != nil {
		return fmt.Errorf("--grid-bins: %w", err)
	}
	if *spkNorm != "none" && *spkNorm != "mean" {
		return fmt.Errorf("unknown --speaker-norm %q (none, mean)", *spkNorm)
	}
	male, female, engineOf, err := voicesBySex(*fsdd, set, stderr)
	if err != nil {
		return err
	}
	folds, err := figure3Folds(*split, *directions, male, female, engineOf)
	if err != nil {
		return err
	}
	spec := orbit.Spec(wc)
	mf.Group = &spec
	res := figure3Result{Task: "any-voice-figure3", Args: args, Split: *split, Orbit: orbit, G: mf.G, Templates: mf.Templates,
		Voices: map[string]int{}, Mean: map[string]float64{}}
	cache := train.VectorCache{}
	for _, f := range folds {
		pts, err := runFigure3Fold(f, wc, cache, mf, ms, ns, strings.Split(*kinds, ","), *spkNorm == "mean", stderr)
		if err != nil {
			return err
		}
		res.Voices[f.name] = len(f.train)
		res.Points = append(res.Points, pts...)
	}
	sums, counts := map[string]float64{}, map[string]int{}
	for _, p := range res.Points {
		k := fmt.Sprintf("%s|%s", strings.SplitN(p.Fold, " ", 2)[0], p.Label)
		sums[k] += p.Accuracy
		counts[k]++
	}
	for k, s := range sums {
		res.Mean[k] = s / float64(counts[k])
	}
	if err := writeFigure3(*out, res, stdout); err != nil {
		return err
	}
	b, err := json.Marshal(res)
	if err != nil {
		return err
	}
	_, err = fmt.Fprintf(stdout, "%s\n", b)
	return err
}

// voicesBySex is FSDD (six men) and every installed synthesiser's digits
// (rfstream data voices) divided by the speakers' sex, with the engine
// each synthetic voice comes from ("fsdd" for the recordings).
func voicesBySex(fsdd string, set datasets.VoiceSetOptions, log io.Writer) (male, female []datasets.Recording, engineOf map[string]string, err error) {
	recs, err := datasets.FSDD(fsdd)
	if err != nil {
		return nil, nil, nil, err
	}
	engineOf = map[string]string{}
	for _, r := range recs {
		engineOf[r.Speaker] = "fsdd"
	}
	male = append(male, recs...)
	sets, err := train.BuildEngineVoices(train.EngineVoices{Engines: strings.Split(train.EngineNames(), ","), Set: set, Dir: defaults.VoicesDir()}, true, log)
	if err != nil {
		return nil, nil, nil, err
	}
	for _, s := range sets {
		sex := s.SpeakerSex()
		for _, r := range s.Digits {
			engineOf[r.Speaker] = s.Engine
			if sex[r.Speaker] == datasets.Female {
				female = append(female, r)
			} else {
				male = append(male, r)
			}
		}
	}
	if len(female) == 0 {
		return nil, nil, nil, fmt.Errorf("no female voice among the installed synthesisers: the gender split needs one")
	}
	return male, female, engineOf, nil
}

// figure3Folds are the gender split's directions, or with split "dev" the
// folds inside each direction's training sex: one synthesiser's voices of
// that sex held out at a time (FSDD's men always train).
func figure3Folds(split, directions string, male, female []datasets.Recording, engineOf map[string]string) ([]figure3Fold, error) {
	var out []figure3Fold
	for _, d := range strings.Split(directions, ",") {
		tr, te := male, female
		name := "m2f"
		switch strings.TrimSpace(d) {
		case "m2f":
		case "f2m":
			tr, te, name = female, male, "f2m"
		default:
			return nil, fmt.Errorf("--directions: unknown %q (m2f, f2m)", d)
		}
		switch split {
		case "gender":
			out = append(out, figure3Fold{name: name, train: tr, test: te})
		case "dev":
			engines := map[string]bool{}
			for _, r := range tr {
				if e := engineOf[r.Speaker]; e != "fsdd" {
					engines[e] = true
				}
			}
			for _, e := range sortedKeys(engines) {
				var fit, held []datasets.Recording
				for _, r := range tr {
					if engineOf[r.Speaker] == e {
						held = append(held, r)
					} else {
						fit = append(fit, r)
					}
				}
				if len(fit) > 0 {
					out = append(out, figure3Fold{name: name + " dev-without-" + e, train: fit, test: held})
				}
			}
		default:
			return nil, fmt.Errorf("unknown --split %q (gender, dev)", split)
		}
	}
	return out, nil
}

// runFigure3Fold fits every map of the grid on one fold and scores it.
func runFigure3Fold(f figure3Fold, wc frontend.WordConfig, cache train.VectorCache, inv train.MapOptions, ms, ns []int, kinds []string, spkNorm bool, log io.Writer) ([]figure3Point, error) {
	xtr, err := train.CachedWordVectors(f.train, wc, cache, train.Clean, log)
	if err != nil {
		return nil, err
	}
	xte, err := train.CachedWordVectors(f.test, wc, cache, train.Clean, log)
	if err != nil {
		return nil, err
	}
	if spkNorm {
		// Copies: the cache's vectors are shared between folds.
		xtr, xte = cloneGeneral(xtr), cloneGeneral(xte)
		norm := train.NewSpeakerNorm(xtr, f.train, wc.Audio.Mels, false)
		norm.Apply(xte, f.test)
		norm.Apply(xtr, f.train)
	}
	labels := datasets.Labels(f.train)
	idx := train.LabelIndex(labels)
	ytr, err := train.Indices(f.train, idx)
	if err != nil {
		return nil, err
	}
	yte, err := train.Indices(f.test, idx)
	if err != nil {
		return nil, err
	}
	var pts []figure3Point
	for _, n := range ns {
		for _, m := range ms {
			base := inv
			base.M, base.Bins = m, n
			for _, kind := range kinds {
				o, err := base.EqualDimension(strings.TrimSpace(kind))
				if err != nil {
					return nil, err
				}
				start := time.Now()
				mp, _, err := o.Build(xtr, ytr, len(labels), nil)
				if err != nil {
					return nil, err
				}
				rls, rep, err := train.FitWords(mp, xtr, ytr, len(labels), f.train, nil, xtr.Rows, train.WordFit{LambdaBy: "random", Seed: o.Seed})
				if err != nil {
					return nil, err
				}
				pred := rls.Predict(features.Apply(mp, xte, 0))
				p := figure3Point{Fold: f.name, Map: o.Kind, Label: o.Label(mp), M: m, Bins: n, Dim: mp.OutDim(),
					Accuracy: 1 - classifier.ErrorRate(pred, yte), N: len(yte), Lambda: rep.Lambda, Seconds: time.Since(start).Seconds()}
				fmt.Fprintf(log, "figure3 %s: %-40s d=%5d  %.2f %%  (%.0fs)\n", f.name, p.Label, p.Dim, 100*p.Accuracy, p.Seconds)
				pts = append(pts, p)
			}
		}
	}
	return pts, nil
}

func cloneGeneral(x blas32.General) blas32.General {
	c := x
	c.Data = slices.Clone(x.Data[:x.Rows*x.Stride])
	return c
}

// replotFigure3 draws the points of earlier runs' JSON files together
// (e.g. the invariant map with other thresholds beside maxout and Fourier
// measured once) and writes them as one JSON.
func replotFigure3(files []string, base string, stdout io.Writer) error {
	var all figure3Result
	for i, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			return err
		}
		var r figure3Result
		if err := json.Unmarshal(b, &r); err != nil {
			return fmt.Errorf("%s: %w", f, err)
		}
		if i == 0 {
			all = r
			all.Points = nil
		} else if r.Split != all.Split {
			return fmt.Errorf("%s is a %s split, %s a %s split", f, r.Split, files[0], all.Split)
		}
		all.Points = append(all.Points, r.Points...)
		all.Args = append(all.Args, "--replot", f)
	}
	return writeFigure3(base, all, stdout)
}

// curveName is a point's map without its size, so the points of one map
// at every size form one curve.
func curveName(p figure3Point) string {
	var kept []string
	for _, w := range strings.Fields(p.Label) {
		if !strings.HasPrefix(w, "m=") {
			kept = append(kept, w)
		}
	}
	return strings.Join(kept, " ")
}

// writeFigure3 prints the table and draws one chart per fold: accuracy
// against the dimension m·(2n+1), a curve for the invariant map at every n
// and one for each other map.
func writeFigure3(base string, res figure3Result, stdout io.Writer) error {
	byFold := map[string][]figure3Point{}
	var folds []string
	for _, p := range res.Points {
		if _, ok := byFold[p.Fold]; !ok {
			folds = append(folds, p.Fold)
		}
		byFold[p.Fold] = append(byFold[p.Fold], p)
	}
	for _, fold := range folds {
		curves := map[string][]figure3Point{}
		var names []string
		for _, p := range byFold[fold] {
			name := curveName(p)
			if _, ok := curves[name]; !ok {
				names = append(names, name)
			}
			curves[name] = append(curves[name], p)
			fmt.Fprintf(stdout, "%s\t%s\td=%d\t%.2f %%\n", fold, p.Label, p.Dim, 100*p.Accuracy)
		}
		var series []plots.Series
		for _, name := range names {
			ps := curves[name]
			sort.Slice(ps, func(a, b int) bool { return ps[a].Dim < ps[b].Dim })
			s := plots.Series{Name: name}
			for _, p := range ps {
				s.X = append(s.X, float64(p.Dim))
				s.Y = append(s.Y, 100*p.Accuracy)
			}
			series = append(series, s)
		}
		file := base + "-" + strings.NewReplacer(" ", "-", "/", "-").Replace(fold)
		title := strings.NewReplacer("m2f", "train male → test female:", "f2m", "train female → test male:").Replace(fold) + " accuracy, maps of equal dimension"
		if err := plots.Lines(file, plots.Chart{Title: title, XLabel: "features m·(2n+1)", YLabel: "accuracy %", LogX: true, Series: series}); err != nil {
			return err
		}
		fmt.Fprintf(stdout, "wrote %s.png and %s.svg\n", file, file)
	}
	if err := os.MkdirAll(filepath.Dir(base), 0o755); err != nil {
		return err
	}
	b, err := json.MarshalIndent(res, "", " ")
	if err != nil {
		return err
	}
	return os.WriteFile(base+".json", b, 0o644)
}
