package toolsearch

import (
	"math"
	"sort"
	"strings"
	"sync"
)

// Entry is one searchable item: a tool, or a namespace (a toolset id)
// standing for all of its tools.
type Entry struct {
	// Name is the tool's name, or the namespace's id.
	Name string
	// Namespace is the toolset id the tool belongs to ("" for a loose
	// tool); a namespace entry's is its own id.
	Namespace string
	// Description is the tool's description, or the namespace's.
	Description string
	// Parameters is the tool's JSON Schema; the names of its top-level
	// properties are searched.
	Parameters map[string]any
	// IsNamespace marks a namespace entry.
	IsNamespace bool
}

// Hit is one search result.
type Hit struct {
	Entry
	// Score is the entry's relevance; only its order is meaningful.
	Score float64
}

// Field weights and match qualities (see the package comment).
const (
	fieldName = iota
	fieldNamespace
	fieldDescription
	fieldParameters
	numFields
)

var fieldWeight = [numFields]float64{8, 4, 2, 1}

const (
	qualityWord      = 1.0
	qualityPrefix    = 0.5
	qualitySubstring = 0.25
	// minPartial is the shortest term matched as a prefix or substring:
	// shorter ones match nearly everything.
	minPartial = 3
)

type posting struct {
	entry int32
	field uint8
}

// Index is a ranked keyword index over entries. Build it with New; the
// zero value is an empty index.
type Index struct {
	entries []Entry
	// vocab lists the distinct tokens; postings[i] the (entry, field)
	// pairs that contain vocab[i], each once; idf[i] its rarity weight.
	vocab    []string
	byToken  map[string]int32
	postings [][]posting
	idf      []float64
	pool     sync.Pool
}

// New indexes entries. The entries are kept (not copied deeply); they
// must not be changed afterwards.
func New(entries []Entry) *Index {
	ix := &Index{entries: entries, byToken: map[string]int32{}}
	add := func(e int, field uint8, text string) {
		for _, tok := range Tokens(text) {
			id, ok := ix.byToken[tok]
			if !ok {
				id = int32(len(ix.vocab))
				ix.byToken[tok] = id
				ix.vocab = append(ix.vocab, tok)
				ix.postings = append(ix.postings, nil)
			}
			ix.postings[id] = appendOnce(ix.postings[id], posting{entry: int32(e), field: field})
		}
	}
	for i, e := range entries {
		// A namespace entry's id is both its name and its namespace, so
		// a query naming the namespace ranks it above each of its tools.
		add(i, fieldName, e.Name)
		add(i, fieldNamespace, e.Namespace)
		add(i, fieldDescription, e.Description)
		for _, p := range propertyNames(e.Parameters) {
			add(i, fieldParameters, p)
		}
	}
	n := float64(len(entries))
	ix.idf = make([]float64, len(ix.vocab))
	for id, ps := range ix.postings {
		// Postings are in entry order, so an entry's are adjacent.
		df := 0
		for i := range ps {
			if i == 0 || ps[i].entry != ps[i-1].entry {
				df++
			}
		}
		ix.idf[id] = math.Log(1 + n/float64(df))
	}
	return ix
}

// appendOnce appends p unless it is already there; entries are indexed
// in order, so an entry's postings are at the end.
func appendOnce(ps []posting, p posting) []posting {
	for i := len(ps) - 1; i >= 0 && ps[i].entry == p.entry; i-- {
		if ps[i] == p {
			return ps
		}
	}
	return append(ps, p)
}

// propertyNames returns the names of a JSON Schema's top-level properties.
func propertyNames(schema map[string]any) []string {
	props, _ := schema["properties"].(map[string]any)
	names := make([]string, 0, len(props))
	for k := range props {
		names = append(names, k)
	}
	sort.Strings(names)
	return names
}

// Len returns the number of entries.
func (ix *Index) Len() int {
	if ix == nil {
		return 0
	}
	return len(ix.entries)
}

// Search returns the entries matching query, best first, at most limit
// of them (all when limit <= 0). Entries that match no term are left out;
// a query without words matches nothing.
func (ix *Index) Search(query string, limit int) []Hit {
	if ix.Len() == 0 {
		return nil
	}
	terms := queryTerms(query)
	if len(terms) == 0 {
		return nil
	}
	sc := ix.scratch(len(ix.entries))
	defer ix.pool.Put(sc)
	score, matched, best := sc.score, sc.matched, sc.best
	touched := sc.touched[:0]
	defer func() { sc.touched = touched[:0] }()
	for _, term := range terms {
		touched = touched[:0]
		// A partial match never says more than a whole-word match of the
		// term would: its rarity is capped by the term's own.
		maxIDF := math.Inf(1)
		visit := func(id int32, quality float64) {
			w := quality * min(ix.idf[id], maxIDF)
			for _, p := range ix.postings[id] {
				k := int(p.entry)*numFields + int(p.field)
				v := w * fieldWeight[p.field]
				if best[k] == 0 {
					touched = append(touched, int32(k))
				}
				if v > best[k] {
					best[k] = v
				}
			}
		}
		if id, ok := ix.byToken[term]; ok {
			visit(id, qualityWord)
			maxIDF = ix.idf[id]
		}
		if len(term) >= minPartial {
			for id, tok := range ix.vocab {
				if len(tok) <= len(term) {
					continue
				}
				switch {
				case strings.HasPrefix(tok, term):
					visit(int32(id), qualityPrefix)
				case strings.Contains(tok, term):
					visit(int32(id), qualitySubstring)
				}
			}
		}
		lastEntry := int32(-1)
		sort.Slice(touched, func(a, b int) bool { return touched[a] < touched[b] })
		for _, k := range touched {
			e := k / numFields
			score[e] += best[k]
			best[k] = 0
			if e != lastEntry {
				matched[e]++
				lastEntry = e
			}
		}
	}
	var hits []Hit
	full := float64(len(terms))
	for i, s := range score {
		if s == 0 {
			continue
		}
		// Coverage counts squared: an entry matching both terms of two
		// outranks one matching one of them unless its weights are four
		// times lower.
		cov := float64(matched[i]) / full
		h := Hit{Entry: ix.entries[i], Score: s * cov * cov}
		if limit <= 0 {
			hits = append(hits, h)
			continue
		}
		// Keep the best limit hits by insertion: limit is small, and a
		// full sort of every match would cost more than the scoring.
		if len(hits) == limit && !less(h, hits[limit-1]) {
			continue
		}
		j := len(hits)
		if j < limit {
			hits = append(hits, h)
		} else {
			j--
		}
		for ; j > 0 && less(h, hits[j-1]); j-- {
			hits[j] = hits[j-1]
		}
		hits[j] = h
	}
	if limit <= 0 {
		sort.Slice(hits, func(a, b int) bool { return less(hits[a], hits[b]) })
	}
	clear(score)
	clear(matched)
	return hits
}

// scratch is the per-query working memory, pooled: a query over a large
// catalogue would otherwise allocate tens of kilobytes. best is left
// zeroed by every query (each term clears what it touched); score and
// matched are cleared at its end.
type scratch struct {
	score   []float64
	matched []uint16
	// best holds, for the current term, each (entry, field)'s best match.
	best    []float64
	touched []int32
}

func (ix *Index) scratch(n int) *scratch {
	if sc, ok := ix.pool.Get().(*scratch); ok {
		return sc
	}
	return &scratch{score: make([]float64, n), matched: make([]uint16, n), best: make([]float64, n*numFields), touched: make([]int32, 0, 64)}
}

func less(a, b Hit) bool {
	if a.Score != b.Score {
		return a.Score > b.Score
	}
	if a.Name != b.Name {
		return a.Name < b.Name
	}
	return !a.IsNamespace && b.IsNamespace
}

// queryTerms tokenises a query, drops stop words unless nothing else is
// left, and keeps each term once.
func queryTerms(q string) []string {
	all := Tokens(q)
	var terms []string
	for _, t := range all {
		if !stopWords[t] && !contains(terms, t) {
			terms = append(terms, t)
		}
	}
	if len(terms) == 0 {
		for _, t := range all {
			if !contains(terms, t) {
				terms = append(terms, t)
			}
		}
	}
	return terms
}

func contains(s []string, v string) bool {
	for _, x := range s {
		if x == v {
			return true
		}
	}
	return false
}
