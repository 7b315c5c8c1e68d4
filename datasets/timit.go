package datasets

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"

	"github.com/rfstream/rfstream/frontend"
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

// DecodeSphere decodes a NIST SPHERE file (TIMIT's .WAV) holding
// uncompressed 16-bit linear PCM, mono; compressed (shorten) files are
// refused with an error saying to convert them (sox or sph2pipe).
func DecodeSphere(b []byte) (*frontend.Audio, error) {
	if !bytes.HasPrefix(b, []byte("NIST_1A\n")) {
		return nil, fmt.Errorf("sphere: not a NIST_1A file")
	}
	rest := b[8:]
	nl := bytes.IndexByte(rest, '\n')
	if nl < 0 {
		return nil, fmt.Errorf("sphere: header size line missing")
	}
	hsize, err := strconv.Atoi(strings.TrimSpace(string(rest[:nl])))
	if err != nil || hsize < 8+nl+1 || hsize > len(b) {
		return nil, fmt.Errorf("sphere: header size %q invalid for a %d-byte file", strings.TrimSpace(string(rest[:nl])), len(b))
	}
	fields := map[string]string{}
	for _, l := range strings.Split(string(rest[nl+1:hsize-8]), "\n") {
		f := strings.Fields(l)
		if len(f) >= 1 && f[0] == "end_head" {
			break
		}
		if len(f) >= 3 {
			fields[f[0]] = strings.Join(f[2:], " ")
		}
	}
	num := func(k string, def int) (int, error) {
		v, ok := fields[k]
		if !ok {
			return def, nil
		}
		n, err := strconv.Atoi(v)
		if err != nil {
			return 0, fmt.Errorf("sphere: %s %q is not a number", k, v)
		}
		return n, nil
	}
	rate, err := num("sample_rate", 0)
	if err != nil {
		return nil, err
	}
	width, err := num("sample_n_bytes", 2)
	if err != nil {
		return nil, err
	}
	channels, err := num("channel_count", 1)
	if err != nil {
		return nil, err
	}
	if rate < 1000 || rate > 768000 {
		return nil, fmt.Errorf("sphere: sample rate %d Hz", rate)
	}
	if width != 2 || channels != 1 {
		return nil, fmt.Errorf("sphere: %d-byte samples in %d channels; only 16-bit mono is read", width, channels)
	}
	if c := fields["sample_coding"]; c != "" && c != "pcm" {
		return nil, fmt.Errorf("sphere: sample coding %q is not plain PCM (convert the file: sox in.wav -e signed -b 16 out.wav)", c)
	}
	var order binary.ByteOrder = binary.LittleEndian
	switch fields["sample_byte_format"] {
	case "", "01":
	case "10":
		order = binary.BigEndian
	default:
		return nil, fmt.Errorf("sphere: sample byte format %q (01, 10)", fields["sample_byte_format"])
	}
	data := b[hsize:]
	if n, err := num("sample_count", len(data)/2); err != nil {
		return nil, err
	} else if n < 0 || n > len(data)/2 { // not 2*n, which a huge count wraps negative
		return nil, fmt.Errorf("sphere: %d samples announced, %d bytes present", n, len(data))
	} else {
		data = data[:2*n]
	}
	a := &frontend.Audio{Rate: rate, Samples: make([]float32, len(data)/2)}
	for i := range a.Samples {
		a.Samples[i] = float32(int16(order.Uint16(data[2*i:]))) / 32768
	}
	return a, nil
}

// ReadAudioFile reads a WAV (RIFF) or NIST SPHERE file, telling them apart
// by their first bytes, and resamples it to rate (0 keeps the file's own).
func ReadAudioFile(path string, rate int) (*frontend.Audio, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var a *frontend.Audio
	if bytes.HasPrefix(b, []byte("NIST_1A")) {
		a, err = DecodeSphere(b)
	} else {
		a, err = frontend.DecodeWAV(b)
	}
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	if rate != 0 && a.Rate != rate {
		if a, err = frontend.Resample(a, rate); err != nil {
			return nil, fmt.Errorf("%s: %w", path, err)
		}
	}
	return a, nil
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
