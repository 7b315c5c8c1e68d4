// Package classifier learns read-outs on feature rows and turns their scores
// into decisions: regularised least squares (RLS) with one-vs-rest targets
// over a Gram matrix accumulated block by block, with λ chosen on held-out
// rows (FitRLS), its dual and kernel forms, multinomial softmax, k nearest
// neighbours, and a fitted temperature that makes scores posteriors. It
// works on matrices and knows nothing of where the features came from:
// FitRLS takes any Featurizer, an interface every features.Map satisfies.
package classifier
