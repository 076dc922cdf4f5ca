package main

import (
	"fmt"
	"strings"

	"github.com/vitrine/vitrine"
	"github.com/vitrine/vitrine/service"
	"github.com/vitrine/vitrine/service/catalog"
)

// CategoryCmd groups the commands of a company's categories.
type CategoryCmd struct {
	List   CategoryListCmd   `cmd:"" help:"List a company's categories, parents before children, with their paths."`
	Add    CategoryAddCmd    `cmd:"" help:"Add a category, at the root or under a parent."`
	Update CategoryUpdateCmd `cmd:"" help:"Rename, move or reorder a category."`
	Delete CategoryDeleteCmd `cmd:"" help:"Delete a category without subcategories; its products leave it."`
}

// AttributeCmd groups the commands of a company's attributes.
type AttributeCmd struct {
	List   AttributeListCmd   `cmd:"" help:"List a company's attribute definitions."`
	Save   AttributeSaveCmd   `cmd:"" help:"Define an attribute, or rename one or change an enum's values."`
	Delete AttributeDeleteCmd `cmd:"" help:"Delete an attribute no product has a value of."`
}

type catalogActor struct {
	Tenant string `required:"" placeholder:"ID|SLUG" help:"The company, by id or slug."`
	As     string `placeholder:"EMAIL" help:"Act as this member of the company (recorded as the author); default: its first owner."`
}

// access acts in the company as its member (--as, default its first
// owner), whose permissions apply; a write is audited as a call of the
// command, the operator its actor, in the write's own transaction.
func (c catalogActor) access(e *env, what string) (func() error, *catalog.Catalog, *service.Access, error) {
	db, svc, err := e.open(nil)
	if err != nil {
		return nil, nil, nil, err
	}
	a, err := operatorActor(e, svc, c.Tenant, c.As, "vitrine "+what, "")
	if err != nil {
		db.Close()
		return nil, nil, nil, err
	}
	return db.Close, catalog.New(svc), a, nil
}

// operatorActor is the access of the operator's command in a company, as
// its member as (default its first owner): the member's permissions apply,
// and the command's writes are audited as its call, about target (empty:
// what each writes), the operator their actor and the member the user.
func operatorActor(e *env, svc *service.Service, tenant, as, command, target string) (*service.Access, error) {
	a, err := svc.Operator().Actor(e.ctx, tenant, as, command)
	if err != nil {
		return nil, err
	}
	a.Caller.Call = vitrine.OperatorCall(command, target)
	return a, nil
}

// CategoryListCmd lists categories.
type CategoryListCmd struct {
	catalogActor
	JSON bool `name:"json" help:"Print one JSON object per category."`
}

// Run lists the company's categories.
func (c *CategoryListCmd) Run(e *env) error {
	done, cat, a, err := c.access(e, "category list")
	if err != nil {
		return err
	}
	defer done()
	all, err := cat.ListCategories(e.ctx, a)
	if err != nil {
		return err
	}
	l := e.lister(c.JSON, "ID\tHANDLE\tPATH")
	for _, cat := range all {
		path := catalog.CategoryPath(all, cat.ID)
		if err := l.row(map[string]any{"id": cat.ID, "name": cat.Name, "handle": cat.Handle, "parent_id": cat.ParentID, "path": path, "position": cat.Position},
			cat.ID, cat.Handle, path); err != nil {
			return err
		}
	}
	return l.done()
}

// CategoryAddCmd adds a category.
type CategoryAddCmd struct {
	catalogActor
	Name     string `required:"" help:"The category's name."`
	Parent   string `placeholder:"ID" help:"The category to put it under; default: at the root."`
	Handle   string `help:"Its URL slug; default: from the name."`
	Position *int   `help:"Its place among its siblings; default: last."`
}

// Run adds the category and prints its id.
func (c *CategoryAddCmd) Run(e *env) error {
	done, cat, a, err := c.access(e, "category add")
	if err != nil {
		return err
	}
	defer done()
	f := catalog.CategoryFields{Name: &c.Name, ParentID: &c.Parent, Position: c.Position}
	if c.Handle != "" {
		f.Handle = &c.Handle
	}
	made, err := cat.CreateCategory(e.ctx, a, f)
	if err != nil {
		return err
	}
	fmt.Fprintln(e.stdout, made.ID)
	return nil
}

// CategoryUpdateCmd changes a category.
type CategoryUpdateCmd struct {
	catalogActor
	ID       string  `arg:"" help:"The category's id."`
	Name     *string `help:"A new name."`
	Parent   *string `placeholder:"ID" help:"A new parent; \"\" moves it to the root."`
	Handle   *string `help:"A new URL slug."`
	Position *int    `help:"A new place among its siblings."`
}

// Run changes the category.
func (c *CategoryUpdateCmd) Run(e *env) error {
	done, cat, a, err := c.access(e, "category update")
	if err != nil {
		return err
	}
	defer done()
	_, err = cat.UpdateCategory(e.ctx, a, c.ID, catalog.CategoryFields{Name: c.Name, ParentID: c.Parent, Handle: c.Handle, Position: c.Position})
	return err
}

// CategoryDeleteCmd deletes a category.
type CategoryDeleteCmd struct {
	catalogActor
	ID string `arg:"" help:"The category's id."`
}

// Run deletes the category.
func (c *CategoryDeleteCmd) Run(e *env) error {
	done, cat, a, err := c.access(e, "category delete")
	if err != nil {
		return err
	}
	defer done()
	return cat.DeleteCategory(e.ctx, a, c.ID)
}

// AttributeListCmd lists attribute definitions.
type AttributeListCmd struct {
	catalogActor
	JSON bool `name:"json" help:"Print one JSON object per attribute."`
}

// Run lists the company's attributes.
func (c *AttributeListCmd) Run(e *env) error {
	done, cat, a, err := c.access(e, "attribute list")
	if err != nil {
		return err
	}
	defer done()
	all, err := cat.ListAttributes(e.ctx, a)
	if err != nil {
		return err
	}
	l := e.lister(c.JSON, "KEY\tTYPE\tNAME\tVALUES")
	for _, at := range all {
		if err := l.row(map[string]any{"key": at.Key, "name": at.Name, "type": at.Type, "values": at.Values, "public": at.Public},
			at.Key, string(at.Type), at.Name, strings.Join(at.Values, ", ")); err != nil {
			return err
		}
	}
	return l.done()
}

// AttributeSaveCmd defines or changes an attribute.
type AttributeSaveCmd struct {
	catalogActor
	Key    string   `arg:"" help:"The attribute's key: lower case, digits and _, such as material."`
	Name   *string  `help:"Its name; default: the key."`
	Type   string   `enum:",text,number,boolean,enum" default:"" help:"text, number, boolean or enum: needed to define it, fixed after."`
	Values []string `help:"An enum's values, comma-separated." sep:","`
	Public *bool    `negatable:"" help:"Show it in the company's shop window and feeds (--no-public: keep it to the company, the default of a new one)."`
}

// Run saves the definition.
func (c *AttributeSaveCmd) Run(e *env) error {
	done, cat, a, err := c.access(e, "attribute save")
	if err != nil {
		return err
	}
	defer done()
	f := catalog.AttributeFields{Key: c.Key, Name: c.Name, Type: c.Type, Public: c.Public}
	if c.Values != nil {
		f.Values = &c.Values
	}
	_, err = cat.SaveAttribute(e.ctx, a, f)
	return err
}

// AttributeDeleteCmd deletes an attribute.
type AttributeDeleteCmd struct {
	catalogActor
	Key string `arg:"" help:"The attribute's key."`
}

// Run deletes the definition.
func (c *AttributeDeleteCmd) Run(e *env) error {
	done, cat, a, err := c.access(e, "attribute delete")
	if err != nil {
		return err
	}
	defer done()
	return cat.DeleteAttribute(e.ctx, a, c.Key)
}
