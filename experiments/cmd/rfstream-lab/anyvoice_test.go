package main

import (
	"os"
	"path/filepath"
	"testing"
)

func TestScoreByVoiceCountsEachVoice(t *testing.T) {
	path := filepath.Join(t.TempDir(), "p.tsv")
	rows := "split\tpath\tspeaker\tlabel\tpredicted\tmargin\n" +
		"m\ta.wav\tann\t1\t1\t0.5\n" +
		"m\tb.wav\tann\t2\t3\t0.1\n" +
		"m\tc.wav\tbob\t4\t4\t0.2\n" +
		"m\td.wav\tann\t5\t5\t0.3\n"
	if err := os.WriteFile(path, []byte(rows), 0o644); err != nil {
		t.Fatal(err)
	}
	sc, err := scoreByVoice(path)
	if err != nil {
		t.Fatal(err)
	}
	if sc.N != 4 || sc.Accuracy != 0.75 || sc.PerVoice["ann"] != 2.0/3 || sc.PerVoice["bob"] != 1 {
		t.Errorf("got %+v; want 4 recordings, 0.75, ann 2/3, bob 1", sc)
	}
	if err := os.WriteFile(path, []byte("split\tpath\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := scoreByVoice(path); err == nil {
		t.Error("a file of two columns was scored")
	}
}
