package engine

// Every package that defines a map kind is imported here, so that any model
// file can rebuild its map through features.Build.
import (
	_ "github.com/rfstream/rfstream/features/elss"
	_ "github.com/rfstream/rfstream/invariant"
	_ "github.com/rfstream/rfstream/maxout"
)
