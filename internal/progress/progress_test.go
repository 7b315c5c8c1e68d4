package progress

import (
	"bytes"
	"strings"
	"sync"
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

func TestFmtRate(t *testing.T) {
	for _, c := range []struct {
		rate float64
		want string
	}{{934.94, "934.9 rows/s"}, {0.03125, "32.0s/row"}, {0, "0.0 rows/s"}, {1.0 / 95, "1m35s/row"}} {
		if got := fmtRate(c.rate, "rows"); got != c.want {
			t.Errorf("fmtRate(%v) = %q, want %q", c.rate, got, c.want)
		}
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

func TestUnknownTotalShowsElapsedTime(t *testing.T) {
	var buf bytes.Buffer
	b := New(&buf, "fetch", 0, "bytes")
	b.now = fakeClock(11 * time.Second)
	b.start = time.Unix(0, 0)
	b.last = b.start
	b.Add(0)
	b.Finish()
	out := buf.String()
	if strings.ContainsAny(out, "\r\x1b") || strings.Contains(out, "%") || strings.Contains(out, "ETA") {
		t.Fatalf("unknown-total output %q", out)
	}
	if !strings.Contains(out, "fetch: running for 11.0s\n") || !strings.HasSuffix(out, "fetch: done in 22.0s\n") {
		t.Fatalf("unknown-total output %q", out)
	}
}

func TestTickRedrawsUntilStopped(t *testing.T) {
	var buf safeBuffer
	b := New(&buf, "npm", 0, "")
	b.SetInterval(5 * time.Millisecond)
	stop := b.Tick()
	// Wait for two redraws however slowly a loaded machine schedules
	// the ticker; a bar that never redraws fails at the deadline.
	for deadline := time.Now().Add(5 * time.Second); strings.Count(buf.String(), "npm: running for") < 2 && time.Now().Before(deadline); {
		time.Sleep(5 * time.Millisecond)
	}
	stop()
	n := strings.Count(buf.String(), "npm: running for")
	if n < 2 || !strings.Contains(buf.String(), "npm: done in") {
		t.Fatalf("%d ticks in %q", n, buf.String())
	}
	after := buf.String()
	time.Sleep(20 * time.Millisecond)
	if buf.String() != after {
		t.Fatal("the bar kept drawing after stop")
	}
}

func TestLogfKeepsTheBarIntact(t *testing.T) {
	var plain bytes.Buffer
	b := New(&plain, "grid", 4, "runs")
	b.Logf("run %d: %.2f%%", 1, 5.5)
	if plain.String() != "run 1: 5.50%\n" {
		t.Fatalf("plain Logf wrote %q", plain.String())
	}
	var term bytes.Buffer
	b = New(&term, "grid", 4, "runs")
	b.tty = true
	b.Add(1)
	b.Logf("run 1")
	// The bar's line is cleared, the message printed on its own line and the bar redrawn.
	if !strings.Contains(term.String(), "\r\x1b[Krun 1\n\rgrid ") {
		t.Fatalf("terminal Logf wrote %q", term.String())
	}
}

// safeBuffer is a bytes.Buffer for a writer on another goroutine.
type safeBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *safeBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *safeBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}
