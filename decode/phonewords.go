package decode

import (
	"fmt"
	"math"
)

// PhoneWords finds a vocabulary's words in a recognised phone string: the
// sequence of words whose pronunciations, end to end, are nearest the
// phones (edit distance: each substituted, inserted or deleted phone costs
// 1), plus WordCost for every word, so a long stretch is not explained by
// many short words.
type PhoneWords struct {
	words []string
	prons [][]string
	// WordCost is added for every word found: 2 by default, chosen on real
	// development speakers (experiments/journal/phones.md, round 5w).
	WordCost float64
}

// NewPhoneWords indexes the vocabulary: words[i] is said prons[i] (a word
// with several pronunciations appears once per pronunciation).
func NewPhoneWords(words []string, prons [][]string) (*PhoneWords, error) {
	if len(words) != len(prons) || len(words) == 0 {
		return nil, fmt.Errorf("decode: %d words for %d pronunciations", len(words), len(prons))
	}
	for i, p := range prons {
		if len(p) == 0 {
			return nil, fmt.Errorf("decode: the word %q has an empty pronunciation", words[i])
		}
	}
	return &PhoneWords{words: words, prons: prons, WordCost: 2}, nil
}

// Find segments phones into the vocabulary's words; cost is the edit cost
// of the match plus the word costs. An empty phone string finds no word.
func (p *PhoneWords) Find(phones []string) (words []string, cost float64) {
	n := len(phones)
	if n == 0 {
		return nil, 0
	}
	// best[j]: the cheapest explanation of phones[:j]; from[j] the start of
	// its last word and which word.
	best := make([]float64, n+1)
	from := make([][2]int, n+1)
	for j := 1; j <= n; j++ {
		best[j] = math.Inf(1)
	}
	row := make([]float64, n+1)
	prev := make([]float64, n+1)
	for i := 0; i < n; i++ {
		if math.IsInf(best[i], 1) {
			continue
		}
		for w, pron := range p.prons {
			// Edit distance of pron against phones[i:j] for every j at once:
			// prev/row run over j, the pronunciation's phones down.
			for j := i; j <= n; j++ {
				prev[j] = float64(j - i)
			}
			for _, ph := range pron {
				row[i] = prev[i] + 1
				for j := i + 1; j <= n; j++ {
					sub := prev[j-1]
					if phones[j-1] != ph {
						sub++
					}
					row[j] = min(sub, prev[j]+1, row[j-1]+1)
				}
				prev, row = row, prev
			}
			for j := i + 1; j <= n; j++ {
				if c := best[i] + prev[j] + p.WordCost; c < best[j] {
					best[j], from[j] = c, [2]int{i, w}
				}
			}
		}
	}
	for j := n; j > 0; j = from[j][0] {
		words = append(words, p.words[from[j][1]])
	}
	for a, b := 0, len(words)-1; a < b; a, b = a+1, b-1 {
		words[a], words[b] = words[b], words[a]
	}
	return words, best[n]
}
