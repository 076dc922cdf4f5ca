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
