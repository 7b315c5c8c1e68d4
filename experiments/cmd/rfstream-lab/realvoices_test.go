package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/rfstream/rfstream/datasets"
	"github.com/rfstream/rfstream/internal/toymodels"
)

// toyDigit is digit d of a toy voice: a glide whose range and direction
// the digit sets, pitched by the voice's shift, in faint noise.
func toyDigit(d int, shift float64, seed uint32) []float32 {
	f0, f1 := 300+120*float64(d)+shift, 1400-60*float64(d)+shift
	if d%2 == 1 {
		f0, f1 = f1, f0
	}
	return append(append(toymodels.Noise(800, seed), toymodels.Glide(f0, f1, 0.3, seed)...), toymodels.Noise(800, seed+1)...)
}

// toyRealVoices writes an FSDD-named folder of two toy speakers (ten
// digits, takes 0-7) and a voices folder laid out as ../shared/voices is,
// its five voices saying the ten digits once, warzone also its countdown.
func toyRealVoices(t *testing.T) (fsdd, voices string) {
	t.Helper()
	fsdd, voices = t.TempDir(), t.TempDir()
	for si, spk := range []string{"ann", "bob"} {
		for take := range 8 {
			for d := range 10 {
				writeWAV(t, filepath.Join(fsdd, fmt.Sprintf("%d_%s_%d.wav", d, spk, take)), toyDigit(d, 40*float64(si), uint32(1000*si+10*take+d)))
			}
		}
	}
	for vi, v := range datasets.RealVoices() {
		dir := filepath.Join(voices, v.Dir)
		if err := os.MkdirAll(dir, 0o755); err != nil {
			t.Fatal(err)
		}
		for d := range 10 {
			name := fmt.Sprint(d)
			if strings.HasPrefix(v.Dir, "gcompris") {
				name = fmt.Sprintf("U%04X", '0'+d)
			}
			writeWAV(t, filepath.Join(dir, name+".wav"), toyDigit(d, 20*float64(vi)-40, uint32(5000+100*vi+d)))
		}
	}
	words := filepath.Join(voices, "gcompris-en", "words")
	if err := os.MkdirAll(words, 0o755); err != nil {
		t.Fatal(err)
	}
	for i, w := range []string{"apple", "ball", "cat", "dog", "egg", "fish", "goat", "hat"} {
		writeWAV(t, filepath.Join(words, w+".wav"), toymodels.Noise(4000, uint32(7000+i)))
	}
	cd := filepath.Join(voices, "warzone2100", "countdown")
	if err := os.MkdirAll(cd, 0o755); err != nil {
		t.Fatal(err)
	}
	var x []float32
	for d := 9; d >= 1; d-- {
		x = append(x, toyDigit(d, 0, uint32(9000+d))...)
	}
	writeWAV(t, filepath.Join(cd, "10to1.wav"), x)
	return fsdd, voices
}

// toyHedgewarsVoices fills dir as datasets.FetchHedgewarsVoices does (so
// nothing is fetched): each English pack says two phrases (noise, as the
// toy's real words are), named .ogg and written as WAV, which the readers
// tell by its header.
func toyHedgewarsVoices(t *testing.T, dir string) {
	t.Helper()
	for i, p := range []string{"British", "Classic", "Default", "HillBilly", "Mobster", "Pirate", "Robot", "Russian", "Singer", "Surfer"} {
		for j, w := range []string{"Hello", "Takecover"} {
			if err := os.MkdirAll(filepath.Join(dir, p), 0o755); err != nil {
				t.Fatal(err)
			}
			writeWAV(t, filepath.Join(dir, p, w+".ogg"), toymodels.Noise(3000, uint32(8000+10*i+j)))
		}
	}
	if err := os.WriteFile(filepath.Join(dir, ".complete"), []byte(datasets.HedgewarsRelease), 0o644); err != nil {
		t.Fatal(err)
	}
}

// The mode end to end on toy voices, the recipe training on the real
// voices: each held-out voice gets a model of its own that never heard
// it, its digits are scored alone and in paused and fluent strings, the
// countdown only for warzone, and the last line carries exactly the
// issue's keys, the pools being the voices' sums and means.
func TestEvalRealVoicesToy(t *testing.T) {
	fsdd, voices := toyRealVoices(t)
	data := t.TempDir()
	t.Setenv("RFSTREAM_DATA", data)
	toyHedgewarsVoices(t, filepath.Join(data, "hedgewars-voices"))
	var out, errb bytes.Buffer
	args := []string{"eval", "real-voices", "--json", "--reject-phrases", "--fsdd", fsdd, "--voices", voices, "--hold-out", "ann,rich,warzone",
		"--real-voices", voices, "--real-voice-copies", "2", "--fluent-strings", "10", "--fluent-max-overlap", "0.03",
		"--m", "128", "--q", "2", "--passes", "1", "--states", "3", "--sil-states", "1", "--train-strings", "20", "--tune=false",
		"--filler-voices", "0", "--strings", "5"}
	if code := run(args, &out, &errb); code != 0 {
		t.Fatalf("exit %d: %s", code, errb.String())
	}
	lines := strings.Split(strings.TrimSpace(out.String()), "\n")
	last := []byte(lines[len(lines)-1])
	var keys map[string]json.RawMessage
	if err := json.Unmarshal(last, &keys); err != nil {
		t.Fatalf("%v: %s", err, out.String())
	}
	// The keys, and the two that tell make results whose run it
	// was (the recipe's fingerprint, the live path or not).
	want := []string{"connected_wer", "female_accuracy", "fluent_wer", "isolated_accuracy", "live", "male_accuracy", "min_voice_accuracy", "per_voice", "recipe"}
	if got := slices.Sorted(func(yield func(string) bool) {
		for k := range keys {
			if !yield(k) {
				return
			}
		}
	}); !slices.Equal(got, want) {
		t.Errorf("last line's keys %v, want %v", got, want)
	}
	var res realVoicesResult
	if err := json.Unmarshal(last, &res); err != nil {
		t.Fatal(err)
	}
	if len(res.PerVoice) != 3 {
		t.Fatalf("per voice %+v", res.PerVoice)
	}
	if got := strings.Count(errb.String(), "real-voices: training without"); got != 3 {
		t.Errorf("%d trainings for three held-out voices with the real voices in the recipe, want 3", got)
	}
	for v, digits := range map[string]int{"ann": 80, "rich": 10, "warzone": 10} {
		s := res.PerVoice[v]
		if s.Digits != digits || s.Paused.Strings != 5 || s.Fluent.Strings != 5 || s.Sex != map[bool]string{true: datasets.Male, false: datasets.Female}[v == "ann"] {
			t.Errorf("%s: %+v", v, s)
		}
		// Two held-out words (apple, egg) of eight: the share is 0, ½ or 1.
		if w := s.WordsRejected; w != 0 && w != 0.5 && w != 1 || s.DigitsRejected < 0 || s.DigitsRejected > 1-s.Accuracy {
			t.Errorf("%s: words rejected %g, digits rejected %g (accuracy %g)", v, w, s.DigitsRejected, s.Accuracy)
		}
		// The four held-out packs' two phrases each: eighths.
		if p := 8 * s.PhrasesRejected; p != float64(int(p)) || p < 0 || p > 8 {
			t.Errorf("%s: phrases rejected %g, not a share of eight", v, s.PhrasesRejected)
		}
		if (s.Countdown.Words == 9) != (v == "warzone") {
			t.Errorf("%s: countdown %+v (warzone's nine digits only)", v, s.Countdown)
		}
	}
	if !strings.Contains(errb.String(), "the real voices but [rich]") || strings.Contains(errb.String(), "the real voices but [ann]") {
		t.Errorf("the folds did not leave out exactly the held-out real voice:\n%s", errb.String())
	}
	mean := (res.PerVoice["ann"].Accuracy + res.PerVoice["rich"].Accuracy + res.PerVoice["warzone"].Accuracy) / 3
	if res.IsolatedAccuracy != mean || res.MaleAccuracy != res.PerVoice["ann"].Accuracy ||
		res.FemaleAccuracy != (res.PerVoice["rich"].Accuracy+res.PerVoice["warzone"].Accuracy)/2 {
		t.Errorf("pools %+v are not the voices' means", res)
	}
	var ferr, fwords int
	for _, s := range res.PerVoice {
		for _, c := range []connScore{s.Fluent, s.Countdown} {
			ferr += c.Sub + c.Ins + c.Del
			fwords += c.Words
		}
	}
	if res.FluentWER != float64(ferr)/float64(fwords) {
		t.Errorf("fluent WER %g, want %d/%d", res.FluentWER, ferr, fwords)
	}
	t.Logf("\n%s", out.String())
	checkRealVoicesMerge(t, args, errb.String(), res)
	// The live path (`rfstream recognize`'s) scores the same sets; with
	// --warps 1 (the identity warp, one pass) a second JSON line hears
	// them through the same model, and must score exactly as the first.
	out.Reset()
	live := []string{"eval", "real-voices", "--json", "--fsdd", fsdd, "--voices", voices, "--hold-out", "warzone", "--live", "--warps", "1", "--filler-biases", "3",
		"--real-voices", voices, "--real-voice-copies", "2", "--fluent-strings", "10",
		"--m", "128", "--q", "2", "--passes", "1", "--states", "3", "--sil-states", "1", "--train-strings", "20", "--tune=false",
		"--filler-voices", "0", "--strings", "3"}
	if code := run(live, &out, &errb); code != 0 {
		t.Fatalf("--live: exit %d: %s", code, errb.String())
	}
	lines = strings.Split(strings.TrimSpace(out.String()), "\n")
	var lres realVoicesResult
	if err := json.Unmarshal([]byte(lines[len(lines)-1]), &lres); err != nil {
		t.Fatal(err)
	}
	if s := lres.PerVoice["warzone"]; s.Digits != 10 || s.Paused.Strings != 3 || s.Countdown.Words != 9 {
		t.Errorf("--live: %+v", s)
	}
	var plain realVoicesResult
	var jsonLines []string
	for _, l := range lines {
		if strings.HasPrefix(l, "{") {
			jsonLines = append(jsonLines, l)
		}
	}
	// Today's decoder, the warp search, the filler bias: one line each.
	if len(jsonLines) != 3 {
		t.Fatalf("--warps, --filler-biases: %d JSON lines, want 3:\n%s", len(jsonLines), out.String())
	}
	var warped realVoicesResult
	if err := json.Unmarshal([]byte(jsonLines[0]), &plain); err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal([]byte(jsonLines[1]), &warped); err != nil {
		t.Fatal(err)
	}
	if len(plain.Warps) != 0 || plain.FillerBias != nil || !slices.Equal(warped.Warps, []float64{1}) || !reflect.DeepEqual(plain.PerVoice, warped.PerVoice) {
		t.Errorf("--warps 1: today's decoder %+v, the identity warp %+v", plain, warped)
	}
	// The toy model has no filler: a bias on it changes nothing heard.
	if lres.FillerBias == nil || *lres.FillerBias != 3 || lres.Warps != nil || !reflect.DeepEqual(plain.PerVoice, lres.PerVoice) {
		t.Errorf("--filler-biases 3 on a model with no filler: %+v, today's decoder %+v", lres, plain)
	}
	// The fingerprint names the run's recipe and test sets: --fingerprint
	// prints it without running, another recipe has another.
	for _, c := range []struct {
		extra []string
		same  bool
	}{{nil, true}, {[]string{"--m", "64"}, false}, {[]string{"--strings", "4"}, false}} {
		out.Reset()
		if code := run(append(append(slices.Clone(live), c.extra...), "--fingerprint"), &out, &errb); code != 0 {
			t.Fatalf("--fingerprint: exit %d: %s", code, errb.String())
		}
		if got := strings.TrimSpace(out.String()); (got == lres.Recipe) != c.same || len(got) != 16 || !lres.Live {
			t.Errorf("%v --fingerprint: %q, the run's recipe %q (live %v); want them equal: %v", c.extra, got, lres.Recipe, lres.Live, c.same)
		}
	}
	if code := run([]string{"eval", "real-voices", "--fsdd", fsdd, "--voices", voices, "--warps", "1,2"}, &out, &errb); code == 0 {
		t.Error("a warp of 2 was accepted")
	}
	if code := run([]string{"eval", "real-voices", "--fsdd", fsdd, "--voices", voices, "--filler-biases", "0,NaN"}, &out, &errb); code == 0 {
		t.Error("a filler bias NaN was accepted")
	}
	if code := run([]string{"eval", "real-voices", "--fsdd", fsdd, "--voices", voices, "--hold-out", "zed"}, &out, &errb); code == 0 {
		t.Error("an unknown voice was accepted")
	}
	// The phrases are read before any training: a pack missing from the
	// fetched folder is named at once.
	if err := os.RemoveAll(filepath.Join(data, "hedgewars-voices", "Surfer")); err != nil {
		t.Fatal(err)
	}
	errb.Reset()
	if code := run(args, &out, &errb); code == 0 || !strings.Contains(errb.String(), "Surfer") || strings.Contains(errb.String(), "training without") {
		t.Errorf("--reject-phrases without the Surfer pack: exit %d, %s", code, errb.String())
	}
}

// checkRealVoicesMerge splits a run over three voices as two processes
// would leave it (ann's progress line on one's stderr, a JSON line of rich
// and warzone from the other) and checks that --merge with the same flags
// pools them into the run's own figures, and refuses a voice scored twice
// and a run of another recipe.
func checkRealVoicesMerge(t *testing.T, args []string, stderr string, whole realVoicesResult) {
	t.Helper()
	dir := t.TempDir()
	var ann []string
	for _, l := range strings.Split(stderr, "\n") {
		if strings.HasPrefix(l, "real-voices: ann {") || strings.HasPrefix(l, "real-voices: training") {
			ann = append(ann, l)
		}
	}
	part := whole
	part.PerVoice = map[string]realVoiceScore{"rich": whole.PerVoice["rich"], "warzone": whole.PerVoice["warzone"]}
	b, err := json.Marshal(part)
	if err != nil {
		t.Fatal(err)
	}
	progress, rest := filepath.Join(dir, "a.err"), filepath.Join(dir, "b.out")
	if err := os.WriteFile(progress, []byte(strings.Join(ann, "\n")+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(rest, []byte("table\n"+string(b)+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	merged := func(files string) (realVoicesResult, string, int) {
		var out, errb bytes.Buffer
		code := run(append(slices.Clone(args), "--merge", files), &out, &errb)
		lines := strings.Split(strings.TrimSpace(out.String()), "\n")
		var res realVoicesResult
		if code == 0 {
			if err := json.Unmarshal([]byte(lines[len(lines)-1]), &res); err != nil {
				t.Fatalf("--merge: %v: %s", err, out.String())
			}
		}
		return res, errb.String(), code
	}
	got, msg, code := merged(progress + "," + rest)
	if code != 0 {
		t.Fatalf("--merge: exit %d: %s", code, msg)
	}
	if got.IsolatedAccuracy != whole.IsolatedAccuracy || got.MinVoiceAccuracy != whole.MinVoiceAccuracy ||
		got.FemaleAccuracy != whole.FemaleAccuracy || got.MaleAccuracy != whole.MaleAccuracy ||
		got.ConnectedWER != whole.ConnectedWER || got.FluentWER != whole.FluentWER || got.Recipe != whole.Recipe ||
		!reflect.DeepEqual(got.PerVoice, whole.PerVoice) {
		t.Errorf("merged %+v, the whole run %+v", got, whole)
	}
	if _, msg, code := merged(rest + "," + rest); code == 0 || !strings.Contains(msg, "again") {
		t.Errorf("a voice scored twice was pooled (exit %d): %s", code, msg)
	}
	other := strings.Replace(string(b), `"recipe":"`+whole.Recipe, `"recipe":"0000`, 1)
	if err := os.WriteFile(rest, []byte(other+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, msg, code := merged(rest); code == 0 || !strings.Contains(msg, "not of these flags") {
		t.Errorf("another recipe's run was pooled (exit %d): %s", code, msg)
	}
}
