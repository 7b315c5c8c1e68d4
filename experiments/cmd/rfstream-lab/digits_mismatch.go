package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"strconv"
	"strings"
	"text/tabwriter"

	"github.com/rfstream/rfstream/internal/cli"
)

func init() {
	cli.RegisterTask(&cli.Task{Name: "digits-mismatch", Summary: "spoken digits: accuracy lost under pitch ±400 cents and tempo 0.7×/1.4×, per map of one size",
		Eval: evalDigitsMismatch})
}

// evalDigitsMismatch runs `eval digits --mismatch` once per map, each map
// with the same number of features, and tabulates how much accuracy each
// loses when the test recordings are pitch-shifted or tempo-warped while
// training stays clean. Flags after "--" go to every eval digits run.
func evalDigitsMismatch(args []string, stdout, stderr io.Writer) error {
	fs := cli.NewFlagSet("eval digits-mismatch", "[flags] [-- eval digits flags]", stderr)
	maps := fs.String("maps", "invariant,maxout,fourier,identity", "comma-separated feature maps to compare")
	size := fs.Int("features", 3300, "features per map (the invariant map has m·(2·bins+1); identity keeps the word vector)")
	bins := fs.Int("bins", 5, "invariant: bins on each side of zero")
	seeds := fs.Int("seeds", 5, "template seeds per map")
	split := fs.String("split", "official", "official or speaker")
	asJSON := fs.Bool("json", false, "end with one JSON object (a list of the eval digits results)")
	if err := cli.ParseFlags(fs, args); err != nil {
		return err
	}
	width := 2**bins + 1
	if *size < width {
		return fmt.Errorf("--features %d is fewer than one invariant template's %d bins", *size, width)
	}
	var results []digitsResult
	for _, kind := range strings.Split(*maps, ",") {
		kind = strings.TrimSpace(kind)
		m := *size
		if kind == "invariant" {
			m = *size / width
		}
		run := []string{"--map", kind, "--m", strconv.Itoa(m), "--bins", strconv.Itoa(*bins), "--seeds", strconv.Itoa(*seeds),
			"--split", *split, "--mismatch", "--json"}
		run = append(run, fs.Args()...)
		fmt.Fprintf(stderr, "eval digits %s\n", strings.Join(run, " "))
		var out bytes.Buffer
		if err := evalDigitsFrom(legacyDigitRecipe(), run, &out, stderr); err != nil {
			return fmt.Errorf("%s: %w", kind, err)
		}
		lines := strings.Split(strings.TrimSpace(out.String()), "\n")
		var r digitsResult
		if err := json.Unmarshal([]byte(lines[len(lines)-1]), &r); err != nil {
			return fmt.Errorf("%s: reading its result: %w", kind, err)
		}
		results = append(results, r)
	}
	fmt.Fprintf(stdout, "accuracy lost under mismatch (clean minus distorted, percentage points; mean ± std over %d seeds), %s split\n", *seeds, *split)
	tw := tabwriter.NewWriter(stdout, 0, 4, 2, ' ', 0)
	fmt.Fprint(tw, "map\tfeatures\tclean\t")
	for _, c := range mismatchConditions {
		fmt.Fprintf(tw, "Δ %s\t", c.Name)
	}
	fmt.Fprintln(tw, "mean Δ")
	for _, r := range results {
		fmt.Fprintf(tw, "%s\t%d\t%.2f%% ± %.2f\t", r.Map, r.M, 100*r.Accuracy, 100*r.AccuracyStd)
		var sum float64
		for _, c := range mismatchConditions {
			fmt.Fprintf(tw, "%.2f ± %.2f\t", 100*r.Drops[c.Name], 100*r.DropsStd[c.Name])
			sum += r.Drops[c.Name]
		}
		fmt.Fprintf(tw, "%.2f\n", 100*sum/float64(len(mismatchConditions)))
	}
	tw.Flush()
	if *asJSON {
		b, _ := json.Marshal(results)
		fmt.Fprintln(stdout, string(b))
	}
	return nil
}
