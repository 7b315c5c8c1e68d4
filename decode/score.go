package decode

import (
	"bufio"
	"fmt"
	"io"
	"strings"
)

// OpKind is one step of an edit alignment.
type OpKind uint8

const (
	Match OpKind = iota
	Substitution
	Insertion // a hypothesis token with no reference token
	Deletion  // a reference token missing from the hypothesis
)

func (k OpKind) String() string {
	switch k {
	case Match:
		return "match"
	case Substitution:
		return "sub"
	case Insertion:
		return "ins"
	case Deletion:
		return "del"
	}
	return fmt.Sprintf("OpKind(%d)", uint8(k))
}

// Op aligns reference token Ref with hypothesis token Hyp; the side that is
// absent (Insertion: Ref, Deletion: Hyp) is −1.
type Op struct {
	Kind     OpKind
	Ref, Hyp int
}

// Edit is a minimum-cost (Levenshtein, unit costs) alignment of a
// hypothesis to a reference.
type Edit struct {
	Hits, Sub, Ins, Del int
	// RefLen is the number of reference tokens.
	RefLen int
	Ops    []Op
}

// Errors is the edit distance: substitutions + insertions + deletions.
func (e Edit) Errors() int { return e.Sub + e.Ins + e.Del }

// EditDistance aligns hyp to ref. Among alignments of minimum cost it
// prefers, walking back from the ends, a match or substitution, then a
// deletion, then an insertion, so the result is deterministic.
func EditDistance(ref, hyp []string) Edit {
	n, m := len(ref), len(hyp)
	w := m + 1
	d := make([]int32, (n+1)*w)
	for i := 0; i <= n; i++ {
		d[i*w] = int32(i)
	}
	for j := 0; j <= m; j++ {
		d[j] = int32(j)
	}
	for i := 1; i <= n; i++ {
		for j := 1; j <= m; j++ {
			diag := d[(i-1)*w+j-1]
			if ref[i-1] != hyp[j-1] {
				diag++
			}
			d[i*w+j] = min(diag, d[(i-1)*w+j]+1, d[i*w+j-1]+1)
		}
	}
	e := Edit{RefLen: n}
	var ops []Op
	for i, j := n, m; i > 0 || j > 0; {
		switch {
		case i > 0 && j > 0 && ref[i-1] == hyp[j-1] && d[i*w+j] == d[(i-1)*w+j-1]:
			ops = append(ops, Op{Match, i - 1, j - 1})
			e.Hits++
			i, j = i-1, j-1
		case i > 0 && j > 0 && ref[i-1] != hyp[j-1] && d[i*w+j] == d[(i-1)*w+j-1]+1:
			ops = append(ops, Op{Substitution, i - 1, j - 1})
			e.Sub++
			i, j = i-1, j-1
		case i > 0 && d[i*w+j] == d[(i-1)*w+j]+1:
			ops = append(ops, Op{Deletion, i - 1, -1})
			e.Del++
			i--
		default:
			ops = append(ops, Op{Insertion, -1, j - 1})
			e.Ins++
			j--
		}
	}
	for a, b := 0, len(ops)-1; a < b; a, b = a+1, b-1 {
		ops[a], ops[b] = ops[b], ops[a]
	}
	e.Ops = ops
	return e
}

// ErrorCounts accumulates scoring over a test set: token errors for WER (or
// PER on phone tokens) and whole-string errors for SER.
type ErrorCounts struct {
	Sub, Ins, Del, Ref   int
	Strings, StringError int
}

// Add scores one utterance and returns its alignment.
func (c *ErrorCounts) Add(ref, hyp []string) Edit {
	e := EditDistance(ref, hyp)
	c.Sub += e.Sub
	c.Ins += e.Ins
	c.Del += e.Del
	c.Ref += e.RefLen
	c.Strings++
	if e.Errors() > 0 {
		c.StringError++
	}
	return e
}

// ErrorRate is (S + I + D) / reference tokens: the WER on words, the PER on
// phones. With no reference tokens it is 0 if there were no insertions and
// 1 otherwise.
func (c ErrorCounts) ErrorRate() float64 {
	errs := c.Sub + c.Ins + c.Del
	if c.Ref == 0 {
		return float64(min(errs, 1))
	}
	return float64(errs) / float64(c.Ref)
}

// SER is the fraction of strings with at least one error.
func (c ErrorCounts) SER() float64 {
	if c.Strings == 0 {
		return 0
	}
	return float64(c.StringError) / float64(c.Strings)
}

// PhoneMap folds phone labels before scoring (TIMIT's 61 phones onto 39,
// say): a phone maps to its folded label, or to "" to be dropped; phones
// not in the map are kept as they are.
type PhoneMap map[string]string

// Fold maps every token and drops the ones mapped to "".
func (m PhoneMap) Fold(tokens []string) []string {
	out := make([]string, 0, len(tokens))
	for _, t := range tokens {
		if f, ok := m[t]; ok {
			t = f
		}
		if t != "" {
			out = append(out, t)
		}
	}
	return out
}

// ParsePhoneMap reads a phone map: one phone per line followed by what it
// folds to. With three columns (TIMIT's 60-48-39 file: phone, 48-set,
// 39-set) the last column is used; a phone alone on its line is dropped.
// Blank lines and comments (from a field starting with '#' to the end of
// the line) are ignored; a phone listed twice is an
// error.
func ParsePhoneMap(r io.Reader) (PhoneMap, error) {
	m := PhoneMap{}
	sc := bufio.NewScanner(r)
	line := 0
	for sc.Scan() {
		line++
		f := strings.Fields(sc.Text())
		for i, field := range f {
			if strings.HasPrefix(field, "#") {
				f = f[:i] // a comment; "h#" (TIMIT's silence) is not one
				break
			}
		}
		switch len(f) {
		case 0:
			continue
		case 1, 2, 3:
		default:
			return nil, fmt.Errorf("decode: phone map line %d has %d columns, want 1 to 3", line, len(f))
		}
		if _, dup := m[f[0]]; dup {
			return nil, fmt.Errorf("decode: phone map line %d maps %q again", line, f[0])
		}
		m[f[0]] = ""
		if len(f) > 1 {
			m[f[0]] = f[len(f)-1]
		}
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("decode: reading phone map: %w", err)
	}
	return m, nil
}
