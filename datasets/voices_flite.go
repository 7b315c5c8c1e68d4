package datasets

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"strings"

	"github.com/rfstream/rfstream/frontend"
	"github.com/rfstream/rfstream/internal/parallel"
	"github.com/rfstream/rfstream/internal/sox"
)

// FliteEngine is flite as a corpus source: its built-in English voices,
// each built from one recorded speaker (kal16 is kal's speaker again and
// awb_time only says the time, so both are left out).
type FliteEngine struct{}

func (FliteEngine) Name() string { return "flite" }

func (FliteEngine) Available() error {
	if _, err := exec.LookPath("flite"); err != nil {
		return errors.New("flite is not installed (Debian: apt-get install flite)")
	}
	return sox.Available()
}

func (FliteEngine) Voices() []EngineVoice {
	return []EngineVoice{{"kal", Male}, {"awb", Male}, {"rms", Male}, {"slt", Female}}
}

// Say speaks each job with flite, its tempo through flite's own duration
// stretch, and moves the pitch with sox (flite's pitch control takes an
// absolute mean F0, which differs per voice).
func (FliteEngine) Say(jobs []SayJob) error {
	return parallel.ForErr(len(jobs), func(i int) error {
		j := jobs[i]
		if strings.HasPrefix(j.Text, "-") || strings.HasPrefix(j.Voice, "-") {
			return fmt.Errorf("flite voice %q / text %q may not start with '-'", j.Voice, j.Text)
		}
		raw := j.Path + ".flite.wav"
		defer os.Remove(raw)
		stretch := strconv.FormatFloat(1/j.Tempo, 'f', 4, 64)
		out, err := exec.Command("flite", "-voice", j.Voice, "--setf", "duration_stretch="+stretch, "-t", j.Text, "-o", raw).CombinedOutput()
		if err != nil {
			return fmt.Errorf("flite -voice %s: %v: %s", j.Voice, err, strings.TrimSpace(string(out)))
		}
		return shiftPitchFile(raw, j.Path, j.Cents, 1)
	})
}

// shiftPitchFile reads in, moves its pitch by cents and its tempo by tempo
// with sox, and writes it to out at its own rate.
func shiftPitchFile(in, out string, cents, tempo float64) error {
	a, err := frontend.ReadAudio(in, 0)
	if err != nil {
		return err
	}
	var effects []string
	if cents != 0 {
		effects = append(effects, "pitch", strconv.FormatFloat(cents, 'f', 0, 64))
	}
	if tempo != 1 {
		effects = append(effects, "tempo", "-s", strconv.FormatFloat(tempo, 'f', 4, 64))
	}
	if len(effects) > 0 {
		if a, err = sox.Effects(a, effects...); err != nil {
			return err
		}
	}
	return writeWAV(out, a)
}
