package fuzzy

import (
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
)

func TestPrefixes(t *testing.T) {
	dict := Sorted{"bracelet", "bracelets", "camiseta", "earrings", "jacket", "jackets", "moletom", "notebook", "sofa", "sofas", "software", "teclado"}
	for _, c := range []struct {
		w     string
		typos int
		skip  []string
		want  string
	}{
		{"braclet", 1, nil, "bracelet"},
		{"earings", 1, nil, "earrings"},
		{"jaket", 1, nil, "jacket"},
		{"sofaa", 1, nil, "sofa"},
		{"notbook", 1, nil, "notebook"},
		{"moleton", 1, nil, "moletom"},
		{"tecaldo", 1, nil, "teclado"}, // a transposition is one typo
		{"camisteta", 2, []string{"camistet"}, "camiseta"},
		{"sofa", 1, []string{"sofa"}, ""}, // "software" is no typo of it: whole words are compared
		{"xyzw", 1, nil, ""},
		{"bofa", 1, nil, ""}, // the first character is never a typo
	} {
		if got := strings.Join(Prefixes(dict, c.w, c.typos, 16, c.skip...), " "); got != c.want {
			t.Errorf("%q with %d typos: %q, want %q", c.w, c.typos, got, c.want)
		}
	}
}

// TestPrefixesAgainstBruteForce holds the automaton's walk to each term's
// shortest prefix within the typos, computed plainly, over random words.
func TestPrefixesAgainstBruteForce(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	word := func() string {
		var b strings.Builder
		for range 1 + r.IntN(8) {
			b.WriteByte("abcde"[r.IntN(5)])
			if r.IntN(20) == 0 {
				b.WriteString("ç")
			}
		}
		return b.String()
	}
	for range 300 {
		set := map[string]bool{}
		for range 1 + r.IntN(200) {
			set[word()] = true
		}
		var dict Sorted
		for w := range set {
			dict = append(dict, w)
		}
		slices.Sort(dict)
		w := word()
		for typos := 1; typos <= 2; typos++ {
			got := Prefixes(dict, w, typos, 1<<20)
			want := map[string]bool{}
			for _, term := range dict {
				if first := []rune(w)[0]; []rune(term)[0] != first {
					continue // the first character is never a typo
				}
				if p, ok := bruteMatch(w, term, typos); ok {
					want[p] = true
				}
			}
			var ws []string
		next:
			for p := range want {
				for o := range want {
					if o != p && strings.HasPrefix(p, o) {
						continue next // a shorter term within the typos covers it
					}
				}
				ws = append(ws, p)
			}
			slices.Sort(ws)
			if !slices.Equal(got, ws) {
				t.Fatalf("%q (%d typos) over %q: %q, want %q", w, typos, dict, got, ws)
			}
		}
	}
}

// bruteMatch returns term when it is within typos of w.
func bruteMatch(w, term string, typos int) (string, bool) {
	return term, osa([]rune(w), []rune(term)) <= typos
}

// osa is the optimal string alignment distance: insertions, deletions,
// substitutions and transpositions of adjacent characters, one each.
func osa(a, b []rune) int {
	d := make([][]int, len(a)+1)
	for i := range d {
		d[i] = make([]int, len(b)+1)
		d[i][0] = i
	}
	for j := range d[0] {
		d[0][j] = j
	}
	for i := 1; i <= len(a); i++ {
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			d[i][j] = min(d[i-1][j]+1, d[i][j-1]+1, d[i-1][j-1]+cost)
			if i > 1 && j > 1 && a[i-1] == b[j-2] && a[i-2] == b[j-1] {
				d[i][j] = min(d[i][j], d[i-2][j-2]+1)
			}
		}
	}
	return d[len(a)][len(b)]
}
