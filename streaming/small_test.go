package streaming

import (
	"strings"
	"testing"
	"time"
	"unicode/utf8"
)

// A client's value in an error message is quoted by its first 64 bytes at
// most, cut on a character's boundary, with its length.
func TestClipQuoteBoundsWhatAnErrorRepeats(t *testing.T) {
	if got := clipQuote("abc"); got != `"abc"` {
		t.Fatalf("a short value: %s", got)
	}
	long := strings.Repeat("é", 500000) // 1 MB
	got := clipQuote(long)
	if len(got) > 100 || !strings.Contains(got, "(1000000 bytes)") || !utf8.ValidString(got) {
		t.Fatalf("a 1 MB value quoted as %d bytes: %.120s", len(got), got)
	}
}

// Names are one token of 1-128 bytes of printable characters: control
// characters, spaces, 300-character names and invalid UTF-8 are refused,
// letters of any script are not.
func TestCheckNameRefusesWhatHarmsLogsAndFiles(t *testing.T) {
	for _, bad := range []string{"", "a\x00b", "esc\x1b[31m", "tab\tx", "a b", strings.Repeat("n", 300), "\xff\xfe", "a.b", "x>"} {
		if err := CheckName("stream", bad); err == nil {
			t.Errorf("%q accepted", bad)
		} else if len(err.Error()) > 250 {
			t.Errorf("%d-byte error for a %d-byte name", len(err.Error()), len(bad))
		}
	}
	for _, good := range []string{"s1", "web-c4efc09cee12806f", "zoë", "名前", strings.Repeat("n", 128)} {
		if err := CheckName("voice", good); err != nil {
			t.Errorf("%q refused: %v", good, err)
		}
	}
}

// A stream whose name (or its voice's) is no valid name is refused at its
// first message with one end-of-stream error naming why, and an ordinary
// stream goes on; a rate out of range is refused naming the range, not
// the audio rate bound.
func TestBadNamesAndRatesAreRefusedSayingWhy(t *testing.T) {
	_, nc, _ := pipeline(t, false)
	for _, stream := range []string{"ctl\x1bx", strings.Repeat("s", 300), "v\x07oice.s1"} {
		ch := resultsOf(t, nc, stream)
		kind := KindPCM
		if strings.Contains(stream, ".") { // a named voice's stream
			kind = KindVoice
		}
		sendRaw(t, nc, kind, stream, map[string]string{HdrSeq: "0", HdrRate: "8000", HdrEOS: "1"}, make([]byte, 1600))
		got := collect(t, ch, 5*time.Second)
		if len(got) != 1 || !got[0].EOS || !strings.Contains(got[0].Error, "stream refused") || !strings.Contains(got[0].Error, "printable") {
			t.Fatalf("stream %.20q: %+v", stream, got)
		}
	}
	ch := resultsOf(t, nc, "rate1")
	publish(t, nc, "rate1", 0, make([]byte, 1600), map[string]string{HdrRate: "1", HdrEOS: "1"})
	got := collect(t, ch, 5*time.Second)
	if len(got) == 0 || !strings.Contains(got[0].Error, "1000") {
		t.Fatalf("Rfs-Rate 1: %+v", got)
	}
	goodStreamStillRecognised(t, nc)
}
