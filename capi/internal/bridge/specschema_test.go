package bridge

import (
	"bytes"
	"encoding"
	"encoding/json"
	"flag"
	"os"
	"path"
	"reflect"
	"testing"

	"github.com/invopop/jsonschema"
)

var updateSchema = flag.Bool("update-schema", false, "rewrite capi/spec.schema.json from the spec types")

// schemaFile is the JSON Schema of the specs a host sends, generated from
// the Go types that decode them; the Python package's tests check the
// specs it builds against it (python/tests/test_wire_schema.py).
const schemaFile = "../../spec.schema.json"

// wireSpecs names the JSON each C function decodes strictly: the
// schema's properties, keyed by the function.
type wireSpecs struct {
	ModelNew              modelSpec          `json:"sw_model_new"`
	AgentNew              agentSpec          `json:"sw_agent_new"`
	RunStart              runSpec            `json:"sw_run_start"`
	StoreOpen             storeSpec          `json:"sw_store_open"`
	ArtifactStoreNew      artifactStoreSpec  `json:"sw_artifact_store_new"`
	ArtifactPut           artifactPutSpec    `json:"sw_artifact_put"`
	ArtifactGet           artifactGetSpec    `json:"sw_artifact_get"`
	ArtifactList          artifactListSpec   `json:"sw_artifact_list"`
	ArtifactDelete        artifactDeleteSpec `json:"sw_artifact_delete"`
	ArtifactPurgeExpired  artifactPurgeSpec  `json:"sw_artifact_purge_expired"`
	SessionSetEnvironment environmentSpec    `json:"sw_session_set_environment"`
	SessionRestore        restoreSpec        `json:"sw_session_restore"`
	SkillsScan            skillsScanSpec     `json:"sw_skills_scan"`
	SkillsActivate        skillsActivateSpec `json:"sw_skills_activate"`
	CatalogHost           catalogRequest     `json:"sw_catalog_host"`
}

var (
	unmarshaler     = reflect.TypeFor[json.Unmarshaler]()
	textUnmarshaler = reflect.TypeFor[encoding.TextUnmarshaler]()
)

// specSchema reflects wireSpecs. decodeStrict refuses unknown fields in
// every struct it decodes itself, so each object forbids additional
// properties; a type that decodes itself (json.Unmarshaler) is left open
// to what its own decoder accepts, and one that decodes itself from text
// (encoding.TextUnmarshaler) is a string. Nothing is required: the host leaves
// out what it leaves at core's default.
func specSchema() ([]byte, error) {
	r := &jsonschema.Reflector{
		RequiredFromJSONSchemaTags: true,
		Namer: func(t reflect.Type) string {
			if t.Name() == "" || t.PkgPath() == reflect.TypeFor[wireSpecs]().PkgPath() {
				return t.Name()
			}
			return path.Base(t.PkgPath()) + "." + t.Name()
		},
		Mapper: func(t reflect.Type) *jsonschema.Schema {
			switch {
			case reflect.PointerTo(t).Implements(unmarshaler) || t.Implements(unmarshaler):
				return &jsonschema.Schema{Description: t.String() + " decodes itself"}
			case reflect.PointerTo(t).Implements(textUnmarshaler) || t.Implements(textUnmarshaler):
				return &jsonschema.Schema{Type: "string", Description: t.String() + " decodes itself from a string"}
			}
			return nil
		},
	}
	s := r.Reflect(wireSpecs{})
	s.ID = "https://github.com/starweaver-go/starweaver/capi/spec.schema.json"
	s.Title = "starweaver wire specs"
	s.Description = "The JSON specs of the C functions of starweaver.h, generated from capi/internal/bridge's spec types (go test ./capi/internal/bridge -run TestSpecSchema -update-schema)."
	b, err := json.MarshalIndent(s, "", "  ")
	if err != nil {
		return nil, err
	}
	return append(b, '\n'), nil
}

func TestSpecSchemaIsCurrent(t *testing.T) {
	want, err := specSchema()
	if err != nil {
		t.Fatal(err)
	}
	if *updateSchema {
		if err := os.WriteFile(schemaFile, want, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	got, err := os.ReadFile(schemaFile)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want) {
		t.Fatalf("%s is stale: run go test ./capi/internal/bridge -run TestSpecSchema -update-schema", schemaFile)
	}
}
