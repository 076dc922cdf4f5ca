package sanitize

import (
	"strings"
	"unicode/utf8"

	"golang.org/x/net/html"
	"golang.org/x/net/html/atom"
)

// Cut bounds a sanitized HTML description: at most maxText characters of
// text and maxHTML characters in all, markup included. Elements are kept
// in document order while they fit; the text that does not is cut at a
// space when one is near, and an ellipsis marks the cut; every element
// still open is closed. The result is well-formed HTML holding only
// elements and attributes of the description, so a sanitized description
// stays sanitized. A description within both bounds is returned as it is.
func Cut(s string, maxText, maxHTML int) string {
	if len(s) <= maxHTML && (len(s) <= maxText || utf8.RuneCountInString(Text(s)) <= maxText) {
		return s
	}
	if !strings.Contains(s, "<") && !strings.Contains(s, "&") {
		return cutText(s, min(maxText, maxHTML))
	}
	// Only a prefix is parsed, twice the characters kept: what fits is in
	// it, since HTML as x/net/html writes it is about as long as the
	// sanitizer's. Cut inside a tag, the parser drops the tag.
	n := 0
	for i := range s {
		if n == 2*maxHTML {
			s = s[:i]
			break
		}
		n++
	}
	nodes, err := html.ParseFragment(strings.NewReader(s), &html.Node{Type: html.ElementNode, Data: "body", DataAtom: atom.Body})
	if err != nil {
		return ""
	}
	c := &cutter{text: maxText - 1, all: maxHTML - 1} // room for the ellipsis
	var b strings.Builder
	for _, n := range nodes {
		kept, whole := c.copy(n)
		if kept != nil {
			html.Render(&b, kept)
		}
		if !whole {
			break
		}
	}
	if !c.marked {
		b.WriteString("…")
	}
	return b.String()
}

// cutter copies nodes while they fit in what is left of both bounds.
type cutter struct {
	text, all int
	marked    bool // the ellipsis is written
}

// copy returns the part of n that fits, nil when none does, and whether
// all of it did.
func (c *cutter) copy(n *html.Node) (*html.Node, bool) {
	switch n.Type {
	case html.TextNode:
		cost := rendered(n)
		if chars := utf8.RuneCountInString(n.Data); chars <= c.text && cost <= c.all {
			c.text, c.all = c.text-chars, c.all-cost
			return &html.Node{Type: html.TextNode, Data: n.Data}, true
		}
		// The most of its text that fits, escaped, in both bounds.
		var b strings.Builder
		chars := 0
		for _, r := range n.Data {
			e := html.EscapeString(string(r))
			if chars+1 > c.text || utf8.RuneCountInString(e) > c.all {
				break
			}
			b.WriteString(e)
			chars++
			c.all -= utf8.RuneCountInString(e)
		}
		c.text = 0
		c.marked = true
		return &html.Node{Type: html.TextNode, Data: html.UnescapeString(atSpace(b.String())) + "…"}, false
	case html.ElementNode:
		shell := &html.Node{Type: html.ElementNode, Data: n.Data, DataAtom: n.DataAtom, Namespace: n.Namespace, Attr: n.Attr}
		cost := rendered(shell)
		if cost > c.all {
			return nil, false
		}
		c.all -= cost
		for ch := n.FirstChild; ch != nil; ch = ch.NextSibling {
			kept, whole := c.copy(ch)
			if kept != nil {
				shell.AppendChild(kept)
			}
			if !whole {
				if !c.marked && !noText[shell.DataAtom] {
					shell.AppendChild(&html.Node{Type: html.TextNode, Data: "…"})
					c.marked = true
				}
				return shell, false
			}
		}
		return shell, true
	}
	return nil, true // comments and the like: the sanitizer left none
}

// noText are the elements whose content is elements only: the ellipsis
// goes after them.
var noText = map[atom.Atom]bool{atom.Ul: true, atom.Ol: true, atom.Dl: true, atom.Table: true, atom.Thead: true, atom.Tbody: true,
	atom.Tfoot: true, atom.Tr: true, atom.Colgroup: true}

// rendered is a node's length as HTML, its children left out.
func rendered(n *html.Node) int {
	var b strings.Builder
	html.Render(&b, n)
	return utf8.RuneCountInString(b.String())
}

// atSpace cuts escaped text back to its last space when that is in its
// last fifth, so that a word is not cut in half.
func atSpace(s string) string {
	if i := strings.LastIndexByte(s, ' '); i > len(s)*4/5 {
		s = s[:i]
	}
	return strings.TrimRight(s, " ")
}

// cutText cuts text without markup to at most max characters, the last
// one an ellipsis.
func cutText(s string, max int) string {
	if utf8.RuneCountInString(s) <= max {
		return s
	}
	n := 0
	for i := range s {
		if n == max-1 {
			return atSpace(s[:i]) + "…"
		}
		n++
	}
	return s
}
