package registry

import (
	"bytes"
	"encoding/json"
	"fmt"
	"sort"
	"sync"
)

// Table maps kind names to builders of type B. The zero value is not usable;
// call New.
type Table[B any] struct {
	what string // "map kind", "group kind": names entries in messages
	mu   sync.RWMutex
	m    map[string]B
}

// New returns an empty table whose messages call an entry what (e.g.
// "features: map kind").
func New[B any](what string) *Table[B] {
	return &Table[B]{what: what, m: map[string]B{}}
}

// Register adds kind. Registering a kind twice panics: it is a programming
// error, found the first time the program starts.
func (t *Table[B]) Register(kind string, b B) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if _, dup := t.m[kind]; dup {
		panic(t.what + " registered twice: " + kind)
	}
	t.m[kind] = b
}

// Kinds lists the registered kinds in sorted order.
func (t *Table[B]) Kinds() []string {
	t.mu.RLock()
	defer t.mu.RUnlock()
	ks := make([]string, 0, len(t.m))
	for k := range t.m {
		ks = append(ks, k)
	}
	sort.Strings(ks)
	return ks
}

// Lookup returns kind's builder, or an error listing the known kinds.
func (t *Table[B]) Lookup(kind string) (B, error) {
	t.mu.RLock()
	b, ok := t.m[kind]
	t.mu.RUnlock()
	if !ok {
		var zero B
		return zero, fmt.Errorf("%s %q is unknown (known: %v)", t.what, kind, t.Kinds())
	}
	return b, nil
}

// Marshal encodes parameters. Parameter structs are plain data, so a failure
// is a programming error and panics.
func Marshal(p any) json.RawMessage {
	b, err := json.Marshal(p)
	if err != nil {
		panic(fmt.Sprintf("registry: parameters %T do not encode: %v", p, err))
	}
	return b
}

// UnmarshalStrict decodes parameters, refusing unknown fields and trailing
// data: a file written by a newer version is refused, not misread. Empty
// data leaves p unchanged (every field at its default).
func UnmarshalStrict(data []byte, p any) error {
	if len(data) == 0 {
		return nil
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(p); err != nil {
		return err
	}
	if dec.More() {
		return fmt.Errorf("trailing data after the parameters")
	}
	return nil
}
