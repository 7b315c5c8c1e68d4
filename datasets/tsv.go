package datasets

import (
	"bufio"
	"fmt"
	"io"
	"path/filepath"
	"strings"
)

// maxManifestLine bounds one line of a manifest: a megabyte is far beyond
// any path and transcript, and small enough to keep in memory.
const maxManifestLine = 1 << 20

// manifestRows calls row for every line of a path<TAB>what[<TAB>speaker]
// manifest that is neither blank nor a '#' comment, with its line number,
// its path resolved against base, and its second and (possibly empty)
// third column. A line with fewer than two or more than three columns, or
// no path, is an error naming the line: a stray tab would otherwise shift
// the label or transcript into the wrong column.
func manifestRows(r io.Reader, base, what string, row func(line int, path, second, speaker string) error) error {
	s := bufio.NewScanner(r)
	s.Buffer(make([]byte, 0, 64*1024), maxManifestLine)
	line := 0
	for s.Scan() {
		line++
		text := strings.TrimRight(s.Text(), "\r")
		if strings.TrimSpace(text) == "" || strings.HasPrefix(text, "#") {
			continue
		}
		cols := strings.Split(text, "\t")
		if len(cols) < 2 || len(cols) > 3 || strings.TrimSpace(cols[0]) == "" {
			return fmt.Errorf("line %d: want path<TAB>%s[<TAB>speaker], have %q", line, what, text)
		}
		p := cols[0]
		if !filepath.IsAbs(p) {
			p = filepath.Join(base, p)
		}
		speaker := ""
		if len(cols) == 3 {
			speaker = strings.TrimSpace(cols[2])
		}
		if err := row(line, p, cols[1], speaker); err != nil {
			return err
		}
	}
	if err := s.Err(); err != nil {
		return fmt.Errorf("line %d: %w", line+1, err)
	}
	return nil
}
