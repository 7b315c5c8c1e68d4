package progress

import (
	"bytes"
	"strings"
	"testing"
	"time"
)

// fakeClock advances by step on every reading.
func fakeClock(step time.Duration) func() time.Time {
	t := time.Unix(0, 0)
	return func() time.Time { t = t.Add(step); return t }
}

func TestPlainLinesHaveNoControlCharacters(t *testing.T) {
	var buf bytes.Buffer
	b := New(&buf, "gram", 100, "rows")
	b.now = fakeClock(4 * time.Second)
	b.start = time.Unix(0, 0)
	b.last = b.start
	for i := 0; i < 10; i++ {
		b.Add(10)
	}
	b.Finish()
	b.Finish()
	out := buf.String()
	if strings.ContainsAny(out, "\r\x1b") {
		t.Fatalf("non-terminal output has control characters: %q", out)
	}
	lines := strings.Split(strings.TrimSpace(out), "\n")
	// Every third Add crosses the 10 s interval at 4 s a tick, plus one final line.
	if len(lines) < 3 || !strings.Contains(lines[len(lines)-1], "100/100 rows done") {
		t.Fatalf("unexpected lines: %q", lines)
	}
	if strings.Count(out, "done in") != 1 {
		t.Fatalf("Finish printed more than once: %q", out)
	}
	if !strings.Contains(lines[0], "ETA") {
		t.Fatalf("progress line lacks an ETA: %q", lines[0])
	}
}

func TestTerminalBarRedraws(t *testing.T) {
	var buf bytes.Buffer
	b := New(&buf, "fetch", 4, "files")
	b.tty = true
	b.interval = 0
	b.now = fakeClock(time.Second)
	b.start = time.Unix(0, 0)
	b.last = b.start
	b.Add(2)
	b.Finish()
	out := buf.String()
	if !strings.HasPrefix(out, "\r") || strings.Count(out, "\r") != 2 || !strings.Contains(out, " 50%") || !strings.HasSuffix(out, "\n") {
		t.Fatalf("terminal output %q", out)
	}
}

func TestFmtDuration(t *testing.T) {
	for d, want := range map[time.Duration]string{
		1500 * time.Millisecond: "1.5s",
		95 * time.Second:        "1m35s",
		3723 * time.Second:      "1h02m03s",
	} {
		if got := fmtDuration(d); got != want {
			t.Errorf("fmtDuration(%v) = %q, want %q", d, got, want)
		}
	}
}
