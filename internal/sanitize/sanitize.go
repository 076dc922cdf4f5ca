// Package sanitize keeps the safe subset of a product's HTML description,
// and reads its text for search. It is the one place that knows an HTML
// sanitizer (bluemonday), so that the domain at the root stays free of it:
// the service sanitizes a description on its way in, the store indexes its
// text.
package sanitize

import (
	"html"
	"strings"
	"sync"

	"github.com/microcosm-cc/bluemonday"
	xhtml "golang.org/x/net/html"
)

// descriptionPolicy is the safe subset of HTML a description keeps: the
// policy of user-generated content (formatting, links, images, tables),
// which has no script, no event handler, no style, and no link but to
// http, https and mailto.
var descriptionPolicy = sync.OnceValue(func() *bluemonday.Policy {
	p := bluemonday.UGCPolicy()
	p.RequireNoFollowOnLinks(false)
	return p
})

var textPolicy = sync.OnceValue(bluemonday.StrictPolicy)

// Description keeps the safe subset of an HTML description. Text without
// a tag is kept as given: there is nothing in it to remove, and the
// sanitizer would write its quotes as entities.
func Description(s string) string {
	if !strings.Contains(s, "<") {
		return s
	}
	return strings.TrimSpace(descriptionPolicy().Sanitize(s))
}

// Text is the text of an HTML description, for search.
func Text(s string) string {
	return html.UnescapeString(textPolicy().Sanitize(strings.NewReplacer("<", " <", ">", "> ").Replace(s)))
}

// Plain is the text of an HTML description as a person reads it: the
// text of inline elements (b, em, a, span, …) runs on with its
// neighbours ("<b>corta-vento</b>, dobrável" is "corta-vento, dobrável"),
// block elements and line breaks separate words, and white space is
// collapsed to single spaces. Scripts and styles say nothing.
func Plain(s string) string {
	var b strings.Builder
	z := xhtml.NewTokenizer(strings.NewReader(s))
	skip := 0 // inside script or style
	for {
		tt := z.Next()
		switch tt {
		case xhtml.ErrorToken:
			return strings.Join(strings.Fields(b.String()), " ")
		case xhtml.TextToken:
			if skip == 0 {
				b.Write(z.Text())
			}
		case xhtml.StartTagToken, xhtml.SelfClosingTagToken, xhtml.EndTagToken:
			name, _ := z.TagName()
			tag := string(name)
			if tag == "script" || tag == "style" {
				if tt == xhtml.StartTagToken {
					skip++
				} else if tt == xhtml.EndTagToken && skip > 0 {
					skip--
				}
			}
			if !inline[tag] {
				b.WriteByte(' ')
			}
		}
	}
}

// inline are the elements whose text runs on with the text around them.
var inline = map[string]bool{"a": true, "abbr": true, "b": true, "bdi": true, "bdo": true, "cite": true, "code": true,
	"data": true, "dfn": true, "em": true, "i": true, "kbd": true, "mark": true, "q": true, "s": true, "samp": true,
	"small": true, "span": true, "strong": true, "sub": true, "sup": true, "time": true, "u": true, "var": true,
	"del": true, "ins": true, "font": true, "strike": true, "tt": true, "big": true}
