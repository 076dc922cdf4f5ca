package accounts

import (
	"context"
	"fmt"

	"github.com/vitrine/vitrine"
)

// DeleteUser erases the person with that email (vitrine.UserStore's
// EraseUser): refused while they are a company's only owner.
func (o *Operator) DeleteUser(ctx context.Context, email string) (*vitrine.User, error) {
	u, err := o.User(ctx, "email", email)
	if err != nil {
		return nil, err
	}
	return u, o.a.store.EraseUser(ctx, u.ID)
}

// DeleteAccount erases the signed-in person, at their own request (the
// account page), and records it outside any company under their id: the
// event outlives their name and email.
func (a *Accounts) DeleteAccount(ctx context.Context, u *vitrine.User) error {
	if err := a.store.EraseUser(ctx, u.ID); err != nil {
		return err
	}
	call := vitrine.Call{Actor: vitrine.ActorUser, RequestID: vitrine.NewID(), Tool: "delete_account", Target: u.ID, At: a.now()}
	e := (vitrine.Change{UserID: u.ID, Call: call}).Event(vitrine.NoTenant, u.ID)
	if err := a.store.AppendAudit(ctx, []*vitrine.AuditEvent{e}); err != nil {
		return fmt.Errorf("record the deletion of account %s: %w", u.ID, err)
	}
	a.log.Info("account deleted", "user_id", u.ID)
	return nil
}
