package engine

import "slices"

// OhLabel is the label of a connected model's "oh" unit: the digit 0 said
// as "oh", as English speakers read out numbers. It has an HMM chain of
// its own ("oh" and "zero" share no sound) and prints as "0"; the result's
// Word.Spoken says which of the two was heard.
const OhLabel = "oh"

// spokenForm is how a unit's label is printed (Word.Word) and how it was
// said (Word.Spoken).
type spokenForm struct{ word, spoken string }

// spokenForms are the printed and spoken forms of labels that differ from
// the label itself: for a model with an "oh" unit, "oh" prints as 0 said
// "oh" and "0" as 0 said "zero". A model without one has none, so its
// results are what they were before "oh" existed.
func spokenForms(labels []string) map[string]spokenForm {
	if !slices.Contains(labels, OhLabel) {
		return nil
	}
	return map[string]spokenForm{OhLabel: {"0", "oh"}, "0": {"0", "zero"}}
}
