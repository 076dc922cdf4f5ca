package catalog

// SetMaxAttributesPerTenant lowers the cap on a company's attribute
// definitions for a test, and returns what puts it back.
func SetMaxAttributesPerTenant(n int) (restore func()) {
	old := MaxAttributesPerTenant
	MaxAttributesPerTenant = n
	return func() { MaxAttributesPerTenant = old }
}
