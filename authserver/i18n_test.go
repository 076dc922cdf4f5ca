package authserver

import (
	"os"
	"regexp"
	"testing"
)

// Every message the pages use exists, in English and in Portuguese: a
// missing one would show its key to the person.
func TestMessagesInBothLanguages(t *testing.T) {
	for key, en := range messagesEN {
		if pt, ok := messagesPT[key]; !ok || pt == "" || en == "" {
			t.Errorf("%q: English %q, Portuguese %q", key, en, pt)
		}
	}
	for key := range messagesPT {
		if _, ok := messagesEN[key]; !ok {
			t.Errorf("%q has no English message", key)
		}
	}
	var used []string
	tmpl, err := os.ReadFile("templates/pages.html")
	if err != nil {
		t.Fatal(err)
	}
	for _, m := range regexp.MustCompile(`\.L\.T "([a-z_:]+)"`).FindAllStringSubmatch(string(tmpl), -1) {
		used = append(used, m[1])
	}
	for _, file := range []string{"pages.go", "upstream.go", "web.go"} {
		src, err := os.ReadFile(file)
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range regexp.MustCompile(`lang\.t\("([a-z_:]+)"\)`).FindAllStringSubmatch(string(src), -1) {
			used = append(used, m[1])
		}
	}
	if len(used) < 20 {
		t.Fatalf("found only %d message keys in use", len(used))
	}
	for _, key := range used {
		if _, ok := messagesEN[key]; !ok {
			t.Errorf("the key %q is used but has no message", key)
		}
	}
}
