package recipes

import (
	"crypto/sha256"
	"encoding/hex"
	"testing"

	"github.com/rfstream/rfstream/internal/defaults"
	"github.com/rfstream/rfstream/internal/shipped"
)

// Every model in the manifest ships, matches its checksum and size, is
// of its task, and names the data it learnt from with their licences; every
// recipe has a shipped model.
func TestShippedModelsMatchTheirManifest(t *testing.T) {
	entries, err := defaults.Manifest()
	if err != nil {
		t.Fatal(err)
	}
	if len(entries) != len(Recipes) {
		t.Fatalf("%d shipped models in the manifest, %d recipes", len(entries), len(Recipes))
	}
	for i, e := range entries {
		if e.Name != Recipes[i].Name || e.Task != Recipes[i].Task {
			t.Errorf("manifest entry %d is %s (%s), the recipe %s (%s)", i, e.Name, e.Task, Recipes[i].Name, Recipes[i].Task)
		}
		b, err := shipped.ReadFile(e.File)
		if err != nil {
			t.Fatal(err)
		}
		if sum := sha256.Sum256(b); hex.EncodeToString(sum[:]) != e.SHA256 || len(b) != e.Bytes {
			t.Errorf("%s: %d bytes, the manifest says %d and another checksum", e.File, len(b), e.Bytes)
		}
		m, err := defaults.Shipped(e.Name)
		if err != nil {
			t.Fatal(err)
		}
		if m.Task != e.Task || m.Meta["training_data"] == nil || len(e.Data) == 0 {
			t.Errorf("%s: task %s, training data %v (manifest %v)", e.Name, m.Task, m.Meta["training_data"], e.Data)
		}
		for _, c := range e.Data {
			if c.Name == "" || c.Licence == "" {
				t.Errorf("%s: a corpus without its name or licence: %+v", e.Name, c)
			}
		}
	}
}
