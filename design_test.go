package rfstream_test

import (
	"bufio"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
)

const module = "github.com/rfstream/rfstream"

// designRules reads docs/design.md's table: for each package (its path in
// the module, "" for the root), the packages of the module it may import.
// A row "experiments/..." covers every package under experiments/; its
// cell "anything but `X`" allows every package but X.
func designRules(t *testing.T) (rules map[string][]string, anythingBut map[string]string) {
	t.Helper()
	f, err := os.Open("docs/design.md")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	rules, anythingBut = map[string][]string{}, map[string]string{}
	tick := regexp.MustCompile("`([^`]*)`")
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := sc.Text()
		if !strings.HasPrefix(line, "| `") {
			continue
		}
		cells := strings.Split(strings.Trim(line, "|"), "|")
		if len(cells) != 3 {
			t.Fatalf("docs/design.md: a row of %d cells: %s", len(cells), line)
		}
		var allowed []string
		for _, m := range tick.FindAllStringSubmatch(cells[2], -1) {
			allowed = append(allowed, pathOf(m[1]))
		}
		but := strings.HasPrefix(strings.TrimSpace(cells[2]), "anything but")
		for _, m := range tick.FindAllStringSubmatch(cells[0], -1) {
			pkg := pathOf(m[1])
			if _, dup := rules[pkg]; dup {
				t.Fatalf("docs/design.md: %q has two rows", pkg)
			}
			rules[pkg] = allowed
			if but {
				anythingBut[pkg] = allowed[0]
				rules[pkg] = nil
			}
		}
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return rules, anythingBut
}

// pathOf is a package's path in the module as the table writes it:
// "rfstream" is the root (""), a trailing slash is dropped.
func pathOf(name string) string {
	if name == "rfstream" {
		return ""
	}
	return strings.TrimSuffix(name, "/")
}

// ruleFor finds the row that governs pkg.
func ruleFor(rules map[string][]string, pkg string) (string, bool) {
	if _, ok := rules[pkg]; ok {
		return pkg, true
	}
	for row := range rules {
		if prefix, ok := strings.CutSuffix(row, "/..."); ok && (pkg == prefix || strings.HasPrefix(pkg, prefix+"/")) {
			return row, true
		}
	}
	return "", false
}

// productImports lists, for every package directory of the module, the
// module's packages and the NATS packages its non-test Go files import.
func productImports(t *testing.T) map[string][]string {
	t.Helper()
	imports := map[string][]string{}
	err := filepath.WalkDir(".", func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if name := d.Name(); path != "." && (strings.HasPrefix(name, ".") || name == "testdata" || name == "node_modules" || name == "data") {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return nil
		}
		f, err := parser.ParseFile(token.NewFileSet(), path, nil, parser.ImportsOnly)
		if err != nil {
			return err
		}
		pkg := filepath.ToSlash(filepath.Dir(path))
		if pkg == "." {
			pkg = ""
		}
		if _, ok := imports[pkg]; !ok {
			imports[pkg] = nil
		}
		for _, spec := range f.Imports {
			p, _ := strconv.Unquote(spec.Path.Value)
			switch {
			case p == module:
				p = ""
			case strings.HasPrefix(p, module+"/"):
				p = strings.TrimPrefix(p, module+"/")
			case strings.HasPrefix(p, "github.com/nats-io/"):
			default:
				continue
			}
			if !slices.Contains(imports[pkg], p) {
				imports[pkg] = append(imports[pkg], p)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return imports
}

// Every package imports only what docs/design.md's table allows it, every
// package has a row, and the core packages never import NATS.
func TestImportsFollowTheDesign(t *testing.T) {
	rules, anythingBut := designRules(t)
	core := []string{"", "engine", "frontend", "transforms", "features", "features/elss", "maxout", "invariant", "classifier", "decode"}
	for pkg, imps := range productImports(t) {
		name := pkg
		if name == "" {
			name = "rfstream (root)"
		}
		row, ok := ruleFor(rules, pkg)
		if !ok {
			t.Errorf("package %s has no row in docs/design.md's table", name)
			continue
		}
		for _, imp := range imps {
			if strings.HasPrefix(imp, "github.com/nats-io/") {
				if slices.Contains(core, pkg) {
					t.Errorf("core package %s imports %s", name, imp)
				}
				continue
			}
			if imp == pkg {
				continue
			}
			if forbidden, ok := anythingBut[row]; ok {
				if imp == forbidden {
					t.Errorf("%s imports %q, which docs/design.md forbids it", name, imp)
				}
				continue
			}
			if imp == "experiments" || strings.HasPrefix(imp, "experiments/") {
				if _, lab := anythingBut[row]; !lab {
					t.Errorf("%s, a product package, imports the laboratory (%s)", name, imp)
				}
				continue
			}
			if !slices.Contains(rules[row], imp) {
				t.Errorf("%s imports %q, which docs/design.md's table does not allow it", name, imp)
			}
		}
	}
}

// The rules are read as meant: a table that allows too little is caught.
func TestDesignRulesCatchAForbiddenImport(t *testing.T) {
	rules, _ := designRules(t)
	if row, ok := ruleFor(rules, "frontend"); !ok || len(rules[row]) != 0 {
		t.Fatalf("frontend's row %q allows %v; the table says it imports nothing of ours", row, rules[row])
	}
	if row, ok := ruleFor(rules, "experiments/probes/oh"); !ok || row != "experiments/..." {
		t.Fatalf("experiments/probes/oh is governed by row %q", row)
	}
	if !slices.Contains(rules["engine"], "decode") || slices.Contains(rules["engine"], "train") {
		t.Fatalf("engine may import %v", rules["engine"])
	}
}

// A program that imports only the public package links neither training
// nor the corpora and their tools: its default models are the shipped
// ones.
func TestPublicPackageLinksNoTraining(t *testing.T) {
	imports := productImports(t)
	seen := map[string]bool{}
	var walk func(pkg string)
	walk = func(pkg string) {
		if seen[pkg] {
			return
		}
		seen[pkg] = true
		for _, imp := range imports[pkg] {
			if !strings.HasPrefix(imp, "github.com/") {
				walk(imp)
			}
		}
	}
	walk("")
	for _, heavy := range []string{"train", "datasets", "augment", "internal/sox", "internal/recipes", "streaming"} {
		if seen[heavy] {
			t.Errorf("the public package links %s", heavy)
		}
	}
	if !seen["engine"] || !seen["internal/shipped"] {
		t.Fatalf("the walk missed what the public package does link: %v", seen)
	}
}
