package vitrine

import (
	"slices"
	"strings"

	"golang.org/x/text/language"
)

// MaxLocales bounds a company's locales.
const MaxLocales = 20

// Languages returns the tenant's locales, its default first: DefaultLocale
// alone for a company that never named its own.
func (t *Tenant) Languages() []string {
	if len(t.Locales) == 0 {
		return []string{DefaultLocale}
	}
	return t.Locales
}

// DefaultLanguage is the tenant's default locale, the one its catalog is
// written in.
func (t *Tenant) DefaultLanguage() string { return t.Languages()[0] }

// Multilingual reports whether the company has locales besides its
// default: only then do its answers say anything of locales.
func (t *Tenant) Multilingual() bool { return len(t.Languages()) > 1 }

// TranslationLocale checks that locale (a BCP 47 tag, any case) is one of
// the company's locales other than its default, the ones a translation is
// written in, and returns it as the company writes it.
func (t *Tenant) TranslationLocale(field, locale string) (string, error) {
	ls := t.Languages()
	l, err := CanonicalLocale(field, locale)
	if err != nil {
		return "", err
	}
	if l == ls[0] {
		return "", Invalid(field, "%s is the company's default locale, in which the catalog itself is written; translations are into its other locales (%s)", l, otherLocales(ls))
	}
	if !slices.Contains(ls, l) {
		return "", Invalid(field, "%s is not one of the company's locales (%s); update_tenant with locales adds it", l, strings.Join(ls, ", "))
	}
	return l, nil
}

// ReadLocale checks that locale is one of the company's locales (its
// default too) and returns it as the company writes it; "" reads the
// default.
func (t *Tenant) ReadLocale(field, locale string) (string, error) {
	ls := t.Languages()
	if locale == "" {
		return ls[0], nil
	}
	l, err := CanonicalLocale(field, locale)
	if err != nil {
		return "", err
	}
	if !slices.Contains(ls, l) {
		return "", Invalid(field, "%s is not one of the company's locales (%s)", l, strings.Join(ls, ", "))
	}
	return l, nil
}

func otherLocales(ls []string) string {
	if len(ls) < 2 {
		return "none yet"
	}
	return strings.Join(ls[1:], ", ")
}

// CanonicalLocale checks a BCP 47 tag and returns it in its canonical
// form ("PT-br" → "pt-BR", "es-419" stays, "iw" → "he").
func CanonicalLocale(field, tag string) (string, error) {
	tag = strings.TrimSpace(tag)
	if tag == "" || len(tag) > 35 {
		return "", Invalid(field, "%q is not a BCP 47 language tag (such as pt-BR, es or en-US)", tag)
	}
	t, err := language.Parse(tag)
	if err != nil || t == language.Und {
		return "", Invalid(field, "%q is not a BCP 47 language tag (such as pt-BR, es or en-US)", tag)
	}
	return t.String(), nil
}

// ParseLocales checks a company's locales, the first its default, and
// returns them canonical, each once.
func ParseLocales(field string, tags []string) ([]string, error) {
	if len(tags) == 0 {
		return nil, Invalid(field, "%s needs at least one locale, the first the company's default", field)
	}
	if len(tags) > MaxLocales {
		return nil, Invalid(field, "%s holds %d locales; the limit is %d", field, len(tags), MaxLocales)
	}
	out := make([]string, 0, len(tags))
	for _, tag := range tags {
		l, err := CanonicalLocale(field, tag)
		if err != nil {
			return nil, err
		}
		if slices.Contains(out, l) {
			return nil, Invalid(field, "%s is given twice in %s", l, field)
		}
		out = append(out, l)
	}
	return out, nil
}

// EncodeLocales and DecodeLocales turn a company's locales into the text
// they are stored as (tags separated by spaces) and back.
func EncodeLocales(ls []string) string {
	if len(ls) == 0 {
		return DefaultLocale
	}
	return strings.Join(ls, " ")
}

// DecodeLocales reads what EncodeLocales wrote.
func DecodeLocales(s string) []string {
	ls := strings.Fields(s)
	if len(ls) == 0 {
		return []string{DefaultLocale}
	}
	return ls
}
