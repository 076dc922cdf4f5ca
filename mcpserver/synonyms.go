package mcpserver

import (
	"context"

	"github.com/vitrine/vitrine/mcpserver/shapes"
	"github.com/vitrine/vitrine/service"
	"github.com/vitrine/vitrine/service/catalog"
)

// synonymTools are the tools of the company's synonyms, which a search's
// words find products by: read by anyone who reads products, written with
// catalog:manage.
func synonymTools() []*Tool {
	return []*Tool{
		catalogTool(Tool{
			Name:        "list_synonyms",
			Title:       "List synonyms",
			Description: "List the company's search synonyms by locale.",
			Toolset:     "catalog", Op: service.OpListSynonyms, ReadOnly: true, Idempotent: true,
		}, func(ctx context.Context, cat *catalog.Catalog, a *service.Access, _ shapes.TenantArg) (shapes.ListSynonymsOut, error) {
			all, err := cat.ListSynonyms(ctx, a, "")
			if err != nil {
				return shapes.ListSynonymsOut{}, err
			}
			return shapes.SynonymsView(all), nil
		}),
		catalogTool(Tool{
			Name:        "save_synonyms",
			Title:       "Save synonyms",
			Description: "Add synonyms: a group's words find each other; a one_way word, its list.",
			Toolset:     "catalog", Op: service.OpSaveSynonyms, Idempotent: true,
		}, func(ctx context.Context, cat *catalog.Catalog, a *service.Access, in shapes.SaveSynonymsIn) (shapes.SaveSynonymsOut, error) {
			groups, oneWay := in.SynonymGroups()
			n, err := cat.SaveSynonyms(ctx, a, catalog.SynonymsIn{Groups: groups, OneWay: oneWay, Locale: string(in.Locale), Replace: in.Replace})
			return shapes.SaveSynonymsOut{Saved: n}, err
		}),
		catalogTool(Tool{
			Name:        "delete_synonyms",
			Title:       "Delete synonyms",
			Description: "Delete synonyms holding any of words, or all.",
			Toolset:     "catalog", Op: service.OpDeleteSynonyms, Destructive: true, Idempotent: true,
		}, func(ctx context.Context, cat *catalog.Catalog, a *service.Access, in shapes.DeleteSynonymsIn) (shapes.DeleteSynonymsOut, error) {
			n, err := cat.DeleteSynonyms(ctx, a, in.WordTexts(), in.All, string(in.Locale))
			return shapes.DeleteSynonymsOut{Deleted: n}, err
		}),
	}
}
