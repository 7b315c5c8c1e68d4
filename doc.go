// Package rfstream is the runtime of rfstream: a Model is the recipe of a
// feature map plus the learned read-out and whatever configuration its
// frontend and decoder need, stored in a versioned, checksummed file; the
// recognisers here turn recordings, streams and images into results with
// it. Models are made by package train.
package rfstream
