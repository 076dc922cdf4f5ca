package sanitize

import (
	"fmt"
	"strings"
	"testing"
	"unicode/utf8"

	"golang.org/x/net/html"
	"golang.org/x/net/html/atom"
)

// normal is HTML as x/net/html parses and writes it: two descriptions
// that read the same are equal once normal.
func normal(t *testing.T, s string) string {
	t.Helper()
	nodes, err := html.ParseFragment(strings.NewReader(s), &html.Node{Type: html.ElementNode, Data: "body", DataAtom: atom.Body})
	if err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	for _, n := range nodes {
		html.Render(&b, n)
	}
	return b.String()
}

// A description past either bound is cut to both, at a space, marked with
// an ellipsis, every element closed, nothing added that the sanitizer
// would take out; one within both is returned as it is.
func TestCut(t *testing.T) {
	var long strings.Builder
	for i := 0; long.Len() < 62000; i++ {
		fmt.Fprintf(&long, `<h2>Parte %d</h2><p>Algodão <strong>penteado</strong> &amp; <em>fio 30</em>, <a href="https://technova.example/cuidados?a=1&amp;b=%d">cuidados</a>.</p><ul><li>Lavar a frio</li><li>Não passar</li></ul><table><tr><td>P</td><td>M</td></tr></table><img src="https://technova.example/i/%d.png" alt="foto %d"><br>`, i, i, i, i)
	}
	words := strings.Repeat("palavra ", 8000)
	for name, c := range map[string]struct {
		in            string
		text, all     int
		want          string // "" checks the bounds and the form only
		sanitizedOnly bool
	}{
		"within":           {in: `<p>Soft <b>cotton</b></p>`, text: 100, all: 100, want: `<p>Soft <b>cotton</b></p>`},
		"text in a tag":    {in: `<p><b>` + strings.Repeat("a", 50) + `</b> tail</p>`, text: 10, all: 1000, want: `<p><b>aaaaaaaaa…</b></p>`},
		"at a space":       {in: `<p>aaaa bbbb cccc dddd</p>`, text: 12, all: 1000, want: `<p>aaaa bbbb…</p>`},
		"an entity whole":  {in: `<p>` + strings.Repeat("&amp;", 40) + `</p>`, text: 1000, all: 30, want: `<p>&amp;&amp;&amp;&amp;…</p>`},
		"markup bound":     {in: `<p>a</p><p>b</p><p>c</p><p>d</p>`, text: 1000, all: 24, want: `<p>a</p><p>b</p><p>…</p>`},
		"a list":           {in: `<ul><li>um</li><li>dois</li><li>tres</li></ul>`, text: 5, all: 1000, want: `<ul><li>um</li><li>do…</li></ul>`},
		"long, text bound": {in: long.String(), text: 5000, all: 10000},
		"long, html bound": {in: long.String(), text: 5000, all: 3000},
		"words":            {in: `<p>` + words + `</p>`, text: 5000, all: 10000},
	} {
		got := Cut(c.in, c.text, c.all)
		if c.want != "" && got != c.want {
			t.Errorf("%s: Cut = %q, want %q", name, got, c.want)
		}
		if n := utf8.RuneCountInString(got); n > c.all {
			t.Errorf("%s: %d characters of HTML, past %d", name, n, c.all)
		}
		if n := utf8.RuneCountInString(strings.Join(strings.Fields(Text(got)), "")); n > c.text {
			t.Errorf("%s: %d characters of text (white space aside), past %d", name, n, c.text)
		}
		if normal(t, got) != got {
			t.Errorf("%s: not well-formed: %q reads as %q", name, got, normal(t, got))
		}
		if normal(t, Description(got)) != got {
			t.Errorf("%s: the sanitizer takes something out of %q", name, got)
		}
		if got != c.in && !strings.Contains(got, "…") {
			t.Errorf("%s: a cut without an ellipsis: %q", name, got)
		}
	}
}

// Whatever a description holds, its cut is within both bounds and
// well-formed.
func FuzzCut(f *testing.F) {
	f.Add(`<p>Soft <b>cotton</b> &amp; <a href="https://example.com/x">linen</a></p><ul><li>a</li></ul>`, 20, 60)
	f.Add(`<table><tr><td>`+strings.Repeat("x ", 100)+`</td></tr></table>`, 10, 40)
	f.Add(`<p><b><i>`+strings.Repeat("é", 300)+`<br><img src="https://a.example/i.png">`, 100, 120)
	f.Fuzz(func(t *testing.T, s string, text, all int) {
		if text < 2 || all < 2 || text > 1<<16 || all > 1<<16 {
			t.Skip()
		}
		s = Description(s)
		got := Cut(s, text, all)
		if got == s {
			return
		}
		if n := utf8.RuneCountInString(got); n > all {
			t.Errorf("%d characters of HTML, past %d: %q", n, all, got)
		}
		// Text without a tag is kept as given (Description), quotes
		// unescaped: well-formed, though not as x/net/html writes it.
		if strings.Contains(s, "<") && normal(t, got) != got {
			t.Errorf("not well-formed: %q", got)
		}
	})
}
