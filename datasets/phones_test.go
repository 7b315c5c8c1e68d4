package datasets

import (
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/rfstream/rfstream/frontend"
)

func TestEspeakToPhones(t *testing.T) {
	cases := []struct{ in, want string }{
		// Stress (' ,) and length (:) marks go; multi-letter symbols stay whole.
		{"D_@ k_'a_t s_'i:_z a# b_'0_t_@L", "dh ax k ae t s iy z ax b aa t ax l"},
		{"D_@2 k_'a_t s_'i:_z a# b_'0_t#_@L", "dh ax k ae t s iy z ax b aa t ax l"},
		{"tS_'3:_tS dZ_'V_dZ ,oU_v_3", "ch er ch jh ah jh ow v er"},
		// Pauses and modifiers are dropped.
		{"d_'0_g__! h_'a_p_i_;", "d aa g hh ae p iy"},
		{"m_'E_Z_3 w_'O:_t#_3_r- f_'aI@", "m eh zh er w ao t er r f ay ax"},
		{"", ""},
	}
	for _, c := range cases {
		got, err := EspeakToPhones(c.in)
		if err != nil {
			t.Fatalf("%q: %v", c.in, err)
		}
		if strings.Join(got, " ") != c.want {
			t.Errorf("%q: got %q, want %q", c.in, strings.Join(got, " "), c.want)
		}
	}
	if _, err := EspeakToPhones("h_@_l_'Q"); err == nil || !strings.Contains(err.Error(), `"'Q"`) {
		t.Errorf("unknown symbol: %v", err)
	}
}

func TestEspeakMappingCoversPhones(t *testing.T) {
	targets := map[string]bool{}
	for _, m := range espeakPhones {
		for _, p := range strings.Fields(m) {
			if !slices.Contains(Phones, p) {
				t.Errorf("mapping target %q is not in Phones", p)
			}
			targets[p] = true
		}
	}
	for _, p := range Phones {
		if !targets[p] {
			t.Errorf("phone %q is never a mapping target", p)
		}
	}
	if len(Phones) != 40 {
		t.Errorf("%d phones", len(Phones))
	}
}

func TestSentences(t *testing.T) {
	a, b := Sentences(50, 3), Sentences(50, 3)
	if !slices.Equal(a, b) {
		t.Fatal("same seed, different sentences")
	}
	if slices.Equal(a, Sentences(50, 4)) {
		t.Fatal("different seeds, same sentences")
	}
	vocab := map[string]bool{}
	for _, l := range [][]string{sentDet, sentAdj, sentNoun, sentPlace, sentVerbT, sentVerbI, sentAdv, sentPrep, sentConj} {
		for _, w := range l {
			vocab[w] = true
		}
	}
	for _, s := range a {
		n := strings.Fields(s)
		if len(n) < 3 {
			t.Fatalf("sentence %q is too short", s)
		}
		for _, w := range n {
			if !vocab[w] && w != "the" {
				t.Fatalf("%q in %q is not from the word lists", w, s)
			}
		}
	}
}

func needEspeak(t *testing.T) {
	if _, err := exec.LookPath("espeak-ng"); err != nil {
		t.Skip("espeak-ng is not installed (Debian: apt-get install espeak-ng); CI has it")
	}
}

// A real espeak-ng call: the transcription comes from the same voice that
// spoke, and the audio is at the asked rate.
func TestEspeakPhonemesCall(t *testing.T) {
	needEspeak(t)
	a, sym, err := EspeakPhonemes("the cat sees a bottle", Voice{Name: "en", Speed: 160, Pitch: 50}, 8000)
	if err != nil {
		t.Fatal(err)
	}
	phones, err := EspeakToPhones(sym)
	if err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(phones, " "); got != "dh ax k ae t s iy z ax b aa t ax l" {
		t.Fatalf("phones %q (espeak-ng said %q)", got, sym)
	}
	if a.Rate != 8000 || a.Duration() < 0.5 || a.Duration() > 5 {
		t.Fatalf("audio at %d Hz, %.2f s", a.Rate, a.Duration())
	}
}

func TestBuildPhoneCorpusTiny(t *testing.T) {
	needEspeak(t)
	dir := t.TempDir()
	o := DefaultPhoneCorpus()
	o.Voices = PhoneVoiceSplit{Train: []string{"en+m1", "en+f1"}, Dev: []string{"en+m8"}, Test: []string{"en+m7"}}
	o.TrainPerVoice, o.DevPerVoice, o.TestPerVoice = 2, 1, 1
	c, err := BuildPhoneCorpus(dir, o)
	if err != nil {
		t.Fatal(err)
	}
	voices := map[string]string{}
	for split, m := range map[string]string{"train": c.Train, "dev": c.Dev, "test": c.Test} {
		us, err := ReadTranscripts(m)
		if err != nil {
			t.Fatal(err)
		}
		for _, u := range us {
			v, _, _ := strings.Cut(u.Speaker, "/")
			if s, ok := voices[v]; ok && s != split {
				t.Fatalf("voice %s in %s and %s", v, s, split)
			}
			voices[v] = split
			for _, p := range u.Words {
				if !slices.Contains(Phones, p) {
					t.Fatalf("%s: phone %q", u.Path, p)
				}
			}
			a, err := frontend.ReadAudio(u.Path, 0)
			if err != nil || a.Rate != 8000 {
				t.Fatalf("%s: %v", u.Path, err)
			}
		}
	}
	if len(voices) != 4 || voices["en+m7"] != "test" {
		t.Fatalf("voices %v", voices)
	}
	// The texts drawn again are those the files say: espeak-ng gives the
	// same phones for them.
	texts := PhoneCorpusTexts(o)
	test, err := ReadTranscripts(c.Test)
	if err != nil {
		t.Fatal(err)
	}
	if len(texts) != 6 {
		t.Fatalf("%d texts, want 6", len(texts))
	}
	for _, u := range test {
		v, _, _ := strings.Cut(u.Speaker, "/")
		_, sym, err := EspeakPhonemes(texts[CorpusTextKey(u.Path)], Voice{Name: v, Speed: 160, Pitch: 50}, 8000)
		if err != nil {
			t.Fatal(err)
		}
		if phones, err := EspeakToPhones(sym); err != nil || !slices.Equal(phones, u.Words) {
			t.Errorf("%s: text %q says %q, the manifest %q (%v)", u.Path, texts[CorpusTextKey(u.Path)], phones, u.Words, err)
		}
	}
	// A second build with the same options reuses the files.
	stamp, _ := os.Stat(filepath.Join(dir, "train", "v00-000.wav"))
	if _, err := BuildPhoneCorpus(dir, o); err != nil {
		t.Fatal(err)
	}
	again, _ := os.Stat(filepath.Join(dir, "train", "v00-000.wav"))
	if !again.ModTime().Equal(stamp.ModTime()) {
		t.Fatal("corpus rebuilt although complete")
	}
}
