package store

import (
	"fmt"
	"io/fs"
	"path"
	"sort"
	"strconv"
	"strings"
)

// Concern is one concern's migrations, in version order.
type Concern struct {
	Name  string
	Steps []Migration
}

// Migration is one numbered SQL file.
type Migration struct {
	Version int
	SQL     string
}

// Migrations reads migrations/<concern>/NNN_*.sql from fsys, concerns in
// name order. A file not named that way is an error, so a typo never
// leaves a migration silently unapplied.
func Migrations(fsys fs.FS) ([]Concern, error) {
	dirs, err := fs.ReadDir(fsys, "migrations")
	if err != nil {
		return nil, fmt.Errorf("store: migrations: %w", err)
	}
	var out []Concern
	for _, dir := range dirs {
		if !dir.IsDir() {
			continue
		}
		files, err := fs.ReadDir(fsys, path.Join("migrations", dir.Name()))
		if err != nil {
			return nil, fmt.Errorf("store: migrations: %w", err)
		}
		c := Concern{Name: dir.Name()}
		for _, f := range files {
			num, _, ok := strings.Cut(f.Name(), "_")
			v, err := strconv.Atoi(num)
			if !ok || err != nil || !strings.HasSuffix(f.Name(), ".sql") || v <= 0 {
				return nil, fmt.Errorf("store: migrations: %s/%s is not named NNN_what.sql", dir.Name(), f.Name())
			}
			b, err := fs.ReadFile(fsys, path.Join("migrations", dir.Name(), f.Name()))
			if err != nil {
				return nil, fmt.Errorf("store: migrations: %w", err)
			}
			c.Steps = append(c.Steps, Migration{Version: v, SQL: string(b)})
		}
		sort.Slice(c.Steps, func(i, j int) bool { return c.Steps[i].Version < c.Steps[j].Version })
		for i := 1; i < len(c.Steps); i++ {
			if c.Steps[i].Version == c.Steps[i-1].Version {
				return nil, fmt.Errorf("store: migrations: %s has two migrations numbered %d", c.Name, c.Steps[i].Version)
			}
		}
		out = append(out, c)
	}
	return out, nil
}
