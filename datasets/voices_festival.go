package datasets

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"

	"github.com/rfstream/rfstream/internal/parallel"
	"github.com/rfstream/rfstream/internal/sox"
)

// festivalVoiceDirs is where Debian's festvox packages put their voices.
var festivalVoiceDirs = []string{"/usr/share/festival/voices/english", "/usr/share/festival/voices/us"}

// festivalVoices are the festvox voices rfstream uses, by the name of
// their folder (festival's voice_NAME selects one) and the sex of the
// speaker recorded: festvox-kallpc16k, festvox-kdlpc16k, festvox-us-slt-hts.
var festivalVoices = []EngineVoice{{"kal_diphone", Male}, {"ked_diphone", Male}, {"cmu_us_slt_arctic_hts", Female}}

// FestivalEngine is festival as a corpus source: whichever of
// festivalVoices are installed.
type FestivalEngine struct{}

func (FestivalEngine) Name() string { return "festival" }

func (e FestivalEngine) Available() error {
	if _, err := exec.LookPath("festival"); err != nil {
		return errors.New("festival is not installed (Debian: apt-get install festival festvox-kallpc16k)")
	}
	if len(e.Voices()) == 0 {
		return errors.New("festival has none of its voices kal_diphone, ked_diphone, cmu_us_slt_arctic_hts (Debian: festvox-kallpc16k, festvox-kdlpc16k, festvox-us-slt-hts)")
	}
	return sox.Available()
}

// Voices are the installed ones of festivalVoices.
func (FestivalEngine) Voices() []EngineVoice {
	var out []EngineVoice
	for _, v := range festivalVoices {
		for _, d := range festivalVoiceDirs {
			if _, err := os.Stat(filepath.Join(d, v.Name)); err == nil {
				out = append(out, v)
				break
			}
		}
	}
	return out
}

// Say renders all jobs in one festival process (starting festival costs
// about a second) and then moves pitch and tempo with sox: festival's
// duration stretch does not reach its HTS voice.
func (FestivalEngine) Say(jobs []SayJob) error {
	if len(jobs) == 0 {
		return nil
	}
	var script strings.Builder
	voice := ""
	for _, j := range jobs {
		if strings.ContainsAny(j.Text+j.Voice+j.Path, "\"\\()'") {
			return fmt.Errorf("festival: text %q, voice %q or path %q has a quote, backslash or parenthesis", j.Text, j.Voice, j.Path)
		}
		if j.Voice != voice {
			fmt.Fprintf(&script, "(voice_%s)\n", j.Voice)
			voice = j.Voice
		}
		fmt.Fprintf(&script, "(utt.save.wave (utt.synth (Utterance Text \"%s\")) \"%s.festival.wav\" 'riff)\n", j.Text, j.Path)
	}
	f, err := os.CreateTemp("", "rfstream-festival-*.scm")
	if err != nil {
		return err
	}
	defer os.Remove(f.Name())
	if _, err := f.WriteString(script.String()); err != nil {
		f.Close()
		return err
	}
	if err := f.Close(); err != nil {
		return err
	}
	out, err := exec.Command("festival", "-b", f.Name()).CombinedOutput()
	if err != nil {
		return fmt.Errorf("festival -b: %v: %s", err, strings.TrimSpace(string(out)))
	}
	return parallel.ForErr(len(jobs), func(i int) error {
		raw := jobs[i].Path + ".festival.wav"
		defer os.Remove(raw)
		if _, err := os.Stat(raw); err != nil {
			return fmt.Errorf("festival wrote no %s: %s", raw, strings.TrimSpace(string(out)))
		}
		return shiftPitchFile(raw, jobs[i].Path, jobs[i].Cents, jobs[i].Tempo)
	})
}
