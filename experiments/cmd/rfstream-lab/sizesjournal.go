package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"sort"
)

// sizesJournal keeps every finished fit of eval mnist-sizes, one JSON line
// each, after a first line holding the flags that define the fits, so that
// --resume skips the fits a run of the same settings already made. The
// paper's 100 training draws take hours; an interrupted run loses at most
// the fit in progress.
type sizesJournal struct {
	f    *os.File
	done map[fitKey]sizesRow
}

// fitKey names one fit: which map, how many examples per class, which draw.
type fitKey struct {
	Map      string
	PerClass int
	Seed     uint64
}

func (r sizesRow) key() fitKey { return fitKey{r.Map, r.PerClass, r.SubsetSeed} }

// choosingFlags pick which fits run or where results go, not what a fit
// computes, so a resumed run may change them: more draws, more sizes,
// another map list, the table on or off (which changes no bit).
var choosingFlags = map[string]bool{"resume": true, "out": true, "json": true, "draws": true, "sizes": true,
	"maps": true, "subset-seed": true, "table": true}

// fitFlags are the values of every flag that defines a fit.
func fitFlags(fs *flag.FlagSet) map[string]string {
	v := map[string]string{}
	fs.VisitAll(func(f *flag.Flag) {
		if !choosingFlags[f.Name] {
			v[f.Name] = f.Value.String()
		}
	})
	return v
}

type journalHead struct {
	Flags map[string]string `json:"flags"`
}

// openSizesJournal starts the journal at path, or with resume continues
// the one there, refusing it if it was made with other fit flags. A last
// line cut short by an interruption is dropped (that fit runs again); the
// file is rewritten without it before new lines are appended. Without
// resume, a journal already there that holds fits is kept as path+".old"
// (one earlier run's), so forgetting --resume does not lose hours of fits.
// fs holds the run's flags; fitFlags says which of them define a fit.
func openSizesJournal(path string, fs *flag.FlagSet, resume bool, stderr io.Writer) (*sizesJournal, error) {
	flags := fitFlags(fs)
	j := &sizesJournal{done: map[fitKey]sizesRow{}}
	var kept []sizesRow
	if !resume {
		if b, err := os.ReadFile(path); err == nil && bytes.Count(b, []byte{'\n'}) > 1 {
			if err := os.Rename(path, path+".old"); err != nil {
				return nil, err
			}
			fmt.Fprintf(stderr, "kept the fits of the earlier run as %s.old (--resume continues a run instead)\n", path)
		}
	}
	if resume {
		rows, err := readSizesJournal(path, fs)
		switch {
		case errors.Is(err, os.ErrNotExist):
		case err != nil:
			return nil, err
		default:
			kept = rows
		}
	}
	var buf bytes.Buffer
	head, err := json.Marshal(journalHead{Flags: flags})
	if err != nil {
		return nil, err
	}
	buf.Write(head)
	buf.WriteByte('\n')
	for _, r := range kept {
		line, err := json.Marshal(r)
		if err != nil {
			return nil, err
		}
		buf.Write(line)
		buf.WriteByte('\n')
		j.done[r.key()] = r
	}
	// Written whole to a temporary file and renamed, so a crash here
	// leaves the old journal, not half of it.
	tmp := path + ".tmp"
	if err := os.WriteFile(tmp, buf.Bytes(), 0o644); err != nil {
		return nil, err
	}
	if err := os.Rename(tmp, path); err != nil {
		return nil, err
	}
	if j.f, err = os.OpenFile(path, os.O_WRONLY|os.O_APPEND, 0); err != nil {
		return nil, err
	}
	return j, nil
}

// readSizesJournal reads the rows of the journal at path after checking
// that its flags are the fit flags of fs.
func readSizesJournal(path string, fs *flag.FlagSet) ([]sizesRow, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	lines := bytes.Split(b, []byte{'\n'})
	// Every line a write finished ends in a newline; what follows the last
	// one was cut short by an interruption, and its fit runs again.
	lines = lines[:len(lines)-1]
	if len(lines) == 0 {
		return nil, fmt.Errorf("%s: no complete first line, not a journal --resume can continue", path)
	}
	var head journalHead
	if err := json.Unmarshal(lines[0], &head); err != nil || head.Flags == nil {
		return nil, fmt.Errorf("%s: first line is not a journal's flags (%v)", path, err)
	}
	if diff := flagDifference(head.Flags, fs); diff != "" {
		return nil, fmt.Errorf("%s was made with other settings (%s): remove it or give the same flags to --resume", path, diff)
	}
	rows := make([]sizesRow, 0, len(lines)-1)
	for i, line := range lines[1:] {
		var r sizesRow
		if err := json.Unmarshal(line, &r); err != nil {
			return nil, fmt.Errorf("%s, line %d: %v", path, i+2, err)
		}
		rows = append(rows, r)
	}
	return rows, nil
}

// flagDifference names the first fit flag of fs whose value differs from
// the journal's record was, or "". A flag the record lacks was added after
// the journal was written; new flags default to what the program did
// before them, so such a flag matches when it is at its default.
func flagDifference(was map[string]string, fs *flag.FlagSet) string {
	now := fitFlags(fs)
	names := make([]string, 0, len(was)+len(now))
	for k := range was {
		names = append(names, k)
	}
	for k := range now {
		if _, ok := was[k]; !ok {
			names = append(names, k)
		}
	}
	sort.Strings(names)
	for _, k := range names {
		a, inWas := was[k]
		b, inNow := now[k]
		switch {
		case !inWas:
			if def := fs.Lookup(k).DefValue; b != def {
				return fmt.Sprintf("--%s is %q, but the journal predates the flag: its fits had the default, %q", k, b, def)
			}
		case !inNow:
			return fmt.Sprintf("--%s was %q, and is no longer a flag", k, a)
		case a != b:
			return fmt.Sprintf("--%s was %q, now %q", k, a, b)
		}
	}
	return ""
}

// add records a finished fit.
func (j *sizesJournal) add(r sizesRow) error {
	line, err := json.Marshal(r)
	if err != nil {
		return err
	}
	_, err = j.f.Write(append(line, '\n'))
	return err
}

func (j *sizesJournal) Close() error { return j.f.Close() }
