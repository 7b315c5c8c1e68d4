package datasets

import (
	"bytes"
	"flag"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rfstream/rfstream/frontend"
	"github.com/rfstream/rfstream/internal/fixtures"
)

var updateFixture = flag.Bool("update-timit-fixture", false, "rewrite ../testdata/timit (the TIMIT-style fixture)")

// fixtureDir is the TIMIT-style fixture the datasets, root and command
// tests share.
const fixtureDir = "../testdata/timit"

// fixturePhones are the fixture's phones: each a steady synthetic sound an
// MFCC frontend tells apart (two "formants", a hiss, a low hum), so a tiny
// model trained on a dozen utterances must recognise them well.
var fixturePhones = []string{"aa", "iy", "s", "m"}

// synthPhone renders n samples of a fixture phone at 8 kHz.
func synthPhone(p string, n int, rng *rand.Rand) []float32 {
	out := make([]float32, n)
	sines := map[string][]float64{"aa": {700, 1200}, "iy": {300, 2300}, "m": {250}}
	prev := 0.0
	for i := range out {
		t := float64(i) / 8000
		var v float64
		switch p {
		case "s":
			w := rng.NormFloat64()
			v = 0.15 * (w - prev) // differenced noise: energy high in frequency
			prev = w
		default:
			for _, f := range sines[p] {
				v += 0.2 * math.Sin(2*math.Pi*f*t)
			}
		}
		out[i] = float32(v + 3e-4*rng.NormFloat64())
	}
	return out
}

// fixtureUtterance renders a random phone string with silence (h#) at the
// ends and sometimes a pause (pau) inside, and its .PHN lines.
func fixtureUtterance(rng *rand.Rand) ([]float32, string) {
	var samples []float32
	var phn strings.Builder
	add := func(label string, x []float32) {
		fmt.Fprintf(&phn, "%d %d %s\n", len(samples), len(samples)+len(x), label)
		samples = append(samples, x...)
	}
	quiet := func(n int) []float32 {
		x := make([]float32, n)
		for i := range x {
			x[i] = float32(3e-4 * rng.NormFloat64())
		}
		return x
	}
	add("h#", quiet(640+rng.IntN(640)))
	n := 4 + rng.IntN(2)
	last := ""
	for k := 0; k < n; k++ {
		p := fixturePhones[rng.IntN(len(fixturePhones))]
		for p == last {
			p = fixturePhones[rng.IntN(len(fixturePhones))]
		}
		last = p
		add(p, synthPhone(p, 480+rng.IntN(480), rng))
		if k == 1 && rng.IntN(2) == 0 {
			add("pau", quiet(400))
		}
	}
	add("h#", quiet(640+rng.IntN(640)))
	return samples, phn.String()
}

// fixtureLayout: 3 training speakers with 5 utterances, 1 test speaker
// with 3; audio alternates RIFF WAV and SPHERE (one big-endian).
var fixtureLayout = []struct {
	split, speaker string
	utts           int
}{{"TRAIN", "FAA0", 5}, {"TRAIN", "MBB0", 5}, {"TRAIN", "FCC0", 5}, {"TEST", "MDD0", 3}}

func TestWriteTIMITFixture(t *testing.T) {
	if !*updateFixture {
		t.Skip("run with -update-timit-fixture to rewrite " + fixtureDir)
	}
	rng := rand.New(rand.NewPCG(6, 5))
	if err := os.RemoveAll(fixtureDir); err != nil {
		t.Fatal(err)
	}
	k := 0
	for _, l := range fixtureLayout {
		dir := filepath.Join(fixtureDir, l.split, "DR1", l.speaker)
		if err := os.MkdirAll(dir, 0o755); err != nil {
			t.Fatal(err)
		}
		for i := 0; i < l.utts; i++ {
			samples, phn := fixtureUtterance(rng)
			stem := filepath.Join(dir, fmt.Sprintf("SX%d", i+1))
			var audio []byte
			if k%2 == 0 {
				var buf bytes.Buffer
				if err := frontend.EncodeWAV16(&buf, &frontend.Audio{Rate: 8000, Samples: samples}); err != nil {
					t.Fatal(err)
				}
				audio = buf.Bytes()
			} else {
				audio = fixtures.EncodeSphere(samples, 8000, k == 3)
			}
			k++
			if err := os.WriteFile(stem+".WAV", audio, 0o644); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(stem+".PHN", []byte(phn), 0o644); err != nil {
				t.Fatal(err)
			}
		}
	}
	phoneMap := "# scoring map of the fixture (TIMIT style: phone, then what it folds to; alone: dropped)\nh#\npau\naa aa\niy iy\ns s\nm n  # fold m onto n, as a 61→39 map folds em onto m\n"
	if err := os.WriteFile(filepath.Join(fixtureDir, "phones.map"), []byte(phoneMap), 0o644); err != nil {
		t.Fatal(err)
	}
}
