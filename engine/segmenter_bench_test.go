//go:build unix

package engine

import (
	"testing"

	"github.com/rfstream/rfstream/frontend"
)

// BenchmarkSegmenterRTF times the live pipeline's word segmenter (what
// the frontend stage runs on every PCM message before a word is cut) over
// 5 s of seven tone words in noise, pushed in 100 ms chunks as a stream's
// messages come, and reports seconds of compute per second of audio.
func BenchmarkSegmenterRTF(b *testing.B) {
	s := benchToneWords()
	words := 0
	cpu0 := cpuTime()
	for b.Loop() {
		seg, err := NewSegmenter(frontend.DefaultWordConfig(), DefaultSpotterConfig(), 8000)
		if err != nil {
			b.Fatal(err)
		}
		for i := 0; i < len(s); i += 800 {
			for _, g := range seg.Push(s[i:min(i+800, len(s))]) {
				if g.Final {
					words++
				}
			}
		}
		seg.Flush()
	}
	cpu := cpuTime() - cpu0
	if words == 0 {
		b.Fatal("no word was cut")
	}
	secs := float64(len(s)) / 8000
	b.ReportMetric(b.Elapsed().Seconds()/float64(b.N)/secs, "rtf")
	b.ReportMetric(cpu.Seconds()/float64(b.N)/secs, "cpu-rtf")
}
