// Package invariant implements group-invariant random features by CDF
// pooling (Mroueh, Voinea and Poggio, "Learning with group invariant
// features: a kernel perspective"): the empirical distribution of an input's
// projections onto the group-transformed copies g_i·t_j of m random
// templates, read at 2n+1 thresholds.
//
// The transformed templates are computed once, when the map is built; an
// input is never transformed. A batch of inputs is projected onto all m·|G|
// stored templates in one matrix product, and each template's |G|
// projections are then counted into n-bin histograms whose running sums are
// the features.
//
// In expectation over templates the inner product of two feature vectors is
// the group-invariant kernel K_s(x, z) ≈ s − d_G(x, z), where d_G is the mean
// distance between the orbits of x and z divided by √(2πd) (Theorem 1); the
// discrete thresholds add s/(2n) on average. HaarGram computes the exact
// Haar-integration kernel for finite groups as a reference.
package invariant
