package mcpserver

import (
	"context"
	"strings"

	"github.com/vitrine/vitrine/mcpserver/shapes"
	"github.com/vitrine/vitrine/service"
	"github.com/vitrine/vitrine/service/catalog"
)

// translationFileTools import translations from a file: Shopify's
// translation CSV, or JSON Lines of products' translations.
func translationFileTools() []*Tool {
	return []*Tool{catalogTool(Tool{
		Name:        "import_translations",
		Title:       "Import translations",
		Description: "Import a Shopify translation CSV or JSON Lines of product translations, each line with its own result.",
		Toolset:     "translations", Op: service.OpImportTranslations, Idempotent: true,
	}, func(ctx context.Context, cat *catalog.Catalog, a *service.Access, in shapes.ImportTranslationsIn) (shapes.ImportTranslationsOut, error) {
		maxRows := shapes.MaxTranslationRows
		if in.Format == catalog.TranslationsJSONL {
			maxRows = shapes.MaxTranslationLines
		}
		res, err := cat.ImportTranslationsFile(ctx, a, strings.NewReader(string(in.Text)), string(in.Format), maxRows, progressReporter(ctx))
		if err != nil {
			return shapes.ImportTranslationsOut{}, err
		}
		return shapes.ImportTranslationsAnswer(res, in.Details, errorBodyOf), nil
	})}
}
