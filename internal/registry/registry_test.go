package registry

import (
	"strings"
	"testing"
)

func TestTable(t *testing.T) {
	tab := New[func() int]("test kind")
	tab.Register("b", func() int { return 2 })
	tab.Register("a", func() int { return 1 })
	if got := strings.Join(tab.Kinds(), ","); got != "a,b" {
		t.Fatalf("Kinds = %s, want a,b", got)
	}
	f, err := tab.Lookup("b")
	if err != nil || f() != 2 {
		t.Fatalf("Lookup(b) failed: %v", err)
	}
	if _, err := tab.Lookup("c"); err == nil || !strings.Contains(err.Error(), `test kind "c" is unknown (known: [a b])`) {
		t.Fatalf("Lookup(c) error = %v", err)
	}
	defer func() {
		if recover() == nil {
			t.Fatal("registering a kind twice did not panic")
		}
	}()
	tab.Register("a", func() int { return 3 })
}

func TestUnmarshalStrict(t *testing.T) {
	type params struct{ M, Q int }
	p := params{M: 7}
	if err := UnmarshalStrict(nil, &p); err != nil || p.M != 7 {
		t.Fatalf("empty data: %v, %+v", err, p)
	}
	if err := UnmarshalStrict(Marshal(params{M: 3, Q: 4}), &p); err != nil || p != (params{3, 4}) {
		t.Fatalf("round trip: %v, %+v", err, p)
	}
	for _, bad := range []string{`{"M":1,"X":2}`, `{"M":1} {"Q":2}`, `{"M":"one"}`, `{`} {
		if err := UnmarshalStrict([]byte(bad), &p); err == nil {
			t.Errorf("UnmarshalStrict(%s) accepted bad parameters", bad)
		}
	}
}
