package train

import (
	"fmt"
	"io"
	"strings"

	"github.com/rfstream/rfstream/datasets"
	"github.com/rfstream/rfstream/internal/progress"
)

// EngineVoices are the synthesised voices a digit model may train on
// besides FSDD: each named engine's corpus (datasets.BuildVoiceSet),
// cached in Dir.
type EngineVoices struct {
	Engines []string // datasets.Engines' names; none: no engine voices
	Set     datasets.VoiceSetOptions
	Dir     string
	// SkipMissing leaves out, with a line on Log, an engine that is not
	// installed (a user's first model) instead of failing (a measurement).
	SkipMissing bool
	Log         io.Writer
}

// BuildEngineVoices builds (or finds) the named engines' corpora with one
// progress bar over all of them. skipMissing leaves out, with a line on
// log, an engine that cannot run here instead of failing.
func BuildEngineVoices(ev EngineVoices, skipMissing bool, log io.Writer) ([]datasets.VoiceSet, error) {
	var engines []datasets.Engine
	for _, name := range ev.Engines {
		e, err := datasets.EngineByName(name)
		if err != nil {
			return nil, err
		}
		if err := e.Available(); err != nil {
			if !skipMissing {
				return nil, fmt.Errorf("%s: %w", name, err)
			}
			fmt.Fprintf(orDiscard(log), "%s: left out: %v\n", name, err)
			continue
		}
		engines = append(engines, e)
	}
	perEngine := int64(ev.Set.Speakers * (10*ev.Set.Takes + ev.Set.Strings))
	bar := progress.New(orDiscard(log), "synthesised voices", perEngine*int64(len(engines)), "files")
	var sets []datasets.VoiceSet
	for _, e := range engines {
		set, err := datasets.BuildVoiceSet(ev.Dir, e, ev.Set, func(n int) { bar.Add(int64(n)) })
		if err != nil {
			bar.Finish()
			return nil, err
		}
		sets = append(sets, set)
	}
	bar.Finish()
	return sets, nil
}

// EngineNames are all of datasets.Engines' names, comma-separated.
func EngineNames() string {
	var names []string
	for _, e := range datasets.Engines() {
		names = append(names, e.Name())
	}
	return strings.Join(names, ",")
}
