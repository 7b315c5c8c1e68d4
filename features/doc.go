// Package features defines what every random feature map shares: the Map
// interface, the recipe that fully determines a map, the seeded random
// streams the recipes draw from, and Apply, which maps a matrix of inputs in
// row blocks. The maps that need no package of their own live here too:
// random Fourier features (the kitchen sinks of Rahimi and Recht) and the
// identity, the linear baseline.
//
// A map is its recipe. Projections are regenerated from (kind, parameters,
// seed) whenever a map is built, so a model file stores a few hundred bytes of
// recipe instead of megabytes of weights, and two processes that build the
// same recipe compute bit-identical features.
package features
