package feed

import (
	"strings"
	"unicode"
	"unicode/utf8"

	"golang.org/x/net/html"
)

// plainText is the text of an HTML description, its runs of white space
// made one space, cut to at most max characters (0: no bound).
func plainText(s string, max int) string {
	if strings.TrimSpace(s) == "" {
		return ""
	}
	if strings.ContainsAny(s, "<&") {
		s = htmlText(s)
	}
	return truncate(strings.Join(strings.Fields(clean(s)), " "), max)
}

// blockTags are the elements that part words: a space stands for each.
var blockTags = map[string]bool{
	"address": true, "article": true, "aside": true, "blockquote": true, "br": true, "dd": true, "div": true, "dl": true,
	"dt": true, "figcaption": true, "figure": true, "footer": true, "h1": true, "h2": true, "h3": true, "h4": true, "h5": true,
	"h6": true, "header": true, "hr": true, "img": true, "li": true, "ol": true, "p": true, "pre": true, "section": true,
	"table": true, "td": true, "th": true, "tr": true, "ul": true,
}

// htmlText reads the text of HTML: its text nodes, entities decoded, a
// space for each tag that parts words, nothing of scripts, styles or
// comments. Descriptions are sanitized on their way in; this reads them
// with x/net/html's tokenizer rather than a sanitizer's whole policy,
// which cost a feed of 300,000 variants a fifth of its time.
func htmlText(s string) string {
	z := html.NewTokenizer(strings.NewReader(s))
	var b strings.Builder
	b.Grow(len(s))
	skip := 0
	for {
		switch z.Next() {
		case html.ErrorToken:
			return b.String()
		case html.TextToken:
			if skip == 0 {
				b.Write(z.Text())
			}
		case html.StartTagToken, html.SelfClosingTagToken, html.EndTagToken:
			name, _ := z.TagName()
			switch tag := string(name); {
			case tag == "script" || tag == "style" || tag == "template":
				if z.Token().Type == html.StartTagToken {
					skip++
				} else if skip > 0 {
					skip--
				}
			case blockTags[tag]:
				b.WriteByte(' ')
			}
		}
	}
}

// truncate cuts s to at most max characters (0: no bound), at a space
// when there is one in its last fifth, marking the cut with an ellipsis.
func truncate(s string, max int) string {
	if max <= 0 || utf8.RuneCountInString(s) <= max {
		return s
	}
	n, cut := 0, len(s)
	for i := range s {
		if n == max-1 {
			cut = i
			break
		}
		n++
	}
	s = s[:cut]
	if i := strings.LastIndexByte(s, ' '); i > len(s)*4/5 {
		s = s[:i]
	}
	return strings.TrimRight(s, " ") + "…"
}

// clean drops what no feed may carry: invalid UTF-8, control characters
// (XML 1.0 takes none but tab, newline and return; C1 controls are
// discouraged), the noncharacters U+FFFE and U+FFFF; and trims the ends.
func clean(s string) string {
	i := strings.IndexFunc(s, func(r rune) bool { return r == utf8.RuneError || bad(r) })
	if i < 0 {
		return strings.TrimSpace(s)
	}
	var b strings.Builder
	b.Grow(len(s))
	b.WriteString(s[:i])
	for len(s[i:]) > 0 {
		r, n := utf8.DecodeRuneInString(s[i:])
		if !(r == utf8.RuneError && n <= 1) && !bad(r) {
			b.WriteString(s[i : i+n])
		}
		i += n
	}
	return strings.TrimSpace(b.String())
}

func bad(r rune) bool {
	switch {
	case r == '\t' || r == '\n' || r == '\r':
		return false
	case r == 0xfffe || r == 0xffff:
		return true
	}
	return unicode.Is(unicode.Cc, r)
}
