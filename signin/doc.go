// Package signin is the domain of signing in: how a person proves who they
// are to Vitrine's own authorization server (passwords, the failed
// sign-ins that lock an email out, one-time password links, browser
// sessions) and which applications act for them (OAuth clients, the
// grants users approve, codes and refresh tokens), with the contract of
// their persistence (Store). None of it belongs to a tenant.
//
// It sits beside the root package vitrine, which it imports for users and
// tokens; only the authorization server, service/accounts and store use
// it, so that the root holds the catalog's and the tenants' domain alone.
package signin

// Store keeps what signing in needs; the store package implements it
// beside vitrine.Store, on the same databases.
type Store interface {
	PasswordStore
	OAuthStore
}
