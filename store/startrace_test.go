package store_test

import (
	"context"
	"sync"
	"testing"

	"github.com/vitrine/vitrine/internal/dbtest"
	"github.com/vitrine/vitrine/store"
)

// Instances started together on one PostgreSQL database take turns: each
// opens and migrates it at once, again and again, and none fails. With a
// superuser login, migrating also prepares the database's own role and
// grants it the tables, which PostgreSQL refuses to do twice at the same
// moment ("tuple concurrently updated"); with a plain owner login there is
// no role to prepare. Both run on a fresh database and on one already
// migrated, where every start still grants.
func TestInstancesStartingTogether(t *testing.T) {
	for name, newURL := range map[string]func(testing.TB) string{"superuser": dbtest.PostgresURL, "owner": dbtest.PostgresOwnerURL} {
		t.Run(name, func(t *testing.T) {
			url := newURL(t)
			const instances, rounds = 6, 4
			for round := range rounds {
				var wg sync.WaitGroup
				errs := make(chan error, instances)
				start := make(chan struct{})
				for range instances {
					wg.Go(func() {
						<-start
						db, err := store.Open(context.Background(), url, store.Options{})
						if err != nil {
							errs <- err
							return
						}
						if err := db.Ready(context.Background()); err != nil {
							errs <- err
						}
						db.Close()
					})
				}
				close(start)
				wg.Wait()
				close(errs)
				for err := range errs {
					t.Errorf("round %d: an instance failed at start: %v", round, err)
				}
			}
		})
	}
}
