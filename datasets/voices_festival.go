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
	_, err := sayFestival(jobs, false)
	return err
}

// SayPhones speaks like Say and returns each utterance's phones from its
// Segment relation (each segment's end time), mapped by FestivalPhones and
// scaled by the sox tempo change.
func (FestivalEngine) SayPhones(jobs []SayJob) ([][]TimedPhone, error) {
	return sayFestival(jobs, true)
}

// festivalDumpSegments is the Scheme function the script defines to print
// an utterance's segments on one line after festivalMark.
const festivalDumpSegments = `(define (rfstream_segments i utt)
  (format t "\n%s %d" "` + festivalMark + `" i)
  (mapcar (lambda (s) (format t " %s:%.4f" (item.name s) (item.feat s "end"))) (utt.relation.items utt 'Segment))
  (format t "\n"))
`

func sayFestival(jobs []SayJob, phones bool) ([][]TimedPhone, error) {
	if len(jobs) == 0 {
		return nil, nil
	}
	var script strings.Builder
	if phones {
		script.WriteString(festivalDumpSegments)
	}
	voice := ""
	for i, j := range jobs {
		if strings.ContainsAny(j.Text+j.Voice+j.Path, "\"\\()'") {
			return nil, fmt.Errorf("festival: text %q, voice %q or path %q has a quote, backslash or parenthesis", j.Text, j.Voice, j.Path)
		}
		if j.Voice != voice {
			fmt.Fprintf(&script, "(voice_%s)\n", j.Voice)
			voice = j.Voice
		}
		fmt.Fprintf(&script, "(set! rfstream_utt (utt.synth (Utterance Text \"%s\")))\n", j.Text)
		if phones {
			fmt.Fprintf(&script, "(rfstream_segments %d rfstream_utt)\n", i)
		}
		fmt.Fprintf(&script, "(utt.save.wave rfstream_utt \"%s.festival.wav\" 'riff)\n", j.Path)
	}
	f, err := os.CreateTemp("", "rfstream-festival-*.scm")
	if err != nil {
		return nil, err
	}
	defer os.Remove(f.Name())
	if _, err := f.WriteString(script.String()); err != nil {
		f.Close()
		return nil, err
	}
	if err := f.Close(); err != nil {
		return nil, err
	}
	cmd := exec.Command("festival", "-b", f.Name())
	var stdout, stderr strings.Builder
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		return nil, fmt.Errorf("festival -b: %v: %s", err, strings.TrimSpace(stderr.String()+stdout.String()))
	}
	var timed [][]TimedPhone
	if phones {
		segs, err := ParseFestivalSegments(stdout.String(), len(jobs))
		if err != nil {
			return nil, fmt.Errorf("festival segments: %w", err)
		}
		timed = make([][]TimedPhone, len(jobs))
		for i, s := range segs {
			if timed[i], err = MapSegments("festival", FestivalPhones, s); err != nil {
				return nil, fmt.Errorf("%q in voice %s: %w", jobs[i].Text, jobs[i].Voice, err)
			}
			for k := range timed[i] {
				timed[i][k].Start /= jobs[i].Tempo
				timed[i][k].End /= jobs[i].Tempo
			}
		}
	}
	return timed, parallel.ForErr(len(jobs), func(i int) error {
		raw := jobs[i].Path + ".festival.wav"
		defer os.Remove(raw)
		if _, err := os.Stat(raw); err != nil {
			return fmt.Errorf("festival wrote no %s: %s", raw, strings.TrimSpace(stderr.String()))
		}
		return shiftPitchFile(raw, jobs[i].Path, jobs[i].Cents, jobs[i].Tempo)
	})
}
