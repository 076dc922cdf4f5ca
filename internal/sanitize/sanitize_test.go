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
