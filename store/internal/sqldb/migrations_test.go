package sqldb

import (
	"fmt"
	"os"
	"strconv"
	"strings"
	"testing"
)

// Each dialect's migrations are numbered one after another, with no gap
// past those shipped long ago (lastShippedGap): goose refuses to apply a
// migration numbered below one a database already ran, so a gap left by
// one change and filled by a later one would stop every database that took
// the first (twice this round numbers were renumbered before a stop
// shipped them).
func TestMigrationsNumberedWithoutGaps(t *testing.T) {
	lastShippedGap := map[string]int{"sqlite": 22, "postgres": 19}
	for _, dialect := range []string{"sqlite", "postgres"} {
		entries, err := os.ReadDir("migrations/" + dialect)
		if err != nil {
			t.Fatal(err)
		}
		want := 1
		for _, e := range entries {
			n, _, ok := strings.Cut(e.Name(), "_")
			if !ok || !strings.HasSuffix(e.Name(), ".sql") {
				continue
			}
			got, err := strconv.Atoi(n)
			if err != nil {
				t.Fatalf("%s/%s: %v", dialect, e.Name(), err)
			}
			if got != want && (got < want || want > lastShippedGap[dialect]) {
				t.Errorf("%s/%s: numbered %d, after %s", dialect, e.Name(), got, fmt.Sprintf("%05d", want-1))
			}
			want = got + 1
		}
	}
}
