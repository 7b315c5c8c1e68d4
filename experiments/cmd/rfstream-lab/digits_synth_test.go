package main

import (
	"bytes"
	"math"
	"os/exec"
	"slices"
	"strings"
	"testing"

	"github.com/rfstream/rfstream/classifier"
	"github.com/rfstream/rfstream/datasets"
	"github.com/rfstream/rfstream/features"
	"github.com/rfstream/rfstream/internal/linalg"
)

func TestTrainVoiceFlagsRefuseBadInput(t *testing.T) {
	fsdd := toyFSDD(t)
	for _, bad := range [][]string{
		{"--synth-voices", "-1"},
		{"--synth-takes", "0"},
		{"--real-weight", "0"},
		{"--speed-perturb", "fast"},
		{"--speed-perturb", "1"},
		{"--speed-perturb", "0.9,3"},
		{"--speed-perturb", "0.9,0.9"},
		{"--speed-perturb", "NaN"},
		{"--onset-trim-ms", "0"},
		{"--onset-trim-ms", "-40"},
		{"--onset-trim-ms", "40,40"},
		{"--onset-trim-ms", "600"},
		{"--onset-trim-ms", "NaN"},
		{"--onset-trim-ms", "short"},
		{"--onset-trim-labels", "1"},
		{"--onset-trim-ms", "40", "--onset-trim-labels", "1,1"},
		{"--onset-trim-ms", "40", "--onset-trim-labels", "1,,0"},
		{"--onset-trim-ms", "40", "--onset-trim-labels", "six"},
	} {
		var out, errb bytes.Buffer
		args := append([]string{"eval", "digits", "--fsdd", fsdd, "--m", "20"}, bad...)
		flag := bad[len(bad)-2] // the flag whose value is bad
		if code := run(args, &out, &errb); code == 0 || !strings.Contains(errb.String(), flag) {
			t.Errorf("%v: exit %d, stderr %q; want an error naming the flag", bad, code, errb.String())
		}
	}
}

// The espeak-ng voices say the digits 0-9; a training set with other labels
// is refused rather than given ten classes it does not have.
func TestSynthVoicesNeedDigitLabels(t *testing.T) {
	if _, err := exec.LookPath("espeak-ng"); err != nil {
		t.Skip("espeak-ng not installed")
	}
	t.Setenv("RFSTREAM_DATA", t.TempDir())
	var out, errb bytes.Buffer
	code := run([]string{"eval", "digits", "--fsdd", toyFSDD(t), "--m", "20", "--frames", "16", "--synth-voices", "1", "--synth-takes", "1"}, &out, &errb)
	if code == 0 || !strings.Contains(errb.String(), "synthetic voices say the digits") {
		t.Fatalf("exit %d, stderr %q", code, errb.String())
	}
}

// Pseudo-labels come only from voices absent from training, and within
// each predicted class from the recordings with the largest margins.
func TestPseudoLabelled(t *testing.T) {
	test := []datasets.Recording{{Speaker: "new"}, {Speaker: "new"}, {Speaker: "new"}, {Speaker: "old"}, {Speaker: "new"}, {Speaker: "new"}}
	scores := linalg.NewGeneral32(6, 2)
	copy(scores.Data, []float32{
		0.9, 0.1, // class 0, margin 0.8
		0.6, 0.4, // class 0, margin 0.2
		0.2, 0.8, // class 1, margin 0.6
		1.0, 0.0, // a trained voice: never taken
		0.55, 0.45, // class 0, margin 0.1
		0.45, 0.55, // class 1, margin 0.1
	})
	trained := map[string]bool{"old": true}
	rows, labels := pseudoLabelled(scores, test, trained, 0.5)
	// ceil(0.5·3) = 2 of class 0 (rows 0, 1), ceil(0.5·2) = 1 of class 1 (row 2).
	if !slices.Equal(rows, []int{0, 1, 2}) || !slices.Equal(labels, []int{0, 0, 1}) {
		t.Fatalf("rows %v labels %v", rows, labels)
	}
	rows, labels = pseudoLabelled(scores, test, trained, 1)
	if len(rows) != 5 || slices.Contains(rows, 3) {
		t.Fatalf("fraction 1: rows %v labels %v", rows, labels)
	}
	// A round refits on the training rows with the picked rows appended in
	// order under their labels, λ grown with the rows (classifier.RefitWithRows).
	x := linalg.NewGeneral32(1, 2)
	copy(x.Data, []float32{0.3, -0.2})
	id := features.NewIdentity(2)
	got, err := classifier.RefitWithRows(id, x, []int{1}, 2, 0.5, 1, scores, []int{2, 0}, []int{1, 0})
	if err != nil {
		t.Fatal(err)
	}
	xa := linalg.NewGeneral32(3, 2)
	copy(xa.Data, []float32{0.3, -0.2, 0.2, 0.8, 0.9, 0.1})
	want, _, err := classifier.FitRLS(id, xa, []int{1, 1, 0}, 2, classifier.FitOptions{Lambda: 1.5})
	if err != nil {
		t.Fatal(err)
	}
	if got.Lambda != 1.5 || !slices.Equal(got.W.Data, want.W.Data) {
		t.Fatalf("refit λ %v weights %v, want λ 1.5 and %v (the training row, then rows 2 and 0 labelled 1 and 0)", got.Lambda, got.W.Data, want.W.Data)
	}
}

// Leave-one-speaker-out on the toy voices with two self-training rounds:
// every held-out voice's recordings are pseudo-labelled in the last round.
func TestEvalDigitsSelfTrain(t *testing.T) {
	var out, errb bytes.Buffer
	code := run([]string{"eval", "digits", "--fsdd", toyFSDD(t), "--split", "speaker", "--m", "40", "--frames", "16", "--lambda", "1e-3",
		"--speaker-norm", "mean", "--self-train", "0.5,1", "--json"}, &out, &errb)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errb.String())
	}
	for _, want := range []string{"held-out ann seed 1: self-training round 1 took 10 ", "held-out bob seed 1: self-training round 2 took 20 "} {
		if !strings.Contains(errb.String(), want) {
			t.Errorf("stderr lacks %q:\n%s", want, errb.String())
		}
	}
	if !strings.Contains(out.String(), `"accuracy":`) {
		t.Errorf("no JSON result: %s", out.String())
	}
}

// A recording scored wrongly is outvoted by its nearest takes of the same
// voice; trained voices keep their scores; k = n averages over the voice.
func TestNeighbourSmoothed(t *testing.T) {
	test := []datasets.Recording{{Speaker: "v"}, {Speaker: "v"}, {Speaker: "v"}, {Speaker: "old"}, {Speaker: "v"}}
	x := linalg.NewGeneral32(5, 2)
	copy(x.Data, []float32{1, 0, 0.99, 0.141, 0, 1, 1, 0, 0.141, 0.99}) // rows 0,1 close; 2,4 close
	scores := linalg.NewGeneral32(5, 2)
	copy(scores.Data, []float32{3, 0, 0, 0.5, 0, 3, 7, 1, 0, 2}) // row 1 leans wrongly to class 1
	trained := map[string]bool{"old": true}
	s := neighbourSmoothed(scores, x, test, trained, 2)
	if got := classifier.Argmax(s); !slices.Equal(got, []int{0, 0, 1, 0, 1}) {
		t.Fatalf("argmax after smoothing %v, want row 1 outvoted to class 0", got)
	}
	if !slices.Equal(linalg.Row32(s, 3), linalg.Row32(scores, 3)) {
		t.Error("a trained voice's scores changed")
	}
	all := neighbourSmoothed(scores, x, test, trained, 10)
	for c := 0; c < 2; c++ {
		var want float64
		for _, i := range []int{0, 1, 2, 4} {
			want += standardised(linalg.Row32(scores, i))[c] / 4
		}
		for _, i := range []int{0, 1, 2, 4} {
			if math.Abs(float64(linalg.Row32(all, i)[c])-want) > 1e-6 {
				t.Fatalf("k ≥ n: row %d class %d is %v, want the voice's mean %v", i, c, linalg.Row32(all, i)[c], want)
			}
		}
	}
}

// With every class capped at its share, the recordings that fit the
// over-full class less well than the surest one go to the class each fits
// next best.
func TestBalancedPseudoLabelled(t *testing.T) {
	test := []datasets.Recording{{Speaker: "v"}, {Speaker: "v"}, {Speaker: "old"}, {Speaker: "v"}}
	scores := linalg.NewGeneral32(4, 3)
	copy(scores.Data, []float32{
		5, 0, 0, // class 0, z = 1.41
		4, 0, 1, // class 0, z = 1.37; next best class 2
		9, 0, 0, // a trained voice: never taken
		2, 1.5, 0, // class 0, z = 0.98; next best class 1
	})
	trained := map[string]bool{"old": true}
	rows, labels := balancedPseudoLabelled(scores, test, trained, 1)
	if !slices.Equal(rows, []int{0, 1, 3}) || !slices.Equal(labels, []int{0, 2, 1}) {
		t.Fatalf("rows %v labels %v, want 0→0, 1→2, 3→1", rows, labels)
	}
	// Unbalanced, all three would be class 0.
	if _, l := pseudoLabelled(scores, test, trained, 1); !slices.Equal(l, []int{0, 0, 0}) {
		t.Fatalf("unbalanced labels %v", l)
	}
}
