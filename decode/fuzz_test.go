package decode

import (
	"encoding/binary"
	"math"
	"reflect"
	"testing"

	"gonum.org/v1/gonum/blas/blas32"
)

// FuzzDecoders feeds arbitrary frame scores (NaN, ±Inf, huge values
// included) through both decoders: they must return an error or agree,
// never panic.
func FuzzDecoders(f *testing.F) {
	f.Add([]byte{0, 0, 0, 0}, uint8(3), float32(0))
	f.Add(make([]byte, 4*6*7), uint8(2), float32(5))
	nan := binary.LittleEndian.AppendUint32(nil, math.Float32bits(float32(math.NaN())))
	f.Add(append(nan, make([]byte, 40)...), uint8(1), float32(0))
	inf := binary.LittleEndian.AppendUint32(nil, math.Float32bits(float32(math.Inf(-1))))
	f.Add(append(append(inf, inf...), make([]byte, 56)...), uint8(4), float32(1))
	words := []Unit{{Name: "a", Classes: []int{0, 1}, SelfLoop: 0.5}, {Name: "b", Classes: []int{2}, SelfLoop: 0.3}}
	sil := Unit{Name: "<sil>", Classes: []int{3}, SelfLoop: 0.5}
	g, err := WordLoop(words, &sil, LoopConfig{WordPenalty: -1})
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, raw []byte, chunk uint8, beam float32) {
		c := g.NumClasses()
		n := len(raw) / 4 / c
		m := blas32.General{Rows: n, Cols: c, Stride: c, Data: make([]float32, n*c)}
		for i := range m.Data {
			m.Data[i] = math.Float32frombits(binary.LittleEndian.Uint32(raw[4*i:]))
		}
		opt := Options{Beam: math.Abs(float64(beam))}
		want, errB := Viterbi(g, m, opt)
		d, err := NewDecoder(g, opt)
		if err != nil {
			if errB == nil {
				t.Fatalf("decoder refused options %+v that Viterbi took", opt)
			}
			return
		}
		step := 1 + int(chunk)%5
		var errI error
		for i := 0; i < n && errI == nil; i += step {
			errI = d.Push(rows(m, i, min(n, i+step)))
			_ = d.Partial()
			_ = d.Endpoint()
		}
		if errI != nil {
			if errB == nil {
				t.Fatalf("incremental failed (%v) where batch decoded", errI)
			}
			return
		}
		got, errF := d.Final()
		if (errF == nil) != (errB == nil) {
			t.Fatalf("batch error %v, incremental %v", errB, errF)
		}
		if errB != nil {
			return
		}
		want.States = nil
		if !reflect.DeepEqual(got, want) {
			t.Fatalf("incremental %+v, batch %+v", got, want)
		}
		for _, w := range got.Segments {
			if !(w.Confidence >= 0 && w.Confidence <= 1) {
				t.Fatalf("confidence %v", w.Confidence)
			}
		}
	})
}
