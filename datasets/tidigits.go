package datasets

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
)

// TIDIGITS (LDC93S10) is laid out as {train,test}/GROUP/SPEAKER/NAME.wav,
// GROUP one of man, woman, boy, girl, SPEAKER two letters, and NAME the
// transcript: one character a word (1-9, z for "zero", o for "oh")
// followed by a or b, the speaker's first or second take of that string.
// The .wav files are NIST SPHERE at 20 kHz. LDC's disc puts the adults
// under data/adults and the children under data/children; other copies
// have the set folders at the top or under tidigits/.

// TIDIGITSGroups are the corpus's speaker groups, adults first.
var TIDIGITSGroups = []string{"man", "woman", "boy", "girl"}

// TIDIGITSAdults are the groups read by default.
var TIDIGITSAdults = []string{"man", "woman"}

// OhWord is the label of "oh", TIDIGITS' second spoken form of 0; "zero"
// is labelled "0", as FSDD labels it. The two are different words in
// training and in scoring.
const OhWord = "oh"

// TIDIGITSWords is the corpus's vocabulary in class order: "0"–"9", "oh".
var TIDIGITSWords = []string{"0", "1", "2", "3", "4", "5", "6", "7", "8", "9", OhWord}

// DigitOf is how a word prints: "oh" as 0, a digit as itself.
func DigitOf(word string) string {
	if word == OhWord {
		return "0"
	}
	return word
}

// TIDIGITSUtterance is one file of the corpus.
type TIDIGITSUtterance struct {
	Path    string
	Set     string // "train" or "test"
	Group   string // man, woman, boy or girl
	Speaker string // the speaker's folder name, e.g. "ae"
	Take    byte   // 'a' or 'b'
	Words   []string
}

// SpeakerID names the speaker uniquely: the group and the folder name.
func (u TIDIGITSUtterance) SpeakerID() string { return u.Group + "/" + u.Speaker }

// Isolated says whether the file is a single word.
func (u TIDIGITSUtterance) Isolated() bool { return len(u.Words) == 1 }

// Bounds on what is read: the corpus holds 25,096 files and its strings
// are at most 7 words; names and folders beyond these are not TIDIGITS.
const (
	maxTIDIGITSFiles = 200000
	maxTIDIGITSWords = 16
	maxSpeakerName   = 16
)

// ErrTIDIGITS is wrapped by every error about a malformed corpus.
var ErrTIDIGITS = errors.New("tidigits")

// ParseTIDIGITSName reads a file name such as "z1oa.wav" (any case): its
// words ("0", "1", "oh") and its take ('a' or 'b').
func ParseTIDIGITSName(name string) ([]string, byte, error) {
	base := strings.ToLower(name)
	if !strings.HasSuffix(base, ".wav") {
		return nil, 0, fmt.Errorf("%w: file name %q does not end in .wav", ErrTIDIGITS, clipName(name))
	}
	base = strings.TrimSuffix(base, ".wav")
	if len(base) < 2 || len(base) > maxTIDIGITSWords+1 {
		return nil, 0, fmt.Errorf("%w: file name %q is not DIGITS{a,b}.wav with 1 to %d digits", ErrTIDIGITS, clipName(name), maxTIDIGITSWords)
	}
	take := base[len(base)-1]
	if take != 'a' && take != 'b' {
		return nil, 0, fmt.Errorf("%w: file name %q does not end in the take a or b before .wav", ErrTIDIGITS, clipName(name))
	}
	words := make([]string, 0, len(base)-1)
	for i := 0; i < len(base)-1; i++ {
		switch c := base[i]; {
		case c >= '1' && c <= '9':
			words = append(words, string(c))
		case c == 'z':
			words = append(words, "0")
		case c == 'o':
			words = append(words, OhWord)
		default:
			return nil, 0, fmt.Errorf("%w: file name %q has %q where a digit (1-9, z, o) belongs", ErrTIDIGITS, clipName(name), string(rune(c)))
		}
	}
	return words, take, nil
}

// TIDIGITSName is the file name of a transcript and take: the inverse of
// ParseTIDIGITSName.
func TIDIGITSName(words []string, take byte) (string, error) {
	var b strings.Builder
	for _, w := range words {
		switch {
		case w == OhWord:
			b.WriteByte('o')
		case w == "0":
			b.WriteByte('z')
		case len(w) == 1 && w[0] >= '1' && w[0] <= '9':
			b.WriteString(w)
		default:
			return "", fmt.Errorf("%w: %q is not a TIDIGITS word", ErrTIDIGITS, w)
		}
	}
	if take != 'a' && take != 'b' {
		return "", fmt.Errorf("%w: take %q (a or b)", ErrTIDIGITS, string(rune(take)))
	}
	b.WriteByte(take)
	return b.String() + ".wav", nil
}

func clipName(s string) string {
	if len(s) > 48 {
		return s[:48] + "…"
	}
	return s
}

// TIDIGITS lists the corpus under dir, in path order: every .wav file of
// the train and test sets of every group present. A folder or file name
// that does not fit the layout is an error naming it; files that are not
// .wav (documentation, checksums) are skipped.
func TIDIGITS(dir string) ([]TIDIGITSUtterance, error) {
	roots, err := tidigitsRoots(dir)
	if err != nil {
		return nil, err
	}
	var out []TIDIGITSUtterance
	for _, root := range roots {
		sets, err := listDir(root, maxTIDIGITSFiles)
		if err != nil {
			return nil, err
		}
		for _, set := range sets {
			name := strings.ToLower(set.Name())
			if !set.IsDir() || (name != "train" && name != "test") {
				continue
			}
			if out, err = readTIDIGITSSet(filepath.Join(root, set.Name()), name, out); err != nil {
				return nil, err
			}
		}
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("%w: no .wav files under %s (expected %s)", ErrTIDIGITS, dir, tidigitsLayout)
	}
	return out, nil
}

const tidigitsLayout = "{train,test}/{man,woman,boy,girl}/SPEAKER/DIGITS{a,b}.wav, at the top, under tidigits/, or under data/adults and data/children as on LDC's disc"

// tidigitsRoots finds the folders holding train/ or test/.
func tidigitsRoots(dir string) ([]string, error) {
	if _, err := os.Stat(dir); err != nil {
		return nil, fmt.Errorf("%w: %v", ErrTIDIGITS, err)
	}
	var roots []string
	for _, cand := range [][]string{{}, {"tidigits"}, {"data", "adults"}, {"data", "children"}} {
		p, ok := childFold(dir, cand)
		if !ok {
			continue
		}
		for _, s := range []string{"train", "test"} {
			if _, ok := childFold(p, []string{s}); ok {
				roots = append(roots, p)
				break
			}
		}
		if len(roots) > 0 && len(cand) == 0 {
			break // the sets are at the top
		}
	}
	if len(roots) == 0 {
		return nil, fmt.Errorf("%w: %s holds no train/ or test/ folder (expected %s)", ErrTIDIGITS, dir, tidigitsLayout)
	}
	return roots, nil
}

// childFold follows path below dir, matching each folder's name without
// regard to case.
func childFold(dir string, path []string) (string, bool) {
	for _, want := range path {
		ents, err := listDir(dir, 4096)
		if err != nil {
			return "", false
		}
		found := false
		for _, e := range ents {
			if e.IsDir() && strings.EqualFold(e.Name(), want) {
				dir, found = filepath.Join(dir, e.Name()), true
				break
			}
		}
		if !found {
			return "", false
		}
	}
	return dir, true
}

// listDir reads at most limit entries of a folder, sorted by name; a
// folder holding more is an error.
func listDir(dir string, limit int) ([]os.DirEntry, error) {
	f, err := os.Open(dir)
	if err != nil {
		return nil, fmt.Errorf("%w: %v", ErrTIDIGITS, err)
	}
	defer f.Close()
	ents, err := f.ReadDir(limit + 1)
	if err != nil && err != io.EOF {
		return nil, fmt.Errorf("%w: %s: %v", ErrTIDIGITS, dir, err)
	}
	if len(ents) > limit {
		return nil, fmt.Errorf("%w: %s holds more than %d entries", ErrTIDIGITS, dir, limit)
	}
	slices.SortFunc(ents, func(a, b os.DirEntry) int { return strings.Compare(a.Name(), b.Name()) })
	return ents, nil
}

// readTIDIGITSSet appends the files of one set folder to out.
func readTIDIGITSSet(dir, set string, out []TIDIGITSUtterance) ([]TIDIGITSUtterance, error) {
	groups, err := listDir(dir, 64)
	if err != nil {
		return nil, err
	}
	for _, g := range groups {
		if !g.IsDir() {
			continue
		}
		group := strings.ToLower(g.Name())
		if !slices.Contains(TIDIGITSGroups, group) {
			return nil, fmt.Errorf("%w: %s: folder %q is not a speaker group (man, woman, boy, girl)", ErrTIDIGITS, dir, clipName(g.Name()))
		}
		gdir := filepath.Join(dir, g.Name())
		speakers, err := listDir(gdir, maxTIDIGITSFiles)
		if err != nil {
			return nil, err
		}
		for _, s := range speakers {
			if !s.IsDir() {
				continue
			}
			if err := checkSpeakerName(s.Name()); err != nil {
				return nil, fmt.Errorf("%w: %s: %v", ErrTIDIGITS, filepath.Join(gdir, s.Name()), err)
			}
			if out, err = readTIDIGITSSpeaker(filepath.Join(gdir, s.Name()), set, group, strings.ToLower(s.Name()), out); err != nil {
				return nil, err
			}
		}
	}
	return out, nil
}

// checkSpeakerName accepts a short name of letters and digits.
func checkSpeakerName(s string) error {
	if s == "" || len(s) > maxSpeakerName {
		return fmt.Errorf("speaker folder name of %d characters (1 to %d)", len(s), maxSpeakerName)
	}
	for _, c := range s {
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9') {
			return fmt.Errorf("speaker folder name %q is not letters and digits", clipName(s))
		}
	}
	return nil
}

func readTIDIGITSSpeaker(dir, set, group, speaker string, out []TIDIGITSUtterance) ([]TIDIGITSUtterance, error) {
	files, err := listDir(dir, maxTIDIGITSFiles)
	if err != nil {
		return nil, err
	}
	for _, f := range files {
		path := filepath.Join(dir, f.Name())
		if f.IsDir() {
			return nil, fmt.Errorf("%w: %s: a folder inside a speaker's folder", ErrTIDIGITS, path)
		}
		if !strings.HasSuffix(strings.ToLower(f.Name()), ".wav") {
			continue
		}
		words, take, err := ParseTIDIGITSName(f.Name())
		if err != nil {
			return nil, fmt.Errorf("%s: %w", path, err)
		}
		if len(out) >= maxTIDIGITSFiles {
			return nil, fmt.Errorf("%w: more than %d files under the corpus (TIDIGITS has 25,096)", ErrTIDIGITS, maxTIDIGITSFiles)
		}
		out = append(out, TIDIGITSUtterance{Path: path, Set: set, Group: group, Speaker: speaker, Take: take, Words: words})
	}
	return out, nil
}

// SelectTIDIGITS keeps the utterances of one set ("" for both) whose
// group is among groups.
func SelectTIDIGITS(us []TIDIGITSUtterance, set string, groups []string) []TIDIGITSUtterance {
	var out []TIDIGITSUtterance
	for _, u := range us {
		if (set == "" || u.Set == set) && slices.Contains(groups, u.Group) {
			out = append(out, u)
		}
	}
	return out
}

// ParseTIDIGITSGroups reads a comma-separated list of groups, refusing
// names that are not TIDIGITS groups and repeats.
func ParseTIDIGITSGroups(list string) ([]string, error) {
	var out []string
	for _, g := range strings.Split(list, ",") {
		g = strings.ToLower(strings.TrimSpace(g))
		if !slices.Contains(TIDIGITSGroups, g) {
			return nil, fmt.Errorf("%w: group %q (man, woman, boy, girl)", ErrTIDIGITS, clipName(g))
		}
		if slices.Contains(out, g) {
			return nil, fmt.Errorf("%w: group %q named twice", ErrTIDIGITS, g)
		}
		out = append(out, g)
	}
	return out, nil
}
