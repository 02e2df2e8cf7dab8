package doc_test

import (
	"bytes"
	"encoding/json"
	"flag"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/fnapi/fnapi/doc"
	"github.com/fnapi/fnapi/doc/testdata/sampleapi"
	"github.com/fnapi/fnapi/registry"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata/golden")

// sample returns the sample API with doc registered.
func sample(t testing.TB, opts ...doc.Option) *registry.Registry {
	t.Helper()
	reg, err := sampleapi.Registry()
	if err != nil {
		t.Fatal(err)
	}
	if err := doc.Register(reg, opts...); err != nil {
		t.Fatal(err)
	}
	return reg
}

// golden compares got, indented, with testdata/golden/name, or rewrites it with -update.
func golden(t *testing.T, name string, got []byte) {
	t.Helper()
	var b bytes.Buffer
	if err := json.Indent(&b, got, "", "\t"); err != nil {
		t.Fatalf("not JSON: %v", err)
	}
	b.WriteByte('\n')
	path := filepath.Join("testdata", "golden", name)
	if *update {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, b.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test -update to write it)", err)
	}
	if !bytes.Equal(b.Bytes(), want) {
		t.Errorf("%s differs from the golden file (run go test -update and review the diff):\n%s", name, b.Bytes())
	}
}

// validatorDir holds the Node.js validator of the tests (see its package.json).
const validatorDir = "testdata/openapi"

// validate runs the Node.js validator (testdata/openapi/validate.mjs) in mode on data. It
// skips the test when node or the validator's packages are missing, except under CI, where it
// fails: CI installs them with
//
//	npm ci --prefix doc/testdata/openapi --no-audit --no-fund
func validate(t *testing.T, mode string, data []byte) {
	t.Helper()
	if out, err := runValidator(t, mode, data); err != nil {
		t.Fatalf("%s document is not valid: %v\n%s", mode, err, out)
	}
}

// runValidator runs the validator and returns its output, and an error when it finds the
// document invalid.
func runValidator(t *testing.T, mode string, data []byte) ([]byte, error) {
	t.Helper()
	node, err := exec.LookPath("node")
	if err == nil {
		_, err = os.Stat(filepath.Join(validatorDir, "node_modules", "@seriousme", "openapi-schema-validator", "package.json"))
	}
	if err != nil {
		msg := "the OpenAPI validator needs node and its packages: npm ci --prefix doc/testdata/openapi (" + err.Error() + ")"
		if os.Getenv("CI") == "true" {
			t.Fatal(msg)
		}
		t.Skip(msg)
	}
	file := filepath.Join(t.TempDir(), mode+".json")
	if err := os.WriteFile(file, data, 0o644); err != nil {
		t.Fatal(err)
	}
	cmd := exec.CommandContext(t.Context(), node, "validate.mjs", mode, file)
	cmd.Dir = validatorDir
	return cmd.CombinedOutput()
}
