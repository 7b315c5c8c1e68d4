package main

import (
	"github.com/rfstream/rfstream"
	"github.com/rfstream/rfstream/frontend"
)

func init() { registerRecognizer(rfstream.TaskConnected, recognizeConnected) }

// recognizeConnected decodes a digit string with a connected-digit model.
// Its confidence is the lowest of its words': a string is only as sure as
// its least sure word.
func recognizeConnected(m *rfstream.Model) (func(a *frontend.Audio) (recognition, error), error) {
	c, err := rfstream.NewConnected(m) // the map and the word loop, built once for every recording
	if err != nil {
		return nil, err
	}
	return func(a *frontend.Audio) (recognition, error) {
		res, err := c.Recognize(a)
		if err != nil {
			return recognition{}, err
		}
		rec := recognition{Text: res.Text, Words: res.Words}
		for i, w := range res.Words {
			if i == 0 || w.Conf < rec.Conf {
				rec.Conf = w.Conf
			}
		}
		return rec, nil
	}, nil
}
