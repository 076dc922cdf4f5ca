package main

import (
	"fmt"
	"os"
	"path/filepath"
)

// TenantExportCmd writes a company's archive.
type TenantExportCmd struct {
	Tenant string `arg:"" placeholder:"ID|SLUG" help:"The company, by id or slug."`
	Output string `short:"o" required:"" placeholder:"FILE" help:"The archive to write (a zip); written whole or not at all."`
	JSON   bool   `name:"json" help:"Print the archive's manifest as one JSON object."`
}

// Run exports the company: to a file beside FILE, renamed to it once
// complete, so that FILE is never half an archive.
func (c *TenantExportCmd) Run(e *env) error {
	db, svc, err := e.open(nil)
	if err != nil {
		return err
	}
	defer db.Close()
	tmp, err := os.CreateTemp(filepath.Dir(c.Output), "."+filepath.Base(c.Output)+".*")
	if err != nil {
		return err
	}
	defer os.Remove(tmp.Name())
	m, err := svc.Operator().ExportTenant(e.ctx, c.Tenant, tmp)
	if err == nil {
		err = tmp.Sync()
	}
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return err
	}
	if err := os.Rename(tmp.Name(), c.Output); err != nil {
		return err
	}
	return e.print(c.JSON, m, "Exported company %s (%s): %d rows in %d files to %s", m.Slug, m.TenantID, m.Rows(), len(m.Files), c.Output)
}

// TenantImportCmd brings a company's archive into the database.
type TenantImportCmd struct {
	File string `arg:"" type:"existingfile" placeholder:"FILE" help:"An archive of vitrine tenant export or export_tenant."`
	Slug string `help:"The company's slug here, when its own is another company's in this database."`
	JSON bool   `name:"json" help:"Print what was written as one JSON object."`
}

// Run imports the archive.
func (c *TenantImportCmd) Run(e *env) error {
	db, svc, err := e.open(nil)
	if err != nil {
		return err
	}
	defer db.Close()
	f, err := os.Open(c.File)
	if err != nil {
		return err
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return err
	}
	done, m, err := svc.Operator().Command("vitrine tenant import").ImportTenant(e.ctx, f, st.Size(), c.Slug)
	if err != nil {
		return err
	}
	var rows int64
	for _, n := range done.Rows {
		rows += n
	}
	text := fmt.Sprintf("Imported company %q (slug %s) with id %s: %d rows", done.Tenant.Name, done.Tenant.Slug, done.Tenant.ID, rows)
	if len(done.Users) > 0 {
		text += fmt.Sprintf("; %d users created, their memberships invited (they accept on /account, or with accept_invitation)", len(done.Users))
	}
	return e.print(c.JSON, map[string]any{"id": done.Tenant.ID, "slug": done.Tenant.Slug, "name": done.Tenant.Name, "rows": done.Rows, "users_created": done.Users, "exported_at": m.ExportedAt}, "%s", text)
}
