package frontend

import (
	"math"
	"math/rand/v2"
	"slices"
	"strconv"
	"testing"
)

func TestSpeechRegionFindsTheBurst(t *testing.T) {
	// 1 s of faint noise with a loud tone from 0.4 s to 0.7 s.
	x := make([]float32, 8000)
	var lcg uint32 = 7
	for i := range x {
		lcg = lcg*1664525 + 1013904223
		x[i] = 0.001 * (float32(lcg>>8)/float32(1<<24) - 0.5)
		if i >= 3200 && i < 5600 {
			x[i] += float32(0.5 * math.Sin(2*math.Pi*700*float64(i)/8000))
		}
	}
	_, e := LogMel(DefaultAudioConfig(), x)
	a, b := SpeechRegion(e, 35)
	// Frame i covers samples [80i, 80i+200): the tone touches frames 38..69.
	if a < 37 || a > 41 || b < 68 || b > 71 {
		t.Fatalf("speech region frames [%d,%d), want about [38,70)", a, b)
	}
}

func TestWordVectorIsUnitAndDurationFree(t *testing.T) {
	wc := DefaultWordConfig()
	tone := func(n int) []float32 {
		x := make([]float32, n)
		for i := range x {
			x[i] = float32(0.3 * math.Sin(2*math.Pi*(400+300*float64(i)/float64(n))*float64(i)/8000))
		}
		return x
	}
	a, err := WordVector(wc, tone(4000))
	if err != nil {
		t.Fatal(err)
	}
	b, _ := WordVector(wc, tone(8000)) // the same glide, twice as slow
	var na, dot float64
	for i := range a {
		na += float64(a[i]) * float64(a[i])
		dot += float64(a[i]) * float64(b[i])
	}
	if math.Abs(na-1) > 1e-5 || len(a) != wc.Dim() {
		t.Fatalf("word vector of length %d has squared norm %v", len(a), na)
	}
	if dot < 0.9 {
		t.Fatalf("a glide and its half-speed copy have cosine %.3f, want > 0.9", dot)
	}
	if _, err := WordVector(wc, nil); err == nil {
		t.Fatal("empty recording accepted")
	}
}

// Liftering keeps a spectrum built from the first k cepstral basis
// vectors and removes a ripple made of higher ones (pitch harmonics).
func TestSmoothBandsKeepsEnvelopeDropsRipple(t *testing.T) {
	const mels, k = 40, 12
	env, ripple := make([]float32, mels), make([]float32, mels)
	for j := range env {
		x := math.Pi * (float64(j) + 0.5) / mels
		env[j] = float32(2 + math.Cos(x) - 0.5*math.Cos(5*x) + 0.3*math.Cos(11*x))
		ripple[j] = float32(math.Cos(20*x) - 0.7*math.Cos(31*x))
	}
	patch := make([]float32, 2*mels) // two frames: envelope, envelope + ripple
	copy(patch, env)
	for j := range env {
		patch[mels+j] = env[j] + ripple[j]
	}
	smoothBands(patch, mels, k)
	for f := 0; f < 2; f++ {
		for j := range env {
			if d := math.Abs(float64(patch[f*mels+j] - env[j])); d > 1e-5 {
				t.Fatalf("frame %d band %d: %v after liftering, envelope %v", f, j, patch[f*mels+j], env[j])
			}
		}
	}
	wc := DefaultWordConfig()
	wc.Lifter = -1
	if _, err := WordVector(wc, make([]float32, 4000)); err == nil {
		t.Fatal("negative lifter accepted")
	}
}

// A recording trimmed close to the word (no silence: a quiet fricative
// straight into a loud vowel) has its "noise floor" percentile inside the
// fricative. The default floor rule then drops the fricative; with the
// rule off (FloorShare < 0) the margin below the loud level keeps it.
func TestFloorShareKeepsQuietOnsetOfTrimmedWord(t *testing.T) {
	const fric, vowel = 800, 2400 // 0.1 s of hiss at −20 dB, 0.3 s of tone
	x := make([]float32, fric+vowel)
	var lcg uint32 = 11
	for i := range x {
		lcg = lcg*1664525 + 1013904223
		if i < fric {
			x[i] = 0.05 * 2 * (float32(lcg>>8)/float32(1<<24) - 0.5) * 1.7
		} else {
			x[i] = float32(0.5 * math.Sin(2*math.Pi*500*float64(i)/8000))
		}
	}
	_, e := LogMel(DefaultAudioConfig(), x)
	// The vowel's first whole frame is 10 (frames start every 80 samples).
	if a, _ := SpeechRegion(e, 35); a < 8 {
		t.Fatalf("default rule: speech starts at frame %d, want the fricative (frames 0-7) cut", a)
	}
	if a, _ := SpeechRegionShare(e, 35, 0); a > 2 {
		t.Fatalf("floor rule off: speech starts at frame %d, want the fricative kept", a)
	}
	wc := DefaultWordConfig()
	if got := wc.SpeechFloorShare(); got != 1.0/3 {
		t.Fatalf("zero FloorShare means %v, want the default 1/3", got)
	}
	explicit := wc
	explicit.FloorShare = 1.0 / 3
	v0, err := WordVector(wc, x)
	if err != nil {
		t.Fatal(err)
	}
	v1, _ := WordVector(explicit, x)
	off := wc
	off.FloorShare = -1
	v2, _ := WordVector(off, x)
	var same, diff float64
	for i := range v0 {
		same = math.Max(same, math.Abs(float64(v0[i]-v1[i])))
		diff = math.Max(diff, math.Abs(float64(v0[i]-v2[i])))
	}
	if same != 0 || diff < 0.01 {
		t.Fatalf("zero vs explicit 1/3: max difference %g (want 0); rule off: %g (want a different vector)", same, diff)
	}
	if got := off.SpeechFloorShare(); got != 0 {
		t.Fatalf("negative FloorShare means %v, want 0 (off)", got)
	}
}

// The region grows from the loudest frame across short quiet stretches
// and stops at a long one: a click after a long silence is left out.
func TestSpeechRegionAroundPeak(t *testing.T) {
	// frames: 0-1 quiet, 2-4 speech, 5-6 gap (2 frames), 7-9 speech with
	// the peak at 8, 10-19 silence, 20 a click, 21 quiet.
	e := []float64{0, 0, 5, 5, 5, 0, 0, 6, 9, 6, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 7, 0}
	if a, b := SpeechRegionAroundPeak(e, 4, 2); a != 2 || b != 10 {
		t.Fatalf("gap 2: region [%d,%d), want [2,10)", a, b)
	}
	if a, b := SpeechRegionAroundPeak(e, 4, 1); a != 7 || b != 10 {
		t.Fatalf("gap 1: region [%d,%d), want [7,10) (the 2-frame gap ends it)", a, b)
	}
	if a, b := SpeechRegionAroundPeak(e, 4, 10); a != 2 || b != 21 {
		t.Fatalf("gap 10: region [%d,%d), want [2,21) (the click bridged)", a, b)
	}
	// The threshold rule alone keeps the click.
	if a, b := SpeechRegionShare(e, 1000, 0.4); a != 2 || b != 21 {
		t.Fatalf("first to last loud frame: [%d,%d), want [2,21)", a, b)
	}
	// A config with MaxGapMs uses it, in frames of its hop (20 ms = 2).
	wc := DefaultWordConfig()
	wc.MaxGapMs = 20
	a0, b0 := SpeechRegionAroundPeak(e, SpeechThreshold(e, wc.MarginDB, 1.0/3), 2)
	if a, b := wc.SpeechRegion(e); a != a0 || b != b0 {
		t.Fatalf("WordConfig.SpeechRegion [%d,%d), want [%d,%d)", a, b, a0, b0)
	}
	wc.MaxGapMs = 0
	if a, b := wc.SpeechRegion(e); a != 2 || b != 21 {
		t.Fatalf("without a gap limit: [%d,%d), want [2,21)", a, b)
	}
	if a, b := SpeechRegionAroundPeak(nil, 0, 3); a != 0 || b != 0 {
		t.Fatalf("empty: [%d,%d)", a, b)
	}
}

// The onset-trimmed vector of a recording is the word vector of the same
// recording with its first samples cut off up to the trimmed region start:
// the trim moves where the word begins and changes nothing else.
// glideInNoise is 0.3 s of faint noise, a 0.4 s glide from 400 to 2000 Hz
// and 0.2 s of noise at 8 kHz: a word whose region the detector finds
// exactly.
func glideInNoise() []float32 {
	x := make([]float32, 7200)
	var lcg uint32 = 11
	phase := 0.0
	for i := range x {
		lcg = lcg*1664525 + 1013904223
		x[i] = 0.001 * (float32(lcg>>8)/float32(1<<24) - 0.5)
		if i >= 2400 && i < 5600 {
			f := 400 + 1600*float64(i-2400)/3200
			phase += 2 * math.Pi * f / 8000
			x[i] += float32(0.3 * math.Sin(phase))
		}
	}
	return x
}

// A trimmed vector is the vector of the recording cut where the trimmed
// region starts (an onset trim: a recording cut after the word began) or
// ends (an offset trim: a stream segment whose decay was lost).
func TestWordVectorTrimmedEqualsCutRecording(t *testing.T) {
	wc := DefaultWordConfig()
	// Without pre-emphasis the cut recording's first frame is exactly the
	// original's frame a+trim (with it, the cut's first sample would lose
	// its predecessor's term: a click in the high bands).
	wc.Audio.PreEmph = 0
	x := glideInNoise()
	_, e := LogMel(wc.Audio, x)
	a, b := wc.SpeechRegion(e)
	plain, err := WordVector(wc, x)
	if err != nil {
		t.Fatal(err)
	}
	zero, err := WordVectorTrimmed(wc, x, 0, 0)
	if err != nil {
		t.Fatal(err)
	}
	for i := range plain {
		if zero[i] != plain[i] {
			t.Fatalf("zero trim: element %d is %g, WordVector's %g", i, zero[i], plain[i])
		}
	}
	const trim = 8 // frames: 80 ms at a 10 ms hop
	hop, flen := wc.Audio.Hop(), wc.Audio.FrameLen()
	for _, c := range []struct {
		side             string
		onset, offset    float64
		cut              []float32
		wantFrom, wantTo int
	}{
		// Frame i covers samples [80i, 80i+200): cutting 80·(a+trim)
		// samples makes the old frame a+trim the first one.
		{"onset", 80, 0, x[hop*(a+trim):], 0, b - a - trim},
		// Keeping the samples of frames up to b-trim-1 and nothing after
		// makes that the last frame.
		{"offset", 0, 80, x[:hop*(b-trim-1)+flen], a, b - trim},
	} {
		trimmed, err := WordVectorTrimmed(wc, x, c.onset, c.offset)
		if err != nil {
			t.Fatal(err)
		}
		_, ec := LogMel(wc.Audio, c.cut)
		if ca, cb := wc.SpeechRegion(ec); ca != c.wantFrom || cb != c.wantTo {
			t.Fatalf("%s: cut recording's region [%d,%d), want [%d,%d) (original [%d,%d))", c.side, ca, cb, c.wantFrom, c.wantTo, a, b)
		}
		want, err := WordVector(wc, c.cut)
		if err != nil {
			t.Fatal(err)
		}
		var diffCut, diffPlain float64
		for i := range want {
			diffCut = math.Max(diffCut, math.Abs(float64(trimmed[i]-want[i])))
			diffPlain = math.Max(diffPlain, math.Abs(float64(trimmed[i]-plain[i])))
		}
		if diffCut > 1e-5 {
			t.Fatalf("%s: trimmed vector differs from the cut recording's by %g", c.side, diffCut)
		}
		if diffPlain < 0.02 {
			t.Fatalf("%s: trimmed vector within %g of the untrimmed one: the trim did nothing", c.side, diffPlain)
		}
	}
	onset, err := WordVectorOnsetTrimmed(wc, x, 80)
	if err != nil {
		t.Fatal(err)
	}
	if both, err := WordVectorTrimmed(wc, x, 80, 0); err != nil || !slices.Equal(onset, both) {
		t.Fatalf("WordVectorOnsetTrimmed is not WordVectorTrimmed with no offset trim (%v)", err)
	}
	for _, bad := range []float64{-10, math.NaN(), math.Inf(1), math.Inf(-1)} {
		if _, err := WordVectorTrimmed(wc, x, bad, 0); err == nil {
			t.Fatalf("onset trim %g ms: no error", bad)
		}
		if _, err := WordVectorTrimmed(wc, x, 0, bad); err == nil {
			t.Fatalf("offset trim %g ms: no error", bad)
		}
	}
}

// TrimOnset keeps a region's second half, TrimOffset its first.
func TestTrimsKeepHalfTheRegion(t *testing.T) {
	for _, c := range []struct{ a, b, trim, onset, offset int }{
		{10, 40, 0, 10, 40}, {10, 40, -3, 10, 40}, {10, 40, 8, 18, 32}, {10, 40, 15, 25, 25}, {10, 40, 16, 25, 25},
		{10, 40, 100, 25, 25}, {5, 6, 4, 5, 6}, {5, 7, 4, 6, 6}, {0, 0, 3, 0, 0},
	} {
		if got := TrimOnset(c.a, c.b, c.trim); got != c.onset {
			t.Errorf("TrimOnset(%d, %d, %d) = %d, want %d", c.a, c.b, c.trim, got, c.onset)
		}
		if got := TrimOffset(c.a, c.b, c.trim); got != c.offset {
			t.Errorf("TrimOffset(%d, %d, %d) = %d, want %d", c.a, c.b, c.trim, got, c.offset)
		}
	}
}

// liftLevels raises each frame by min(loudest level − its level, most),
// adding the same amount to every band of the frame.
func TestLiftLevelsClosedForm(t *testing.T) {
	const mels = 3
	patch := []float32{
		1, 2, 3, // level 2: the loudest
		-2, -1, 0, // level -1: 3 below, lifted by the most, 2
		1, 1.5, 2, // level 1.5: 0.5 below, lifted to the loudest
	}
	liftLevels(patch, mels, 2)
	want := []float32{1, 2, 3, 0, 1, 2, 1.5, 2, 2.5}
	for i := range want {
		if math.Abs(float64(patch[i]-want[i])) > 1e-6 {
			t.Fatalf("lifted patch %v, want %v", patch, want)
		}
	}
}

// A word whose second half is the same tone 20 dB down: without the lift
// its quiet frames sit below its loud ones; lifted by more than the gap,
// every frame has the patch's level (zero mean once the patch mean is
// removed) and keeps its spectral shape, up to the vector's one scale.
func TestWordVectorLevelLift(t *testing.T) {
	wc := DefaultWordConfig()
	wc.RangeDB = 0     // the clamp would change quiet bands' shape
	wc.FloorShare = -1 // the quiet half is speech: 20 dB is within the margin
	x := make([]float32, 4000)
	for i := range x {
		amp := 0.3
		if i >= 2000 {
			amp = 0.03
		}
		x[i] = float32(amp * math.Sin(2*math.Pi*700*float64(i)/8000))
	}
	plain, err := WordVector(wc, x)
	if err != nil {
		t.Fatal(err)
	}
	wc.LevelLiftDB = 100
	lifted, err := WordVector(wc, x)
	if err != nil {
		t.Fatal(err)
	}
	mels := wc.Audio.Mels
	frameMean := func(v []float32, f int) float64 {
		var s float64
		for _, x := range v[f*mels : (f+1)*mels] {
			s += float64(x)
		}
		return s / float64(mels)
	}
	first, last := frameMean(plain, 0), frameMean(plain, wc.Frames-1)
	if first-last < 0.02 { // 20 dB is 4.6 nats, against band-to-band spreads of a tone far larger
		t.Fatalf("unlifted: first frame mean %.4f, last %.4f; want the quiet end well below", first, last)
	}
	// The scale between the two vectors, from the first frame's shape.
	var num, den float64
	for k := 0; k < mels; k++ {
		p := float64(plain[k]) - first
		l := float64(lifted[k]) - frameMean(lifted, 0)
		num += p * l
		den += p * p
	}
	scale := num / den
	for f := 0; f < wc.Frames; f++ {
		if m := frameMean(lifted, f); math.Abs(m) > 1e-5 {
			t.Fatalf("lifted frame %d has mean %.2e, want 0", f, m)
		}
		pm := frameMean(plain, f)
		for k := 0; k < mels; k++ {
			want := scale * (float64(plain[f*mels+k]) - pm)
			if got := float64(lifted[f*mels+k]); math.Abs(got-want) > 1e-4 {
				t.Fatalf("frame %d band %d: %.5f, want the unlifted shape %.5f", f, k, got, want)
			}
		}
	}
	for _, bad := range []float64{-1, math.NaN(), math.Inf(1)} {
		wc.LevelLiftDB = bad
		if _, err := WordVector(wc, x); err == nil {
			t.Fatalf("level lift %g dB: no error", bad)
		}
	}
}

func TestSpeechRegionOverBackground(t *testing.T) {
	// Natural-log energies: background at 0 nats (0 dB), a word whose
	// quiet edges are 1 nat (4.3 dB) over it and whose core is 5 nats
	// (21.7 dB) over it. With the noise-floor rule off the config's own
	// detector keeps every frame within 35 dB of the peak, padding too.
	e := []float64{0, 0, 0, 1, 1, 5, 5, 5, 1, 0, 0}
	wc := DefaultWordConfig()
	wc.FloorShare = -1
	if a, b := wc.SpeechRegion(e); a != 0 || b != len(e) {
		t.Fatalf("file detector: [%d,%d), want the whole segment", a, b)
	}
	// The background known: frames under 6 dB above it are not speech.
	if a, b := wc.SpeechRegionOverBackground(e, 0); a != 5 || b != 8 {
		t.Fatalf("over a 0 dB background: [%d,%d), want [5,8)", a, b)
	}
	// A background 3 dB lower: the 4.3 dB edges now count (7.3 dB over).
	if a, b := wc.SpeechRegionOverBackground(e, -3); a != 3 || b != 9 {
		t.Fatalf("over a -3 dB background: [%d,%d), want [3,9)", a, b)
	}
	// No frame 6 dB over the background: the config's detector alone.
	if a, b := wc.SpeechRegionOverBackground(e, 30); a != 0 || b != len(e) {
		t.Fatalf("background above the word: [%d,%d), want the detector's own", a, b)
	}
	// With a gap limit the bound is part of the threshold it bridges.
	wc.MaxGapMs = 10 // one frame
	if a, b := wc.SpeechRegionOverBackground(e, 0); a != 5 || b != 8 {
		t.Fatalf("gap limit over a 0 dB background: [%d,%d), want [5,8)", a, b)
	}
}

func TestWordVectorOverBackgroundLeavesPaddingOut(t *testing.T) {
	// A tone word between stretches of loud noise: over the noise's level
	// the vector is close to the word's cut at its bounds.
	wc := DefaultWordConfig()
	wc.FloorShare, wc.MaxGapMs = -1, 100
	rate := wc.Audio.SampleRate
	rng := rand.New(rand.NewPCG(1, 2))
	noise := func(n int) []float32 {
		x := make([]float32, n)
		for i := range x {
			x[i] = float32(0.01 * rng.NormFloat64())
		}
		return x
	}
	word := make([]float32, rate/2)
	for i := range word {
		word[i] = float32(0.5*math.Sin(2*math.Pi*440*float64(i)/float64(rate))) + float32(0.01*rng.NormFloat64())
	}
	seg := append(append(noise(rate/5), word...), noise(rate/5)...)
	// The noise's frame energy in dB, as the segmenter measures it.
	_, energy := LogMel(wc.Audio, noise(rate))
	bg := 0.0
	for _, e := range energy {
		bg += e
	}
	bg = bg / float64(len(energy)) * nats2dB
	over, err := WordVectorOverBackground(wc, seg, bg)
	if err != nil {
		t.Fatal(err)
	}
	file, err := WordVector(wc, seg)
	if err != nil {
		t.Fatal(err)
	}
	alone, err := WordVector(wc, word)
	if err != nil {
		t.Fatal(err)
	}
	cos := func(a, b []float32) float64 {
		var s float64
		for i := range a {
			s += float64(a[i]) * float64(b[i])
		}
		return s
	}
	// Frames straddling the word's edges still differ (measured 0.947);
	// the file detector's vector stretches the noise in (0.663).
	if c, f := cos(over, alone), cos(file, alone); c < 0.9 || c < f+0.2 {
		t.Fatalf("cosine with the word alone: %.4f over the background, %.4f with the file detector; want ≥ 0.9 and 0.2 higher", c, f)
	}
	if _, err := WordVectorOverBackground(wc, seg, math.NaN()); err == nil {
		t.Fatal("a NaN background was accepted")
	}
}

// WordFrames gives LogMel's frames and energies bit for bit for a word
// that grows call by call, for samples that start elsewhere (a new word),
// and for a word still shorter than one frame.
func TestWordFramesEqualLogMel(t *testing.T) {
	x := chirpish(8000, 1.0)
	c := DefaultAudioConfig()
	var f WordFrames
	check := func(what string, s []float32) {
		t.Helper()
		got, gotE := f.LogMel(c, s)
		want, wantE := LogMel(c, s)
		if got.Rows != want.Rows || len(gotE) != len(wantE) || got.Cols != want.Cols {
			t.Fatalf("%s: %d×%d frames, %d energies; LogMel %d×%d, %d", what, got.Rows, got.Cols, len(gotE), want.Rows, want.Cols, len(wantE))
		}
		for i := range want.Data[:want.Rows*want.Cols] {
			if math.Float32bits(got.Data[i]) != math.Float32bits(want.Data[i]) {
				t.Fatalf("%s: value %d is %v, LogMel %v", what, i, got.Data[i], want.Data[i])
			}
		}
		for i := range wantE {
			if math.Float64bits(gotE[i]) != math.Float64bits(wantE[i]) {
				t.Fatalf("%s: energy %d is %v, LogMel %v", what, i, gotE[i], wantE[i])
			}
		}
	}
	check("shorter than a frame", x[:120])
	ext := f.ext
	for _, n := range []int{1600, 1601, 3200, 3203, 8000} {
		check("grown to "+strconv.Itoa(n), x[:n])
	}
	check("a shorter one, within the frames seen", x[:5000])
	check("shorter than a frame again", x[:150])
	// One analysis of the word: every frame once.
	if f.ext != ext || f.ext.Frames() != (8000-200)/80+1 {
		t.Fatalf("the word was analysed afresh (%d frames in its extractor, want 98)", f.ext.Frames())
	}
	check("another word", x[400:2000])
	if f.ext == ext {
		t.Fatal("another word's samples were taken for the same word's")
	}
	check("the same again", x[400:2000])
	y := append([]float32(nil), x[400:3000]...)
	y[10] = -y[10]
	check("a changed sample inside the frames seen", y)
	if f.ext == nil || len(f.fed) != len(y) {
		t.Fatalf("WordFrames holds %d samples, want the last call's %d", len(f.fed), len(y))
	}
}
