package datasets

import (
	"bufio"
	"bytes"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
)

// PhoneSpan is one line of a TIMIT-style .PHN file: a phone and the
// samples it covers, [Start, End).
type PhoneSpan struct {
	Start, End int
	Phone      string
}

// ParsePHN parses a .PHN file: one "start end phone" line per phone, times
// in samples, in order. Spans must not run backwards or overlap (TIMIT's
// are contiguous; gaps are allowed and count as silence). Blank lines are
// skipped. Errors name the line.
func ParsePHN(b []byte) ([]PhoneSpan, error) {
	var out []PhoneSpan
	sc := bufio.NewScanner(bytes.NewReader(b))
	sc.Buffer(make([]byte, 0, 4096), 1<<16)
	line := 0
	for sc.Scan() {
		line++
		f := strings.Fields(sc.Text())
		if len(f) == 0 {
			continue
		}
		if len(f) != 3 {
			return nil, fmt.Errorf("line %d: want \"start end phone\", have %d fields", line, len(f))
		}
		start, err1 := strconv.Atoi(f[0])
		end, err2 := strconv.Atoi(f[1])
		if err1 != nil || err2 != nil {
			return nil, fmt.Errorf("line %d: start %q and end %q must be sample numbers", line, f[0], f[1])
		}
		if start < 0 || end <= start {
			return nil, fmt.Errorf("line %d: span %d–%d is empty or negative", line, start, end)
		}
		if n := len(out); n > 0 && start < out[n-1].End {
			return nil, fmt.Errorf("line %d: span %d–%d overlaps the previous one (ends at %d)", line, start, end, out[n-1].End)
		}
		out = append(out, PhoneSpan{Start: start, End: end, Phone: f[2]})
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("line %d: %w", line+1, err)
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("no phones")
	}
	return out, nil
}

// ReadPHN reads and parses a .PHN file.
func ReadPHN(path string) ([]PhoneSpan, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	spans, err := ParsePHN(b)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return spans, nil
}

// PhoneUtterance is one utterance of a phone-labelled corpus.
type PhoneUtterance struct {
	Audio   string // path of the audio file
	Phones  []PhoneSpan
	Speaker string // the folder the files are in (TIMIT: the speaker)
	// Split is "train" or "test" when a folder on the path is named so
	// (any case), "" otherwise.
	Split string
}

// TIMITCorpus finds every .PHN file under dir (any case of the extension)
// with an audio file of the same name beside it (.wav or .WAV, RIFF or
// SPHERE) and reads its phones. Files are listed in path order.
func TIMITCorpus(dir string) ([]PhoneUtterance, error) {
	var out []PhoneUtterance
	err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() || !strings.EqualFold(filepath.Ext(path), ".phn") {
			return nil
		}
		stem := strings.TrimSuffix(path, filepath.Ext(path))
		audio := ""
		for _, ext := range []string{".wav", ".WAV", ".Wav"} {
			if _, err := os.Stat(stem + ext); err == nil {
				audio = stem + ext
				break
			}
		}
		if audio == "" {
			return fmt.Errorf("%s: no audio file %s.wav beside it", path, filepath.Base(stem))
		}
		spans, err := ReadPHN(path)
		if err != nil {
			return err
		}
		u := PhoneUtterance{Audio: audio, Phones: spans, Speaker: filepath.Base(filepath.Dir(path))}
		rel, _ := filepath.Rel(dir, path)
		for _, part := range strings.Split(filepath.ToSlash(rel), "/") {
			if strings.EqualFold(part, "train") || strings.EqualFold(part, "test") {
				u.Split = strings.ToLower(part)
			}
		}
		out = append(out, u)
		return nil
	})
	if err != nil {
		return nil, err
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("%s: no .PHN files", dir)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Audio < out[j].Audio })
	return out, nil
}
