// Package maxout implements random maxout features: each of m units takes
// the largest of q random Gaussian projections of the input,
//
//	h_l(x) = max_j <w_lj, x>,  Φ(x) = (h_1(x), …, h_m(x)) / √m,
//
// whose expected inner product is the locally linear maxout kernel
// σ²(q)·<x,z>·κ_q(x,z). The index of the winning projection of every unit is
// a locality-sensitive hash of x.
package maxout
