package store_test

import (
	"strings"
	"testing"
	"testing/fstest"

	"github.com/starweaver-go/starweaver/core/store"
)

func TestMigrationsOrderAndNames(t *testing.T) {
	fsys := fstest.MapFS{
		"migrations/README":            {Data: []byte("x")},
		"migrations/b/002_more.sql":    {Data: []byte("two")},
		"migrations/b/001_init.sql":    {Data: []byte("one")},
		"migrations/a/001_init.sql":    {Data: []byte("a1")},
		"migrations/a/010_later.sql":   {Data: []byte("a10")},
		"migrations/a/002_earlier.sql": {Data: []byte("a2")},
	}
	got, err := store.Migrations(fsys)
	if err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	for _, c := range got {
		for _, m := range c.Steps {
			b.WriteString(c.Name + ":" + m.SQL + " ")
		}
	}
	if want := "a:a1 a:a2 a:a10 b:one b:two "; b.String() != want {
		t.Fatalf("order = %q, want %q", b.String(), want)
	}
}

func TestMigrationsRejectBadNames(t *testing.T) {
	for _, name := range []string{"init.sql", "001_init.txt", "000_zero.sql", "x_init.sql"} {
		_, err := store.Migrations(fstest.MapFS{"migrations/a/" + name: {Data: []byte("x")}})
		if err == nil {
			t.Errorf("%s: want an error", name)
		}
	}
	_, err := store.Migrations(fstest.MapFS{
		"migrations/a/001_x.sql": {Data: []byte("x")},
		"migrations/a/1_y.sql":   {Data: []byte("y")},
	})
	if err == nil {
		t.Error("two migrations numbered 1: want an error")
	}
}
