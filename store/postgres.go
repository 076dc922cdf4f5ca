package store

import (
	"context"
	"errors"
)

func openPostgres(ctx context.Context, url string) (dialect, error) {
	return nil, errors.New("postgres: not supported yet")
}
