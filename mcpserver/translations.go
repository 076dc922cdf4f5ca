package mcpserver

import (
	"context"

	"github.com/vitrine/vitrine/mcpserver/shapes"
	"github.com/vitrine/vitrine/service"
	"github.com/vitrine/vitrine/service/catalog"
)

// translationTools are the tools of the catalog's text in the company's
// other locales (issue 47).
func translationTools() []*Tool {
	return []*Tool{
		catalogTool(Tool{
			Name:        "get_translations",
			Title:       "Get translations",
			Description: "A product's or category's translatable fields: source, value per locale, outdated when the source changed.",
			Toolset:     "translations", Op: service.OpGetTranslations, ReadOnly: true, Idempotent: true, TargetArg: "id",
		}, func(ctx context.Context, cat *catalog.Catalog, a *service.Access, in shapes.GetTranslationsIn) (shapes.TranslationsOut, error) {
			return shapes.TranslationsOf(cat.GetTranslations(ctx, a, in.ID, string(in.Locale)))
		}),
		catalogTool(Tool{
			Name:        "translate_product",
			Title:       "Translate a product",
			Description: "Write a product's text in one of the company's other locales; fields not given stay.",
			Toolset:     "translations", Op: service.OpTranslateProduct, Idempotent: true, TargetArg: "id", ResultAs: "get_translations",
		}, func(ctx context.Context, cat *catalog.Catalog, a *service.Access, in shapes.TranslateProductIn) (shapes.TranslationsOut, error) {
			return shapes.TranslationsOf(cat.TranslateProduct(ctx, a, in.ID, string(in.Locale), in.Translation()))
		}),
		catalogTool(Tool{
			Name:        "translate_category",
			Title:       "Translate a category",
			Description: "Write a category's name or handle in one of the company's other locales.",
			Toolset:     "translations", Op: service.OpTranslateCategory, Idempotent: true, TargetArg: "id", ResultAs: "get_translations",
		}, func(ctx context.Context, cat *catalog.Catalog, a *service.Access, in shapes.TranslateCategoryIn) (shapes.TranslationsOut, error) {
			return shapes.TranslationsOf(cat.TranslateCategory(ctx, a, in.ID, string(in.Locale), (*string)(in.Name), (*string)(in.Handle)))
		}),
	}
}
