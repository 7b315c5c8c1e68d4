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
		_, err := sayFlite(jobs[i], false)
		return err
	})
}

// SayPhones speaks like Say and returns the phones flite says it spoke
// (-psdur), with their times in the written file.
func (FliteEngine) SayPhones(jobs []SayJob) ([][]TimedPhone, error) {
	out := make([][]TimedPhone, len(jobs))
	err := parallel.ForErr(len(jobs), func(i int) error {
		var err error
		out[i], err = sayFlite(jobs[i], true)
		return err
	})
	return out, err
}

func sayFlite(j SayJob, phones bool) ([]TimedPhone, error) {
	if strings.HasPrefix(j.Text, "-") || strings.HasPrefix(j.Voice, "-") {
		return nil, fmt.Errorf("flite voice %q / text %q may not start with '-'", j.Voice, j.Text)
	}
	raw := j.Path + ".flite.wav"
	defer os.Remove(raw)
	stretch := strconv.FormatFloat(1/j.Tempo, 'f', 4, 64)
	args := []string{"-voice", j.Voice, "--setf", "duration_stretch=" + stretch}
	if phones {
		args = append(args, "-psdur")
	}
	cmd := exec.Command("flite", append(args, "-t", j.Text, "-o", raw)...)
	var stdout, stderr strings.Builder
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		return nil, fmt.Errorf("flite -voice %s: %v: %s", j.Voice, err, strings.TrimSpace(stderr.String()+stdout.String()))
	}
	if !phones {
		return nil, shiftPitchFile(raw, j.Path, j.Cents, 1)
	}
	segs, err := ParseSegments(stdout.String())
	if err != nil {
		return nil, fmt.Errorf("flite -voice %s -psdur for %q: %w", j.Voice, j.Text, err)
	}
	timed, err := MapSegments("flite", FlitePhones, segs)
	if err != nil {
		return nil, fmt.Errorf("%q in voice %s: %w", j.Text, j.Voice, err)
	}
	return timed, shiftPitchFile(raw, j.Path, j.Cents, 1)
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
