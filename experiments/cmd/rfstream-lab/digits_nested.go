package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"runtime/debug"
	"strings"
	"text/tabwriter"
	"unicode"

	"github.com/rfstream/rfstream/datasets"
	"github.com/rfstream/rfstream/internal/cli"
	"github.com/rfstream/rfstream/internal/defaults"
)

func init() {
	cli.RegisterTask(&cli.Task{Name: "digits-nested", Summary: "spoken digits: leave-one-speaker-out with the settings chosen per held-out speaker by inner LOSO over the others",
		Eval: evalDigitsNested})
}

// digitsCandidate is one setting of eval digits to choose among.
type digitsCandidate struct {
	name string
	args []string
}

// candidateFlag collects repeated --candidate "name: eval digits flags".
type candidateFlag []digitsCandidate

func (c *candidateFlag) String() string { return fmt.Sprint(len(*c), " candidates") }

func (c *candidateFlag) Set(s string) error {
	name, args, ok := strings.Cut(s, ":")
	name = strings.TrimSpace(name)
	if !ok || name == "" || strings.ContainsAny(name, " \t") {
		return fmt.Errorf("want \"name: eval digits flags\", have %q", s)
	}
	for _, d := range *c {
		if d.name == name {
			return fmt.Errorf("candidate %q given twice", name)
		}
	}
	*c = append(*c, digitsCandidate{name, strings.Fields(args)})
	return nil
}

// evalDigitsNested is leave-one-speaker-out where nothing about the
// held-out speaker chooses the setting: for every outer speaker, each
// candidate is scored by LOSO over the other speakers with the outer one
// removed entirely (--exclude-speakers), the best inner score picks the
// candidate (the first listed on a tie), and the outer accuracy is that
// candidate's on the outer speaker. Every candidate's outer accuracy is
// printed too, for the record; it chooses nothing.
func evalDigitsNested(args []string, stdout, stderr io.Writer) error {
	fs := cli.NewFlagSet("eval digits-nested", "--candidate 'name: flags' … [-- flags for every run]", stderr)
	var cands candidateFlag
	fs.Var(&cands, "candidate", "a setting to choose among, as \"name: eval digits flags\" (repeat the flag for each)")
	fsdd := fs.String("fsdd", defaults.FSDDDir(), "Free Spoken Digit Dataset recordings folder ($RFSTREAM_FSDD)")
	asJSON := fs.Bool("json", false, "end with one JSON object")
	resultsPath := fs.String("results", "", "append every eval digits run (its arguments, the recordings' digest, the binary's revision and the result) to this file as a JSON line, and reuse the runs already in it whose arguments and recordings match (the folder's path may differ): resumes an interrupted selection (empty the file after changing the code)")
	reuseOnly := fs.Bool("reuse-only", false, "run nothing: build the table from the --results runs alone, and fail naming the first run that is missing")
	if err := cli.ParseFlags(fs, args); err != nil {
		return err
	}
	if len(cands) == 0 {
		return errors.New("give at least one --candidate")
	}
	// The shared flags after -- follow each candidate's, so where both set a
	// flag the shared value would win without a word (a candidate's own --m
	// would be ignored): refuse that, as well as the flags set here.
	shared := map[string]bool{}
	for _, a := range fs.Args() {
		if name, ok := flagName(a); ok {
			shared[name] = true
		}
	}
	for _, c := range cands {
		for _, a := range c.args {
			name, _ := flagName(a)
			switch name {
			case "split", "exclude-speakers", "json", "fsdd", "train-manifest", "test-manifest":
				return fmt.Errorf("candidate %s: %s is set by eval digits-nested", c.name, a)
			}
			if shared[name] {
				return fmt.Errorf("candidate %s sets %s, which the flags after -- set for every run (the later would win): give it in each candidate instead", c.name, a)
			}
		}
	}
	recs, err := datasets.FSDD(*fsdd)
	if err != nil {
		return err
	}
	speakers := datasets.Speakers(recs)
	if len(speakers) < 3 {
		return fmt.Errorf("nested leave-one-speaker-out needs at least 3 speakers, %s has %d", *fsdd, len(speakers))
	}
	common := fs.Args()
	if *reuseOnly && *resultsPath == "" {
		return errors.New("--reuse-only needs --results")
	}
	done, err := readNestedRuns(*resultsPath)
	if err != nil {
		return err
	}
	var digest string
	if *resultsPath != "" {
		if digest, err = datasets.Digest(recs); err != nil {
			return err
		}
	}
	runOne := func(c digitsCandidate, extra ...string) (digitsResult, error) {
		a := append(append(append([]string{}, c.args...), common...), "--fsdd", *fsdd, "--split", "speaker", "--json")
		a = append(a, extra...)
		// Runs recorded with the digest match wherever the recordings
		// lie; older runs, recorded without it, only under the same path.
		for _, key := range []string{nestedRunKey(a, digest), nestedRunKey(a, "")} {
			if r, ok := done[key]; ok {
				fmt.Fprintf(stderr, "reused from %s: eval digits %s: %.2f%%\n", *resultsPath, strings.Join(a, " "), 100*r.Accuracy)
				return r, nil
			}
		}
		if *reuseOnly {
			return digitsResult{}, fmt.Errorf("candidate %s: eval digits %s is not in %s (--reuse-only)", c.name, strings.Join(a, " "), *resultsPath)
		}
		fmt.Fprintf(stderr, "eval digits %s\n", strings.Join(a, " "))
		var out bytes.Buffer
		var r digitsResult
		// The recorded runs' arguments mean what they meant when run.
		if err := evalDigitsFrom(legacyDigitRecipe(), a, &out, stderr); err != nil {
			return r, fmt.Errorf("candidate %s: %w", c.name, err)
		}
		lines := strings.Split(strings.TrimSpace(out.String()), "\n")
		if err := json.Unmarshal([]byte(lines[len(lines)-1]), &r); err != nil {
			return r, fmt.Errorf("candidate %s: reading its result: %w", c.name, err)
		}
		// Each run's mean as it finishes, so a long selection shows its
		// progress (and an interrupted one what it had).
		fmt.Fprintf(stderr, "candidate %s %s: %.2f%%\n", c.name, strings.Join(extra, " "), 100*r.Accuracy)
		if *resultsPath != "" {
			if err := appendNestedRun(*resultsPath, nestedRun{Args: a, Dataset: digest, Revision: buildRevision(), Result: r}); err != nil {
				return r, err
			}
		}
		return r, nil
	}
	// inner[s][c]: candidate c's inner LOSO mean without speaker s;
	// outer[c][s]: its accuracy on s when trained on all the others.
	inner := map[string][]float64{}
	outer := make([]map[string]float64, len(cands))
	for ci, c := range cands {
		r, err := runOne(c)
		if err != nil {
			return err
		}
		outer[ci] = map[string]float64{}
		for _, s := range speakers {
			v, ok := r.PerSplit["held-out "+s]
			if !ok {
				return fmt.Errorf("candidate %s: no result for held-out %s", c.name, s)
			}
			outer[ci][s] = v
		}
		for _, s := range speakers {
			ri, err := runOne(c, "--exclude-speakers", s)
			if err != nil {
				return err
			}
			inner[s] = append(inner[s], ri.Accuracy)
		}
	}
	type row struct {
		Speaker string             `json:"speaker"`
		Chosen  string             `json:"chosen"`
		Inner   map[string]float64 `json:"inner"`
		Outer   float64            `json:"outer"`
	}
	var rows []row
	tw := tabwriter.NewWriter(stdout, 0, 4, 2, ' ', 0)
	fmt.Fprint(tw, "held-out\t")
	for _, c := range cands {
		fmt.Fprintf(tw, "inner %s\t", c.name)
	}
	fmt.Fprint(tw, "chosen\tnested accuracy\t")
	for _, c := range cands {
		fmt.Fprintf(tw, "outer %s\t", c.name)
	}
	fmt.Fprintln(tw)
	var sum float64
	candSum := make([]float64, len(cands))
	for _, s := range speakers {
		best := 0
		for ci, v := range inner[s] {
			if v > inner[s][best] {
				best = ci
			}
		}
		r := row{Speaker: s, Chosen: cands[best].name, Inner: map[string]float64{}, Outer: outer[best][s]}
		fmt.Fprintf(tw, "%s\t", s)
		for ci, v := range inner[s] {
			r.Inner[cands[ci].name] = v
			fmt.Fprintf(tw, "%.2f%%\t", 100*v)
		}
		fmt.Fprintf(tw, "%s\t%.2f%%\t", r.Chosen, 100*r.Outer)
		for ci := range cands {
			fmt.Fprintf(tw, "%.2f%%\t", 100*outer[ci][s])
			candSum[ci] += outer[ci][s]
		}
		fmt.Fprintln(tw)
		sum += r.Outer
		rows = append(rows, r)
	}
	n := float64(len(speakers))
	fmt.Fprintf(tw, "mean\t%s\t%.2f%%\t", strings.Repeat("\t", len(cands)), 100*sum/n)
	for ci := range cands {
		fmt.Fprintf(tw, "%.2f%%\t", 100*candSum[ci]/n)
	}
	fmt.Fprintln(tw)
	tw.Flush()
	if *asJSON {
		b, _ := json.Marshal(struct {
			Task     string  `json:"task"`
			Accuracy float64 `json:"accuracy"`
			Folds    []row   `json:"folds"`
		}{"digits-nested", sum / n, rows})
		fmt.Fprintln(stdout, string(b))
	}
	return nil
}

var _ flag.Value = (*candidateFlag)(nil)

// flagName returns the name of a command-line flag ("--m 3000" and
// "-m=3000" both name m) and whether a is a flag at all; a value such as
// "-1" is not.
func flagName(a string) (string, bool) {
	name := strings.SplitN(strings.TrimLeft(a, "-"), "=", 2)[0]
	if !strings.HasPrefix(a, "-") || name == "" || !unicode.IsLetter(rune(name[0])) {
		return "", false
	}
	return name, true
}

// nestedRun is one line of eval digits-nested --results.
type nestedRun struct {
	Args []string `json:"args"`
	// Dataset is the digest of the recordings the run read (empty in runs
	// recorded before digests were).
	Dataset string `json:"dataset,omitempty"`
	// Revision is the VCS revision of the binary that made the run.
	Revision string       `json:"revision,omitempty"`
	Result   digitsResult `json:"result"`
}

// nestedRunKey keys a run by its arguments joined with NUL. With a dataset
// digest the --fsdd folder is replaced by the digest, so the same
// recordings match under any path.
func nestedRunKey(args []string, dataset string) string {
	a := append([]string(nil), args...)
	if dataset != "" {
		for i := 0; i+1 < len(a); i++ {
			if a[i] == "--fsdd" {
				a[i+1] = dataset
			}
		}
	}
	return strings.Join(a, "\x00")
}

// readNestedRuns loads a --results file (missing: none yet), keyed by
// nestedRunKey.
func readNestedRuns(path string) (map[string]digitsResult, error) {
	done := map[string]digitsResult{}
	if path == "" {
		return done, nil
	}
	b, err := os.ReadFile(path)
	if errors.Is(err, os.ErrNotExist) {
		return done, nil
	}
	if err != nil {
		return nil, err
	}
	for i, line := range strings.Split(string(b), "\n") {
		if strings.TrimSpace(line) == "" {
			continue
		}
		var r nestedRun
		if err := json.Unmarshal([]byte(line), &r); err != nil || len(r.Args) == 0 {
			return nil, fmt.Errorf("--results %s line %d: not a run written by eval digits-nested", path, i+1)
		}
		done[nestedRunKey(r.Args, r.Dataset)] = r.Result
	}
	return done, nil
}

func appendNestedRun(path string, run nestedRun) error {
	b, err := json.Marshal(run)
	if err != nil {
		return err
	}
	f, err := os.OpenFile(path, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o644)
	if err != nil {
		return err
	}
	if _, err := f.Write(append(b, '\n')); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

// revision is set at link time by the Makefile (git describe), for builds
// made without the toolchain's VCS stamp.
var revision string

// buildRevision is the VCS revision the binary was built from ("+dirty"
// when the tree had changes): the toolchain's stamp, else the one the
// Makefile links in, else "".
func buildRevision() string {
	info, ok := debug.ReadBuildInfo()
	if !ok {
		return revision
	}
	var rev, dirty string
	for _, s := range info.Settings {
		switch s.Key {
		case "vcs.revision":
			rev = s.Value
		case "vcs.modified":
			if s.Value == "true" {
				dirty = "+dirty"
			}
		}
	}
	if rev == "" {
		return revision
	}
	return rev + dirty
}
