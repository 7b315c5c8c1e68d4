package train

import (
	"math"
	"testing"
)

// A tone played 1.25× faster is 1.25× higher and 1.25× shorter.
func TestSpeedConditionScalesTimeAndFrequency(t *testing.T) {
	const rate, f0 = 8000, 400.0
	x := make([]float32, rate)
	for i := range x {
		x[i] = float32(math.Sin(2 * math.Pi * f0 * float64(i) / rate))
	}
	y, err := SpeedCondition(1.25).Warp(x, rate)
	if err != nil {
		t.Fatal(err)
	}
	if want := float64(len(x)) / 1.25; math.Abs(float64(len(y))-want) > 0.01*want {
		t.Fatalf("%d samples, want about %.0f", len(y), want)
	}
	// Frequency from the zero crossings of the middle half.
	mid := y[len(y)/4 : 3*len(y)/4]
	var cross int
	for i := 1; i < len(mid); i++ {
		if (mid[i-1] < 0) != (mid[i] < 0) {
			cross++
		}
	}
	f := float64(cross) / 2 / (float64(len(mid)) / rate)
	if math.Abs(f-1.25*f0) > 5 {
		t.Errorf("tone at %.1f Hz after speed 1.25, want %.0f", f, 1.25*f0)
	}
}
