// Package shipped holds the default models that ship inside the module, and
// their manifest (manifest.json: each model's checksum, the data it learnt
// from and their licences). `make models` writes them from their recipes
// (internal/recipes.Recipes); package defaults verifies and loads them.
package shipped

import "embed"

//go:embed *.rfm manifest.json
var files embed.FS

// ReadFile returns the bytes of a shipped file.
func ReadFile(name string) ([]byte, error) { return files.ReadFile(name) }
