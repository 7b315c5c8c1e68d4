package datasets

import (
	"bufio"
	"fmt"
	"math"
	"strconv"
	"strings"
)

// EngineSegment is one segment a synthesiser says it spoke: its phone in
// the engine's own phone set and the time it ends, in seconds from the
// start of the engine's waveform (a segment starts where the previous one
// ends, the first at 0).
type EngineSegment struct {
	Phone string
	End   float64
}

// TimedPhone is one of Phones with its span in seconds.
type TimedPhone struct {
	Phone      string
	Start, End float64
}

// cmuPhones maps the lower-case ARPAbet phones that flite's US voices
// (the CMU lexicon and its letter-to-sound rules) and festival's US voices
// ("radio" phone set) both print onto Phones. Schwa-plus-sonorant
// syllabics expand as espeak-ng's @L does; flaps and reduced vowels fold
// as TIMIT's 61→39 table folds them; pauses drop (silence is modelled
// apart).
var cmuPhones = map[string]string{
	"iy": "iy", "ih": "ih", "ix": "ih", "eh": "eh", "ae": "ae", "aa": "aa", "ah": "ah", "ao": "ao",
	"uh": "uh", "uw": "uw", "ux": "uw", "er": "er", "axr": "er", "ax": "ax", "ey": "ey", "ay": "ay",
	"oy": "oy", "aw": "aw", "ow": "ow",
	"p": "p", "b": "b", "t": "t", "d": "d", "dx": "t", "k": "k", "g": "g", "f": "f", "v": "v",
	"th": "th", "dh": "dh", "s": "s", "z": "z", "sh": "sh", "zh": "zh", "ch": "ch", "jh": "jh",
	"m": "m", "n": "n", "nx": "n", "ng": "ng", "em": "ax m", "en": "ax n", "el": "ax l",
	"l": "l", "r": "r", "w": "w", "y": "y", "hh": "hh", "hv": "hh",
	"pau": "",
}

// FlitePhones maps what `flite -psdur` prints onto Phones: flite's US
// voices speak cmuPhones.
var FlitePhones = cmuPhones

// FestivalPhones maps the Segment relation of festival's kal, ked and slt
// voices onto Phones: cmuPhones, and the radio set's utterance edge (h#)
// and break (brk) as silence.
var FestivalPhones = withSilences(cmuPhones, "h#", "brk")

func withSilences(m map[string]string, silences ...string) map[string]string {
	out := make(map[string]string, len(m)+len(silences))
	for k, v := range m {
		out[k] = v
	}
	for _, s := range silences {
		out[s] = ""
	}
	return out
}

// maxSegments bounds one utterance's segment list, so a malformed input
// cannot claim unbounded memory.
const maxSegments = 10000

// ParseSegments parses "phone:end phone:end ..." (flite's -psdur output;
// rfstream's festival script prints the same): ends in seconds, not
// decreasing. Errors name the field.
func ParseSegments(line string) ([]EngineSegment, error) {
	fields := strings.Fields(line)
	if len(fields) == 0 {
		return nil, fmt.Errorf("no segments")
	}
	if len(fields) > maxSegments {
		return nil, fmt.Errorf("%d segments (at most %d)", len(fields), maxSegments)
	}
	out := make([]EngineSegment, 0, len(fields))
	last := 0.0
	for i, f := range fields {
		k := strings.LastIndexByte(f, ':')
		if k <= 0 {
			return nil, fmt.Errorf("segment %d %q: want phone:end", i+1, f)
		}
		end, err := strconv.ParseFloat(f[k+1:], 64)
		if err != nil || math.IsNaN(end) || math.IsInf(end, 0) || end < 0 || end > 3600 {
			return nil, fmt.Errorf("segment %d %q: end %q is not a time in seconds", i+1, f, f[k+1:])
		}
		if end < last {
			return nil, fmt.Errorf("segment %d %q ends at %g s, before the previous segment's %g s", i+1, f, end, last)
		}
		out = append(out, EngineSegment{Phone: f[:k], End: end})
		last = end
	}
	return out, nil
}

// festivalMark starts each utterance's line in rfstream's festival script
// output, followed by the utterance's index; festival's own messages
// interleave freely and are ignored.
const festivalMark = "@rfstream-segments"

// ParseFestivalSegments reads the output of rfstream's festival script:
// one "@rfstream-segments INDEX phone:end ..." line per utterance, indices
// 0..n-1 each exactly once. Other lines are festival's own chatter.
func ParseFestivalSegments(out string, n int) ([][]EngineSegment, error) {
	if n < 0 || n > maxSegments {
		return nil, fmt.Errorf("%d utterances (at most %d)", n, maxSegments)
	}
	segs := make([][]EngineSegment, n)
	sc := bufio.NewScanner(strings.NewReader(out))
	sc.Buffer(make([]byte, 0, 4096), 1<<20)
	line := 0
	for sc.Scan() {
		line++
		rest, ok := strings.CutPrefix(strings.TrimSpace(sc.Text()), festivalMark+" ")
		if !ok {
			continue
		}
		idx, body, _ := strings.Cut(rest, " ")
		i, err := strconv.Atoi(idx)
		if err != nil || i < 0 || i >= n {
			return nil, fmt.Errorf("line %d: utterance index %q is not in 0–%d", line, idx, n-1)
		}
		if segs[i] != nil {
			return nil, fmt.Errorf("line %d: utterance %d listed twice", line, i)
		}
		if segs[i], err = ParseSegments(body); err != nil {
			return nil, fmt.Errorf("line %d (utterance %d): %w", line, i, err)
		}
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("line %d: %w", line+1, err)
	}
	for i, s := range segs {
		if s == nil {
			return nil, fmt.Errorf("festival printed no segments for utterance %d", i)
		}
	}
	return segs, nil
}

// MapSegments turns an engine's segments into Phones with times, through
// the engine's table: a segment mapped to several phones has its span
// split evenly among them, one mapped to none (a pause) is left out. An
// unmapped phone is an error naming it and the engine, so a new release
// cannot silently change the labels.
func MapSegments(engine string, table map[string]string, segs []EngineSegment) ([]TimedPhone, error) {
	var out []TimedPhone
	start := 0.0
	for _, s := range segs {
		m, ok := table[s.Phone]
		if !ok {
			return nil, fmt.Errorf("datasets: %s phone %q has no phone mapping", engine, s.Phone)
		}
		phones := strings.Fields(m)
		step := (s.End - start) / float64(max(len(phones), 1))
		for k, p := range phones {
			out = append(out, TimedPhone{Phone: p, Start: start + float64(k)*step, End: start + float64(k+1)*step})
		}
		start = s.End
	}
	return out, nil
}
