// Package transforms holds the groups whose actions make random features
// invariant: image rotations and translations, permutations of sequence
// positions, and (from the audio side) pitch shifts and tempo warps.
//
// A Group acts on vectors of one length. It can sample elements from its
// Haar measure (or from the uniform measure on a local subset closed under
// inverse, such as rotations within ±20°), enumerate itself when finite, and
// apply an element to a vector. The invariant map applies the sampled
// elements to its templates once, when it is built; no input is ever
// transformed at run time.
//
// Every group is described by a Spec (kind + JSON parameters) so a feature
// map's recipe can rebuild it exactly. Randomness comes from a caller-supplied
// *rand.Rand: this package draws its numbers through Uniform and Intn below,
// whose mapping from the generator's stream is ours and fixed.
//
// Deskew, the one transformation applied to inputs rather than templates,
// is here too: it shears an image to zero slant before any map sees it.
package transforms
