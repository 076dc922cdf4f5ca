package main

import (
	"bufio"
	"fmt"
	"os"

	"github.com/vitrine/vitrine"
	"github.com/vitrine/vitrine/internal/shopify"
	"github.com/vitrine/vitrine/service/catalog"
)

// TranslationCmd groups the commands of a company's translations.
type TranslationCmd struct {
	Import TranslationImportCmd `cmd:"" help:"Import translations from Shopify's translation CSV (Translate & Adapt's export) or JSON Lines of products' translations."`
	Export TranslationExportCmd `cmd:"" help:"Export a company's translations as Shopify's translation CSV, every translatable field with its source, its translation and its status."`
}

// TranslationImportCmd imports translations.
type TranslationImportCmd struct {
	Tenant string `required:"" placeholder:"ID|SLUG" help:"The company, by id or slug."`
	Format string `enum:"shopify,jsonl" required:"" help:"shopify: Shopify's translation CSV (Type, Identification, Field, Locale, Market, Status, Default content, Translated content); jsonl: a product a line, {\"handle\" or \"id\", \"translations\": {\"es\": {\"name\": ...}}}, as product export --format jsonl writes them."`
	Locale string `placeholder:"LOCALE" help:"Import only the rows of this locale (one of the company's others); the rest are reported as skipped."`
	File   string `arg:"" help:"The file; - reads standard input."`
	As     string `placeholder:"EMAIL" help:"Act as this member of the company (recorded as the author); default: its first owner."`
}

// Run imports the file: each line that is not imported is printed with
// why; the command fails when one failed.
func (c *TranslationImportCmd) Run(e *env) error {
	in, size, err := openInput(e, c.File)
	if err != nil {
		return err
	}
	defer in.Close()
	db, svc, err := e.open(nil)
	if err != nil {
		return err
	}
	defer db.Close()
	a, err := operatorActor(e, svc, c.Tenant, c.As, "vitrine translation import", "")
	if err != nil {
		return err
	}
	cat := catalog.New(svc)
	bar := e.progress(size, "reading")
	f, err := catalog.ReadTranslations(e.ctx, bar.reader(bufio.NewReader(in)), c.Format, 0)
	if err != nil {
		return err
	}
	bar.finish()
	if len(f.Entries) == 0 {
		return &usageError{catalog.ErrNoEntries.Error()}
	}
	if c.Locale != "" {
		locales, err := cat.ExportLocales(e.ctx, a, c.Locale)
		if err != nil {
			return err
		}
		for i := range f.Entries {
			en := &f.Entries[i]
			if l, err := vitrine.CanonicalLocale("locale", en.Locale); en.Refused == nil && en.Skip == "" && (err != nil || l != locales[0]) {
				en.Skip = "not of --locale " + locales[0]
			}
		}
	}
	res, err := cat.ImportTranslations(e.ctx, a, f.Entries, nil)
	if err != nil {
		return err
	}
	for _, n := range f.Notices {
		fmt.Fprintf(e.stderr, "note: %s\n", n)
	}
	for _, r := range res.Results {
		if r.Err != nil {
			fmt.Fprintln(e.stderr, r)
		}
	}
	fmt.Fprintf(e.stdout, "%s: %s.\n", plural(len(res.Results), "translation"), res)
	if res.Failed > 0 {
		return fmt.Errorf("%s failed (listed above); the others were written", plural(res.Failed, "translation"))
	}
	return nil
}

// TranslationExportCmd exports translations.
type TranslationExportCmd struct {
	Tenant string `required:"" placeholder:"ID|SLUG" help:"The company, by id or slug."`
	Format string `enum:"shopify" default:"shopify" help:"shopify: Shopify's translation CSV, which Translate & Adapt and vitrine translation import read. (A product's translations in JSON Lines: vitrine product export --format jsonl.)"`
	Locale string `placeholder:"LOCALE" help:"Export only this locale (one of the company's others); default: every one of them."`
	Output string `short:"o" default:"-" placeholder:"FILE" help:"Where to write; - is standard output."`
	As     string `placeholder:"EMAIL" help:"Read as this member of the company; default: its first owner."`
}

// Run writes the rows of every product, then of every category.
func (c *TranslationExportCmd) Run(e *env) error {
	db, svc, err := e.open(nil)
	if err != nil {
		return err
	}
	defer db.Close()
	a, err := svc.Operator().Actor(e.ctx, c.Tenant, c.As, "vitrine translation export")
	if err != nil {
		return err
	}
	cat := catalog.New(svc)
	locales, err := cat.ExportLocales(e.ctx, a, c.Locale)
	if err != nil {
		return err
	}
	out := e.stdout
	if c.Output != "-" {
		f, err := os.Create(c.Output)
		if err != nil {
			return err
		}
		defer f.Close()
		out = f
	}
	w := bufio.NewWriter(out)
	tw := shopify.NewTranslationWriter(w)
	bar := e.progress(-1, "exporting")
	if err := cat.ExportShopifyTranslations(e.ctx, a, locales, tw, bar.add); err != nil {
		return err
	}
	bar.finish()
	if err := tw.Flush(); err != nil {
		return err
	}
	return w.Flush()
}
