package datasets

import (
	"crypto/sha256"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
)

// Recording is one labelled audio file.
type Recording struct {
	Path    string
	Label   string
	Speaker string
	Take    int // FSDD take number; -1 when unknown
}

// fsddHint says where FSDD is looked for. It names the environment
// variable, which every command reads, and no flag, which only some
// commands have.
const fsddHint = "(set RFSTREAM_FSDD to the recordings/ folder of the Free Spoken Digit Dataset, https://github.com/Jakobovski/free-spoken-digit-dataset)"

// FSDD lists the recordings in dir, named {digit}_{speaker}_{take}.wav.
func FSDD(dir string) ([]Recording, error) {
	ents, err := os.ReadDir(dir)
	if err != nil {
		return nil, fmt.Errorf("fsdd: %w %s", err, fsddHint)
	}
	var recs []Recording
	for _, e := range ents {
		name := e.Name()
		if e.IsDir() || !strings.HasSuffix(name, ".wav") {
			continue
		}
		parts := strings.Split(strings.TrimSuffix(name, ".wav"), "_")
		if len(parts) != 3 {
			return nil, fmt.Errorf("fsdd: %s is not named digit_speaker_take.wav", name)
		}
		d, err1 := strconv.Atoi(parts[0])
		take, err2 := strconv.Atoi(parts[2])
		if err1 != nil || err2 != nil || d < 0 || d > 9 {
			return nil, fmt.Errorf("fsdd: %s is not named digit_speaker_take.wav", name)
		}
		recs = append(recs, Recording{Path: filepath.Join(dir, name), Label: parts[0], Speaker: parts[1], Take: take})
	}
	if len(recs) == 0 {
		return nil, fmt.Errorf("fsdd: no recordings in %s %s", dir, fsddHint)
	}
	sort.Slice(recs, func(i, j int) bool { return recs[i].Path < recs[j].Path })
	return recs, nil
}

// OfficialSplit is FSDD's convention: takes 0–4 test, the rest training.
func OfficialSplit(recs []Recording) (train, test []Recording) {
	for _, r := range recs {
		if r.Take >= 0 && r.Take <= 4 {
			test = append(test, r)
		} else {
			train = append(train, r)
		}
	}
	return train, test
}

// SpeakerSplit holds one speaker out for testing.
func SpeakerSplit(recs []Recording, speaker string) (train, test []Recording) {
	for _, r := range recs {
		if r.Speaker == speaker {
			test = append(test, r)
		} else {
			train = append(train, r)
		}
	}
	return train, test
}

// Speakers lists the distinct speakers in sorted order.
func Speakers(recs []Recording) []string {
	seen := map[string]bool{}
	var out []string
	for _, r := range recs {
		if !seen[r.Speaker] {
			seen[r.Speaker] = true
			out = append(out, r.Speaker)
		}
	}
	sort.Strings(out)
	return out
}

// ReadManifest reads a TSV of path, label and (optionally) speaker per
// line; '#' starts a comment line. Relative paths are taken relative to the
// manifest's folder.
func ReadManifest(path string) ([]Recording, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return ParseManifest(f, path, filepath.Dir(path))
}

// ParseManifest is ReadManifest on a stream: name labels its errors and dir
// anchors relative paths. Blanks around a label or speaker are dropped,
// since a hand-edited "seven " is not a label of its own; a fourth column
// is an error rather than ignored, because it usually means a tab inside a
// field, which would shift the label.
func ParseManifest(r io.Reader, name, dir string) ([]Recording, error) {
	var recs []Recording
	err := manifestRows(r, dir, "label", func(line int, path, label, speaker string) error {
		label = strings.TrimSpace(label)
		if label == "" {
			return fmt.Errorf("line %d: no label", line)
		}
		recs = append(recs, Recording{Path: path, Label: label, Speaker: speaker, Take: -1})
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	if len(recs) == 0 {
		return nil, fmt.Errorf("%s: no recordings listed", name)
	}
	return recs, nil
}

// Labels returns the sorted distinct labels.
func Labels(recs ...[]Recording) []string {
	seen := map[string]bool{}
	var out []string
	for _, rs := range recs {
		for _, r := range rs {
			if !seen[r.Label] {
				seen[r.Label] = true
				out = append(out, r.Label)
			}
		}
	}
	sort.Strings(out)
	return out
}

// Digest identifies a set of recordings by content, wherever it lies on
// disk: SHA-256 over each file's base name, length and bytes, in the order
// of their base names. Two folders holding the same files have the same
// digest; a changed, added or removed file changes it.
func Digest(recs []Recording) (string, error) {
	sorted := append([]Recording(nil), recs...)
	sort.Slice(sorted, func(i, j int) bool { return filepath.Base(sorted[i].Path) < filepath.Base(sorted[j].Path) })
	h := sha256.New()
	for _, r := range sorted {
		b, err := os.ReadFile(r.Path)
		if err != nil {
			return "", fmt.Errorf("digest: %w", err)
		}
		fmt.Fprintf(h, "%s\x00%d\x00", filepath.Base(r.Path), len(b))
		h.Write(b)
	}
	return fmt.Sprintf("%d recordings, sha256:%x", len(recs), h.Sum(nil)), nil
}
