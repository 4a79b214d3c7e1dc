package main

import (
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
)

var (
	headerFunc = regexp.MustCompile(`(?m)^[a-z][a-z_ ]*[ *](sw_\w+)\(`)
	cFunc      = regexp.MustCompile(`(?m)^[a-z][a-z_ ]*[ *](sw_\w+)\([^)]*\)?[^{]*\{\n(.*)`)
	goExport   = regexp.MustCompile(`(?m)^//export (\w+)$`)
)

// Every function of starweaver.h is a C function of forkguard.c that
// checks for a forked child first, and every Go export is reached only
// through one: a new export without its guard would hang forked children.
func TestEveryExportIsForkGuarded(t *testing.T) {
	header := read(t, "starweaver.h")
	var declared []string
	for _, m := range headerFunc.FindAllStringSubmatch(header, -1) {
		declared = append(declared, m[1])
	}
	if len(declared) < 10 {
		t.Fatalf("found only %v in starweaver.h", declared)
	}

	guarded := map[string]string{}
	for _, m := range cFunc.FindAllStringSubmatch(read(t, "forkguard.c"), -1) {
		guarded[m[1]] = strings.TrimSpace(m[2])
	}
	for _, name := range declared {
		first, ok := guarded[name]
		switch {
		case !ok:
			t.Errorf("%s is declared in starweaver.h but not defined in forkguard.c", name)
		case name == "sw_free":
			if !strings.HasPrefix(first, "free(") {
				t.Errorf("sw_free must stay plain free(): %q", first)
			}
		case !strings.HasPrefix(first, "if (sw_forked)"):
			t.Errorf("%s does not check for a forked child first: %q", name, first)
		}
	}

	files, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range files {
		for _, m := range goExport.FindAllStringSubmatch(read(t, f), -1) {
			name, ok := strings.CutPrefix(m[1], "swgo_")
			if !ok {
				t.Errorf("%s: export %s bypasses the fork guard; name it swgo_* and add its sw_* wrapper to forkguard.c", f, m[1])
				continue
			}
			if !slices.Contains(declared, "sw_"+name) {
				t.Errorf("%s: export %s has no sw_%s in starweaver.h", f, m[1], name)
			}
		}
	}
}

func read(t *testing.T, name string) string {
	t.Helper()
	b, err := os.ReadFile(name)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}
