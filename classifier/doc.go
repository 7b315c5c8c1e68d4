// Package classifier learns linear read-outs on feature rows: regularised
// least squares (RLS) with one-vs-rest targets, and the scores and decisions
// it produces. It works on matrices and knows nothing of where the features
// came from.
package classifier
