package catalog

import "strings"

var (
	textEscaper = strings.NewReplacer("&", "&amp;", "<", "&lt;", ">", "&gt;")
	attrEscaper = strings.NewReplacer("&", "&amp;", "<", "&lt;", ">", "&gt;", `"`, "&quot;", "'", "&apos;")
)

// xmlText escapes text content: & < >.
func xmlText(s string) string { return textEscaper.Replace(s) }

// xmlAttr escapes an attribute value: & < > " '.
func xmlAttr(s string) string { return attrEscaper.Replace(s) }
