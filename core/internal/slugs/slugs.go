// Package slugs names a package's sentinel errors with stable slugs for
// hosts: a Table pairs each sentinel with its slug, most specific first.
package slugs

import "errors"

// Entry pairs a sentinel with its slug.
type Entry struct {
	Err  error
	Slug string
}

// Table is a package's list of sentinels and their slugs, most specific
// first: Of returns the first match.
type Table []Entry

// Of returns the slug of the first sentinel err matches, or "".
func (t Table) Of(err error) string {
	for _, e := range t {
		if errors.Is(err, e.Err) {
			return e.Slug
		}
	}
	return ""
}

// List returns every slug, in order; the caller owns the slice.
func (t Table) List() []string {
	out := make([]string, len(t))
	for i, e := range t {
		out[i] = e.Slug
	}
	return out
}
