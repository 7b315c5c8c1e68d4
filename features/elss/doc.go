// Package elss selects random features by their empirical ridge leverage
// scores (ELSS) and wraps any features.Map as a map of the kept features.
//
// A pool of M0 candidates is the base map built with M0 outputs (M0 maxout
// units, M0 Fourier frequencies, …). Their scores q_k = [G(G+λI)⁻¹]_kk,
// with G = Φ0ᵀΦ0/n0 the Gram of the pool's features on n0 unlabelled
// inputs, say how much of the data's span each candidate carries. Then
//
//   - Algorithm 1 draws M candidates i.i.d. from p_k = q_k/Σq and weights
//     each by 1/√(M·p_k): the kernel estimate stays an unbiased estimate of
//     the pool's (and so of the map's) kernel;
//   - Algorithm 2 keeps the M largest scores, unweighted (the kernel
//     changes: the kept features are those the data uses most).
//
// λ is relative to the mean diagonal of G. Its limits: λ → 0 gives q_k = 1
// for every candidate when n0 ≥ M0 (G of full rank: plain sampling), and
// the leverage of candidate k's column of Φ0 in its n0-dimensional row
// space when n0 < M0 (Σq = n0; equal only in expectation over the draw of
// the pool). λ → ∞ gives q_k ≈ G_kk/λ, so p_k → G_kk/tr G, each
// candidate's mean square on the sample. That is uniform exactly when the
// candidates' mean squares are equal: Fourier features are, in expectation
// over their phases (E_b 2cos²(<w,x>+b) = 1 for every w and x), so there the
// limit is plain sampling up to phase noise; maxout units are not (a unit's
// mean square grows with its weights' norm), so there it is importance
// sampling by mean square. Algorithm 1 stays unbiased at any λ.
//
// The paper writes the weight 1/√(M0·p_k) for features scaled as draws of
// the kernel's integrand; here the pool's columns already carry the map's
// 1/√M0, so the same correction reads 1/√(M·p_k) (see Choose).
//
// The selected map is a recipe of kind "elss": the base recipe of the pool,
// the kept pool columns and their weights. Building it draws only the kept
// columns when the base kind has a column builder (features.RegisterColumns;
// Fourier and maxout do), so it costs what a plain map of M features costs.
package elss
