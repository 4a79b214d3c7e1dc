package docs

import (
	"bufio"
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// The layering rules are written once, as the table in contributing.md
// ("The layers"); this test reads that table and checks every import
// between this module's packages against it, so a new import that runs up
// (or a package the table does not place) fails `make test`.

const module = "github.com/starweaver-go/starweaver/"

// layer is one row of the table: the packages it holds (a pattern ending in
// "/..." also holds the packages below it) and what they may import: other
// layers by name, or single packages of a layer they may not otherwise use.
type layer struct {
	name     string
	order    int
	packages []string
	mayUse   []string
}

func (l layer) holds(pkg string) bool {
	for _, p := range l.packages {
		if base, ok := strings.CutSuffix(p, "/..."); ok {
			if pkg == base || strings.HasPrefix(pkg, base+"/") {
				return true
			}
		} else if pkg == p {
			return true
		}
	}
	return false
}

// parseLayers reads the first Markdown table under the "## The layers"
// heading: | layer | packages | may import |, each cell a list of
// `code` spans ("—" for none).
func parseLayers(doc []byte) ([]layer, error) {
	var layers []layer
	in, table := false, false
	sc := bufio.NewScanner(bytes.NewReader(doc))
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		switch {
		case strings.HasPrefix(line, "## "):
			if table {
				return layers, nil
			}
			in = line == "## The layers"
		case in && strings.HasPrefix(line, "|"):
			cells := strings.Split(strings.Trim(line, "|"), "|")
			if len(cells) != 3 {
				return nil, fmt.Errorf("table row %q: want 3 cells", line)
			}
			name := strings.TrimSpace(cells[0])
			if name == "layer" || strings.HasPrefix(name, "---") {
				continue
			}
			table = true
			layers = append(layers, layer{
				name:     strings.Trim(name, "*`"),
				order:    len(layers),
				packages: codeSpans(cells[1]),
				mayUse:   codeSpans(cells[2]),
			})
		case table && line == "":
			return layers, nil
		}
	}
	if !table {
		return nil, fmt.Errorf(`no table under "## The layers"`)
	}
	return layers, sc.Err()
}

func codeSpans(cell string) []string {
	var out []string
	parts := strings.Split(cell, "`")
	for i := 1; i < len(parts); i += 2 {
		out = append(out, parts[i])
	}
	return out
}

// imports lists this module's non-test packages with the packages of this
// module each imports (test files may import anything: they are not part
// of what a user links).
func imports(t *testing.T) map[string][]string {
	t.Helper()
	cmd := exec.Command("go", "list", "-f", `{{.ImportPath}}{{range .Imports}} {{.}}{{end}}`, "./...")
	cmd.Dir = ".."
	cmd.Env = append(os.Environ(), "CGO_ENABLED=1")
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("go list: %v\n%s", err, stderr.String())
	}
	graph := map[string][]string{}
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		fields := strings.Fields(line)
		pkg, ok := strings.CutPrefix(fields[0], module)
		if !ok {
			if fields[0] == strings.TrimSuffix(module, "/") {
				continue
			}
			t.Fatalf("go list printed a package outside the module: %s", fields[0])
		}
		graph[pkg] = []string{}
		for _, imp := range fields[1:] {
			if rel, ok := strings.CutPrefix(imp, module); ok {
				graph[pkg] = append(graph[pkg], rel)
			}
		}
	}
	return graph
}

func TestImportsFollowTheLayers(t *testing.T) {
	doc, err := os.ReadFile("contributing.md")
	if err != nil {
		t.Fatal(err)
	}
	layers, err := parseLayers(doc)
	if err != nil {
		t.Fatalf("contributing.md: %v", err)
	}
	byName := map[string]layer{}
	for _, l := range layers {
		byName[l.name] = l
	}
	layerOf := func(pkg string) (layer, bool) {
		for _, l := range layers {
			if l.holds(pkg) {
				return l, true
			}
		}
		return layer{}, false
	}
	allowed := func(from layer, to string, toLayer layer) bool {
		if from.name == toLayer.name {
			return true
		}
		for _, u := range from.mayUse {
			if u == to || u == toLayer.name {
				return true
			}
			if base, ok := strings.CutSuffix(u, "/..."); ok && (to == base || strings.HasPrefix(to, base+"/")) {
				return true
			}
		}
		return false
	}
	graph := imports(t)
	pkgs := make([]string, 0, len(graph))
	for p := range graph {
		pkgs = append(pkgs, p)
	}
	slices.Sort(pkgs)
	for _, pkg := range pkgs {
		from, ok := layerOf(pkg)
		if !ok {
			t.Errorf("%s is in no layer: add it to the table in docs/contributing.md", pkg)
			continue
		}
		for _, imp := range graph[pkg] {
			to, ok := layerOf(imp)
			if !ok {
				continue // reported as its own package
			}
			if !allowed(from, imp, to) {
				t.Errorf("%s (%s) imports %s (%s): the table in docs/contributing.md does not allow it", pkg, from.name, imp, to.name)
			}
		}
	}
	// A row that allows a higher row would let an arrow run up: the table
	// itself must point down only.
	for _, l := range layers {
		for _, u := range l.mayUse {
			target, ok := byName[u]
			if !ok {
				target, ok = layerOf(u)
			}
			if !ok {
				t.Errorf("layer %s may import %q, which the table does not name", l.name, u)
				continue
			}
			if target.order >= l.order {
				t.Errorf("layer %s may import %s, which is not below it", l.name, u)
			}
		}
	}
	if t.Failed() {
		t.Logf("layers read from contributing.md: %d; packages: %d", len(layers), len(pkgs))
	}
}

// The parser is what keeps the table honest; a table it misreads would pass
// everything.
func TestParseLayersReadsTheTable(t *testing.T) {
	doc := []byte("# x\n\n## The layers\n\ntext\n\n| layer | packages | may import |\n|---|---|---|\n" +
		"| base | `a/internal/...`, `a/ctx` | — |\n| top | `a/top` | `base`, `a/x` |\n\n| other | `b` | — |\n## Next\n")
	got, err := parseLayers(doc)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 2 || got[0].name != "base" || got[1].name != "top" {
		t.Fatalf("layers = %+v", got)
	}
	if !got[0].holds("a/internal/x/y") || !got[0].holds("a/internal") || got[0].holds("a/internals") || !got[0].holds("a/ctx") {
		t.Errorf("base holds the wrong packages: %+v", got[0])
	}
	if len(got[0].mayUse) != 0 || !slices.Equal(got[1].mayUse, []string{"base", "a/x"}) {
		t.Errorf("mayUse = %v, %v", got[0].mayUse, got[1].mayUse)
	}
	if _, err := parseLayers([]byte("## The layers\nno table\n")); err == nil {
		t.Error("a missing table parsed")
	}
}

// TestReadmeIndexesEveryDoc keeps README's documentation index complete: a
// page nobody links is a page nobody finds.
func TestReadmeIndexesEveryDoc(t *testing.T) {
	readme, err := os.ReadFile("../README.md")
	if err != nil {
		t.Fatal(err)
	}
	pages, err := filepath.Glob("*.md")
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range pages {
		if !bytes.Contains(readme, []byte("(docs/"+p+")")) {
			t.Errorf("README.md's documentation index does not link docs/%s", p)
		}
	}
}

// TestPackageMapNamesEveryPackage keeps contributing.md's package map (how
// a newcomer finds where a behaviour lives) and README's layout naming
// every package of the module.
func TestPackageMapNamesEveryPackage(t *testing.T) {
	doc, err := os.ReadFile("contributing.md")
	if err != nil {
		t.Fatal(err)
	}
	readme, err := os.ReadFile("../README.md")
	if err != nil {
		t.Fatal(err)
	}
	_, packageMap, ok := bytes.Cut(doc, []byte("## The package map"))
	if !ok {
		t.Fatal(`contributing.md has no "## The package map"`)
	}
	packageMap, _, _ = bytes.Cut(packageMap, []byte("\n## "))
	for pkg := range imports(t) {
		if pkg == "docs" {
			continue
		}
		name := []byte("`" + pkg + "`")
		if !bytes.Contains(packageMap, name) {
			t.Errorf("contributing.md's package map does not name %s", name)
		}
		if !bytes.Contains(readme, name) {
			t.Errorf("README.md's layout does not name %s", name)
		}
	}
}

// TestOutsideImportsAreListed checks every import from outside the module
// and the standard library against contributing.md's "Outside
// dependencies" table: | module | why | imported by |.
func TestOutsideImportsAreListed(t *testing.T) {
	doc, err := os.ReadFile("contributing.md")
	if err != nil {
		t.Fatal(err)
	}
	_, section, ok := bytes.Cut(doc, []byte("## Outside dependencies"))
	if !ok {
		t.Fatal(`contributing.md has no "## Outside dependencies"`)
	}
	section, _, _ = bytes.Cut(section, []byte("\n## "))
	users := map[string][]string{} // module -> package patterns
	for _, line := range strings.Split(string(section), "\n") {
		line = strings.TrimSpace(line)
		if !strings.HasPrefix(line, "|") {
			continue
		}
		cells := strings.Split(strings.Trim(line, "|"), "|")
		if len(cells) != 3 {
			t.Errorf("outside dependencies table: row %q has %d cells, want 3", line, len(cells))
			continue
		}
		mods := codeSpans(cells[0])
		if len(mods) != 1 {
			continue // the header and its rule
		}
		users[mods[0]] = codeSpans(cells[2])
	}
	if len(users) == 0 {
		t.Fatal("the outside dependencies table is empty")
	}
	cmd := exec.Command("go", "list", "-f", `{{$p := .ImportPath}}{{range .Imports}}{{$p}} {{.}}{{"\n"}}{{end}}`, "./...")
	cmd.Dir = ".."
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	holds := func(pattern, pkg string) bool {
		if base, ok := strings.CutSuffix(pattern, "/..."); ok {
			return pkg == base || strings.HasPrefix(pkg, base+"/")
		}
		return pkg == pattern
	}
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		pkg, imp, _ := strings.Cut(line, " ")
		pkg = strings.TrimPrefix(pkg, module)
		first, _, _ := strings.Cut(imp, "/")
		if !strings.Contains(first, ".") || strings.HasPrefix(imp, module) {
			continue // the standard library, or ours
		}
		mod := ""
		for m := range users {
			if (imp == m || strings.HasPrefix(imp, m+"/")) && len(m) > len(mod) {
				mod = m
			}
		}
		if mod == "" {
			t.Errorf("%s imports %s, from a module the outside dependencies table in docs/contributing.md does not name", pkg, imp)
			continue
		}
		if !slices.ContainsFunc(users[mod], func(p string) bool { return holds(p, pkg) }) {
			t.Errorf("%s imports %s; the table in docs/contributing.md lets only %v use %s", pkg, imp, users[mod], mod)
		}
	}
}
