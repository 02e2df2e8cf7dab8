package fnapi_test

import (
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/fnapi/fnapi/apierr"
	"github.com/fnapi/fnapi/internal/testutil"
)

// TestDocsCodes holds docs/errors.md's table of error codes to apierr's catalogue, both ways: each
// code of the catalogue has a row, with its status and, in `code`, each attribute it declares;
// a row names no code, status or attribute the catalogue does not declare. A row may name
// several codes (`NOT-FOUND` / `CONFLICT`), with their statuses in the same order (404 / 409)
// and their attributes together.
func TestDocsCodes(t *testing.T) {
	t.Parallel()
	decls := map[apierr.Code]*apierr.Declaration{}
	for _, d := range apierr.Catalogue() {
		decls[d.Code()] = d
	}
	inTable := map[apierr.Code]bool{}
	for _, row := range testutil.Table(t, "docs/errors.md", "Code", "Status", "When", "Attributes") {
		codes := testutil.Code(row[0])
		statuses := strings.Split(row[1], "/")
		if len(statuses) != len(codes) {
			t.Errorf("docs/errors.md row %v: %d codes but %d statuses", codes, len(codes), len(statuses))
			continue
		}
		var declared []string
		for i, c := range codes {
			d := decls[apierr.Code(c)]
			if d == nil {
				t.Errorf("docs/errors.md lists %s, which apierr.Catalogue does not declare: remove the row or declare the code", c)
				continue
			}
			inTable[d.Code()] = true
			// "504 (408)": the code's status, then an exception in parentheses.
			status, _, _ := strings.Cut(strings.TrimSpace(statuses[i]), " ")
			if n, err := strconv.Atoi(status); err != nil || n != d.Status() {
				t.Errorf("docs/errors.md gives %s status %q; apierr declares %d", c, statuses[i], d.Status())
			}
			for _, a := range d.Attributes() {
				declared = append(declared, a.Name())
			}
		}
		listed := testutil.Code(row[3])
		for _, a := range declared {
			if !slices.Contains(listed, a) {
				t.Errorf("docs/errors.md row %v lacks the attribute `%s` that apierr declares", codes, a)
			}
		}
		for _, a := range listed {
			if !slices.Contains(declared, a) {
				t.Errorf("docs/errors.md row %v names `%s`, which none of its codes declares as an attribute", codes, a)
			}
		}
	}
	for _, d := range apierr.Catalogue() {
		if !inTable[d.Code()] {
			t.Errorf("apierr declares %s (%d: %s), which docs/errors.md's table of codes lacks: add a row", d.Code(), d.Status(), d.Description())
		}
	}
}
