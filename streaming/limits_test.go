package streaming

import (
	"testing"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/rfstream/rfstream/frontend"
	"github.com/rfstream/rfstream/internal/toymodels"
)

// goodStreamStillRecognised checks that a pipeline that has just been
// abused still gives an ordinary stream its words.
func goodStreamStillRecognised(t *testing.T, nc *nats.Conn) {
	t.Helper()
	got := streamAll(t, nc, "good", &frontend.Audio{Rate: 8000, Samples: toymodels.UpDown()}, StreamOptions{Encoding: EncF32})
	if last := got[len(got)-1]; !last.EOS || last.Text != "up down" {
		t.Fatalf("an ordinary stream beside the hostile ones: %+v", last)
	}
}

// A rate whose resampling filter would be huge (767998 Hz: 13.4 million
// taps, built under the frontend's lock) is refused naming the rate, at
// once: ten such messages once held up every stream for 5.2 s and took
// 700 MB.
func TestOddRatesAreRefusedAtOnce(t *testing.T) {
	_, nc, _ := pipeline(t, false)
	ch := resultsOf(t, nc, "oddrate")
	start := time.Now()
	for i := 0; i < 10; i++ {
		hdr := map[string]string{HdrRate: "767998"}
		if i == 9 {
			hdr[HdrEOS] = "1"
		}
		publish(t, nc, "oddrate", i, make([]byte, 1600), hdr)
	}
	got := collect(t, ch, 5*time.Second)
	took := time.Since(start)
	want := make([]string, 11)
	for i := range 10 {
		want[i] = "767998"
	}
	want[10] = "never started"
	expectResults(t, got, want...)
	if took > time.Second {
		t.Fatalf("ten refusals took %v", took)
	}
	goodStreamStillRecognised(t, nc)
}
