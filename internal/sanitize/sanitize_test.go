package sanitize

import (
	"strings"
	"testing"
)

// A description keeps its formatting and links and loses what could run:
// script, event handlers, style. Text without a tag stays as given.
func TestDescription(t *testing.T) {
	for in, want := range map[string]string{
		`<p>Soft <b>cotton</b>, <a href="https://example.com/care">care</a></p>`: `<p>Soft <b>cotton</b>, <a href="https://example.com/care">care</a></p>`,
		`<p onclick="steal()">Hi</p><script>alert(1)</script>`:                   `<p>Hi</p>`,
		`<p style="color:red">Red</p>`:                                           `<p>Red</p>`,
		`<a href="javascript:alert(1)">x</a>`:                                    `x`,
		`Tom & Jerry's "best"`:                                                   `Tom & Jerry's "best"`,
	} {
		if got := Description(in); got != want {
			t.Errorf("Description(%q) = %q, want %q", in, got, want)
		}
	}
}

// The text of a description is what search reads: its words, apart at
// every tag (even one without space around it), its entities decoded.
func TestText(t *testing.T) {
	for in, want := range map[string]string{
		`<p>Soft<br>cotton &amp; linen</p><script>x</script>`: "Soft cotton & linen",
		`plain`: "plain",
	} {
		if got := strings.Join(strings.Fields(Text(in)), " "); got != want {
			t.Errorf("Text(%q) reads %q, want %q", in, got, want)
		}
	}
}

// A description's plain text is what a person reads: inline elements run
// on with their neighbours, blocks and breaks separate words, entities
// are their characters, scripts and styles say nothing.
func TestPlain(t *testing.T) {
	for in, want := range map[string]string{
		`<b>corta-vento</b>, dobrável`:                           `corta-vento, dobrável`,
		`<p>Algodão <strong>penteado</strong>.</p><p>Gola</p>`:   `Algodão penteado. Gola`,
		`Uma<br>duas<br/>três`:                                   `Uma duas três`,
		`<ul><li>P</li><li>M</li></ul>`:                          `P M`,
		`<a href="https://x.example">Leia</a>: <em>R&amp;D</em>`: `Leia: R&D`,
		`<p>a</p><script>alert(1)</script><style>p{}</style>b`:   `a b`,
		`sem   tags`: `sem tags`,
	} {
		if got := Plain(in); got != want {
			t.Errorf("Plain(%q) = %q, want %q", in, got, want)
		}
	}
}
