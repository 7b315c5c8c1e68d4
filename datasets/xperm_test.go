package datasets

import "testing"

func TestXpermCountsAndSplit(t *testing.T) {
	d, err := NewXperm(5, 8, []int{2, 5})
	if err != nil {
		t.Fatal(err)
	}
	if len(d.Seqs) != 32768 {
		t.Fatalf("%d sequences, want 8⁵", len(d.Seqs))
	}
	// Inclusion–exclusion: 8⁵ − 2·7⁵ + 6⁵ sequences contain both targets.
	pos := 0
	for _, l := range d.Labels {
		pos += l
	}
	if pos != 32768-2*16807+7776 {
		t.Fatalf("%d positives, want 6930", pos)
	}
	x := make([]float32, 40)
	c := make([]float32, 8)
	for _, i := range []int{0, 1, 4095, 32767, 12345} {
		d.OneHot(x, i)
		d.Counts(c, i)
		var ones, total float32
		for _, v := range x {
			ones += v
		}
		for _, v := range c {
			total += v
		}
		if ones != 5 || total != 5 {
			t.Fatalf("sequence %d: %v ones, %v counted", i, ones, total)
		}
		for p, s := range d.Seqs[i] {
			if x[p*8+s] != 1 {
				t.Fatalf("sequence %d position %d not one-hot at %d", i, p, s)
			}
		}
	}
	train, test, err := d.BalancedSplit(2000, 1)
	if err != nil {
		t.Fatal(err)
	}
	if len(train) != 4000 || len(test) != 28768 {
		t.Fatalf("split %d/%d", len(train), len(test))
	}
	n := 0
	for _, i := range train {
		n += d.Labels[i]
	}
	if n != 2000 {
		t.Fatalf("%d positives of 4000 training sequences", n)
	}
	again, _, _ := d.BalancedSplit(2000, 1)
	other, _, _ := d.BalancedSplit(2000, 2)
	same := 0
	for i := range again {
		if again[i] != train[i] {
			t.Fatal("the same seed drew a different split")
		}
		if other[i] == train[i] {
			same++
		}
	}
	if same == len(train) {
		t.Fatal("another seed drew the same split")
	}
	if _, err := NewXperm(5, 8, []int{2, 2}); err == nil {
		t.Error("repeated target accepted")
	}
	if _, err := NewXperm(5, 8, []int{9}); err == nil {
		t.Error("target outside the alphabet accepted")
	}
	if _, _, err := d.BalancedSplit(7000, 1); err == nil {
		t.Error("7000 positives drawn from 6930")
	}
}
