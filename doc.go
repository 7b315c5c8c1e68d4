// Package rfstream ties the stages together: a Model is the recipe of a
// feature map plus the learned read-out and whatever configuration its
// frontend and decoder need, stored in a versioned, checksummed file; FitRLS
// trains the read-out by streaming data through a map block by block.
package rfstream
