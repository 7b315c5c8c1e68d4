package maxout

import (
	"fmt"
	"math"

	"github.com/rfstream/rfstream/features"
)

func init() {
	features.RegisterColumns(Kind, func(r features.Recipe, cols []int) (features.Applier, error) {
		var p Params
		if err := features.UnmarshalParams(r, &p); err != nil {
			return nil, err
		}
		return Columns(r.In, p, r.Seed, cols)
	})
}

// Columns builds a map computing only units cols of the maxout map
// (in, p, seed), with that map's 1/√m scale: output j equals unit cols[j]
// of the full map. Private projections of the other units are drawn and
// dropped chunk by chunk, so only the kept units' projections are ever held.
// The result is an Applier, not a recipe of its own.
func Columns(in int, p Params, seed uint64, cols []int) (*Map, error) {
	size, err := check(in, p)
	if err != nil {
		return nil, err
	}
	if size > 1<<31 {
		return nil, fmt.Errorf("maxout: %d×%d projections exceed 2³¹ values", max(p.M*p.Q, p.Pool), in)
	}
	if err := features.CheckColumns(cols, p.M); err != nil {
		return nil, err
	}
	sub := p
	sub.M = len(cols)
	mp := &Map{in: in, seed: seed, p: sub, scale: float32(1 / math.Sqrt(float64(p.M)))}
	if p.Pool > 0 {
		mp.buildPool(features.Recipe{Seed: seed}.DrawNormal32) // the pool itself is shared by all units: draw it whole
		all := drawMembers(p, seed)
		mp.members = make([]int32, 0, len(cols)*p.Q)
		for _, l := range cols {
			mp.members = append(mp.members, all[l*p.Q:(l+1)*p.Q]...)
		}
		return mp, nil
	}
	unit := p.Q * in // canonical values per unit
	canon := make([]float32, len(cols)*unit)
	next := 0
	features.ForEachNormal32(features.NewRand(seed, 0), p.M*unit, func(off int, chunk []float32) {
		end := off + len(chunk)
		for next < len(cols) && cols[next]*unit < end {
			l := cols[next]
			lo, hi := max(l*unit, off), min((l+1)*unit, end)
			copy(canon[next*unit+(lo-l*unit):], chunk[lo-off:hi-off])
			if hi < (l+1)*unit {
				break // the rest of this unit is in the next chunk
			}
			next++
		}
	})
	mp.layOut(canon)
	return mp, nil
}

// check validates a maxout map's shape; it returns the number of
// projection values the map holds.
func check(in int, p Params) (int64, error) {
	switch {
	case in <= 0:
		return 0, fmt.Errorf("maxout: input dimension %d", in)
	case p.M <= 0 || p.Q <= 0:
		return 0, fmt.Errorf("maxout: need m ≥ 1 and q ≥ 1, have m=%d q=%d", p.M, p.Q)
	case p.Q > 255:
		return 0, fmt.Errorf("maxout: q=%d exceeds 255 (codes are bytes)", p.Q)
	case p.Pool < 0 || (p.Pool > 0 && p.Pool < p.Q):
		return 0, fmt.Errorf("maxout: pool of %d projections cannot give %d distinct ones per unit", p.Pool, p.Q)
	}
	return int64(max(p.M*p.Q, p.Pool)) * int64(in), nil
}
