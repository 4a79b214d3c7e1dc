// Package toolsearch provides a ranked keyword index over tool
// definitions: the search behind a catalogue of tools too large to list to
// a model (core/catalog's tool_search and search_tools).
//
// It is related to an inverted index the way a search engine builds one:
// each entry (a tool, or a namespace standing for all its tools) is split
// into tokens per field (name, namespace, description, parameter names),
// snake_case, kebab-case and camelCase names split into words, words
// lowercased and reduced to a simple singular. A query is tokenised the
// same way and each term scores the entries whose tokens it matches:
//
//   - by field: name > namespace > description > parameters (8, 4, 2, 1);
//   - by match: a whole word (1) > a word prefix (0.5) > a substring
//     (0.25);
//   - by rarity: a term that matches few entries counts more (an inverse
//     document frequency), so "create" in a catalogue of create_* tools
//     says little and "invoice" much;
//   - by coverage: an entry matching more of the query's terms ranks
//     above one matching fewer, whatever their weights.
//
// Ties break on the name, then on the kind (tools before namespaces), so
// results are deterministic. The reference's substring score (name +3,
// description +2, namespace +2, parameters +1) ranks "list" above
// "listen" only by accident and counts "create" in every create_* tool;
// this ranking fixes both.
//
// An [Index] is immutable once built and safe for concurrent use; build a
// new one when the inventory changes.
package toolsearch
