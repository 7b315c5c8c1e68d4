package progress

import (
	"fmt"
	"io"
	"os"
	"strings"
	"sync"
	"time"
)

// Bar tracks one job of a known number of units. It is safe for concurrent
// use; Add may be called from many goroutines.
type Bar struct {
	mu       sync.Mutex
	w        io.Writer
	label    string
	unit     string
	total    int64
	done     int64
	start    time.Time
	last     time.Time
	tty      bool
	interval time.Duration
	now      func() time.Time
	finished bool
}

// New starts a bar writing to w. On a terminal it redraws in place at most
// ten times a second; elsewhere it prints a line every interval (or 10 s).
// A total of 0 or less means the amount of work is unknown: the bar then
// shows the elapsed time and the count, without a percentage or ETA.
func New(w io.Writer, label string, total int64, unit string) *Bar {
	b := &Bar{w: w, label: label, unit: unit, total: total, tty: IsTerminal(w), interval: 10 * time.Second, now: time.Now}
	if b.tty {
		b.interval = 100 * time.Millisecond
	}
	b.start = b.now()
	b.last = b.start
	return b
}

// SetInterval changes how often a non-terminal bar prints.
func (b *Bar) SetInterval(d time.Duration) {
	b.mu.Lock()
	if !b.tty {
		b.interval = d
	}
	b.mu.Unlock()
}

// IsTerminal reports whether w is a character device such as a terminal.
func IsTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	if !ok {
		return false
	}
	st, err := f.Stat()
	return err == nil && st.Mode()&os.ModeCharDevice != 0
}

// Add records n more units done and reports if it is time to.
func (b *Bar) Add(n int64) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.done += n
	t := b.now()
	if t.Sub(b.last) >= b.interval {
		b.last = t
		b.draw(t, false)
	}
}

// Finish prints the final state once; later calls do nothing.
func (b *Bar) Finish() {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.finished {
		return
	}
	b.finished = true
	b.draw(b.now(), true)
}

// Logf prints a line of its own without tearing a terminal bar: the bar's
// line is cleared first and redrawn after.
func (b *Bar) Logf(format string, args ...any) {
	b.mu.Lock()
	defer b.mu.Unlock()
	line := fmt.Sprintf(format, args...)
	if !strings.HasSuffix(line, "\n") {
		line += "\n"
	}
	if !b.tty || b.finished {
		io.WriteString(b.w, line)
		return
	}
	io.WriteString(b.w, "\r\x1b[K"+line)
	b.draw(b.now(), false)
}

// Tick keeps a bar of unknown total alive while work without countable
// steps runs (a download, an external tool): it redraws every interval
// until the returned stop function is called, which finishes the bar.
func (b *Bar) Tick() (stop func()) {
	done := make(chan struct{})
	finished := make(chan struct{})
	b.mu.Lock()
	every := b.interval
	b.mu.Unlock()
	go func() {
		defer close(finished)
		t := time.NewTicker(every)
		defer t.Stop()
		for {
			select {
			case <-done:
				return
			case <-t.C:
				b.Add(0)
			}
		}
	}()
	return func() {
		close(done)
		<-finished
		b.Finish()
	}
}

func (b *Bar) draw(t time.Time, final bool) {
	if b.total <= 0 {
		b.drawUnknown(t, final)
		return
	}
	el := t.Sub(b.start).Seconds()
	rate := 0.0
	if el > 0 {
		rate = float64(b.done) / el
	}
	eta := "?"
	if rate > 0 && b.total > 0 && b.done <= b.total {
		eta = fmtDuration(time.Duration(float64(b.total-b.done) / rate * float64(time.Second)))
	}
	frac := 0.0
	if b.total > 0 {
		frac = float64(b.done) / float64(b.total)
		if frac > 1 {
			frac = 1
		}
	}
	if !b.tty {
		if final {
			fmt.Fprintf(b.w, "%s: %d/%d %s done in %s (%s)\n", b.label, b.done, b.total, b.unit, fmtDuration(t.Sub(b.start)), fmtRate(rate, b.unit))
		} else {
			fmt.Fprintf(b.w, "%s: %d/%d %s (%.0f%%), %s, ETA %s\n", b.label, b.done, b.total, b.unit, 100*frac, fmtRate(rate, b.unit), eta)
		}
		return
	}
	const width = 30
	filled := int(frac * width)
	bar := strings.Repeat("█", filled) + strings.Repeat("░", width-filled)
	line := fmt.Sprintf("\r%s %s %3.0f%% %d/%d %s %s ETA %s\x1b[K", b.label, bar, 100*frac, b.done, b.total, b.unit, fmtRate(rate, b.unit), eta)
	if final {
		line = fmt.Sprintf("\r%s %s %3.0f%% %d/%d %s in %s\x1b[K\n", b.label, bar, 100*frac, b.done, b.total, b.unit, fmtDuration(t.Sub(b.start)))
	}
	io.WriteString(b.w, line)
}

// drawUnknown draws a bar whose total is not known.
func (b *Bar) drawUnknown(t time.Time, final bool) {
	el := fmtDuration(t.Sub(b.start))
	count := ""
	if b.done > 0 {
		count = fmt.Sprintf(", %d %s", b.done, b.unit)
	}
	switch {
	case !b.tty && final:
		fmt.Fprintf(b.w, "%s: done in %s%s\n", b.label, el, count)
	case !b.tty:
		fmt.Fprintf(b.w, "%s: running for %s%s\n", b.label, el, count)
	case final:
		fmt.Fprintf(b.w, "\r%s: done in %s%s\x1b[K\n", b.label, el, count)
	default:
		fmt.Fprintf(b.w, "\r%s: %s%s\x1b[K", b.label, el, count)
	}
}

// fmtRate shows a rate as units per second, or as seconds per unit when
// each unit takes longer than a second (a grid of long runs).
func fmtRate(rate float64, unit string) string {
	if rate > 0 && rate < 1 {
		return fmt.Sprintf("%s/%s", fmtDuration(time.Duration(float64(time.Second)/rate)), strings.TrimSuffix(unit, "s"))
	}
	return fmt.Sprintf("%.1f %s/s", rate, unit)
}

func fmtDuration(d time.Duration) string {
	if d < time.Minute {
		return fmt.Sprintf("%.1fs", d.Seconds())
	}
	d = d.Round(time.Second)
	h, m, s := int(d.Hours()), int(d.Minutes())%60, int(d.Seconds())%60
	if h > 0 {
		return fmt.Sprintf("%dh%02dm%02ds", h, m, s)
	}
	return fmt.Sprintf("%dm%02ds", m, s)
}
