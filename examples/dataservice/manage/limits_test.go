package manage_test

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/fnapi/fnapi/examples/dataservice/manage"
	"github.com/fnapi/fnapi/examples/dataservice/state/statedb"
	"github.com/fnapi/fnapi/registry"
	"github.com/fnapi/fnapi/version"
)

// TestSchemaLimits ties the limits the schemas show (and enforce) to the package's constants,
// which the checks in code use: the two must not drift apart.
func TestSchemaLimits(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	st, err := statedb.OpenSQLite(ctx, t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	settings, err := manage.NewSettings(ctx, st)
	if err != nil {
		t.Fatal(err)
	}
	reg := registry.New()
	manage.MustRegister(reg, st, settings)
	maxLength := map[string]uint64{
		"id": manage.MaxIDLength, "dashboard": manage.MaxIDLength,
		"title": manage.MaxTitle, "description": manage.MaxDescription,
	}
	checked := 0
	for _, f := range reg.Funcs(version.MustParse("1.0")) {
		for _, p := range f.Params {
			var schema struct {
				MaxLength *uint64 `json:"maxLength"`
				MaxItems  *uint64 `json:"maxItems"`
			}
			if err := json.Unmarshal(p.Schema, &schema); err != nil {
				t.Fatalf("%s(%s): %v", f.Name, p.Name, err)
			}
			if want, ok := maxLength[p.Name]; ok {
				checked++
				if schema.MaxLength == nil || *schema.MaxLength != want {
					t.Errorf("%s(%s): schema maxLength %v, the code's limit %d", f.Name, p.Name, schema.MaxLength, want)
				}
			}
			if p.Name == "queries" {
				checked++
				if schema.MaxItems == nil || *schema.MaxItems != manage.MaxQueries {
					t.Errorf("%s(queries): schema maxItems %v, the code's limit %d", f.Name, schema.MaxItems, manage.MaxQueries)
				}
			}
		}
	}
	if checked < 10 {
		t.Fatalf("only %d arguments checked: the functions' arguments changed names?", checked)
	}
}
