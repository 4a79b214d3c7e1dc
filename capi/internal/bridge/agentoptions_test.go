package bridge

import (
	"reflect"
	"strings"
	"testing"

	"github.com/starweaver-go/starweaver/core/agent"
)

// TestEveryAgentOptionIsOnTheWireOrNot checks that each exported field of
// agent.Options says whether the agent spec carries it: a json tag naming
// its wire field, which agentSpec decodes straight into the embedded
// Options (no field of agentSpec's own takes the name), or "-" for an
// option the spec gives in another form. A new option without a tag fails
// here instead of being left off the wire unnoticed.
func TestEveryAgentOptionIsOnTheWireOrNot(t *testing.T) {
	own := map[string]string{}
	spec := reflect.TypeFor[agentSpec]()
	for i := range spec.NumField() {
		f := spec.Field(i)
		if f.Anonymous {
			continue
		}
		name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
		own[name] = f.Name
	}
	opts := reflect.TypeFor[agent.Options]()
	wire := 0
	for i := range opts.NumField() {
		f := opts.Field(i)
		if !f.IsExported() {
			continue
		}
		tag, ok := f.Tag.Lookup("json")
		if !ok || tag == "" {
			t.Errorf("agent.Options.%s has no json tag: give it its wire name, or \"-\" if the agent spec does not carry it as it is", f.Name)
			continue
		}
		name, _, _ := strings.Cut(tag, ",")
		if name == "-" {
			continue
		}
		wire++
		if field, taken := own[name]; taken {
			t.Errorf("agent.Options.%s is %q on the wire, which agentSpec.%s takes: tag one of them \"-\"", f.Name, name, field)
		}
		// The field decodes into the embedded Options: a JSON null is
		// accepted by every type, so the spec knows the name.
		var s agentSpec
		if err := decodeStrict([]byte(`{"`+name+`":null}`), &s); err != nil {
			t.Errorf("agent.Options.%s (%q): %v", f.Name, name, err)
		}
	}
	if wire == 0 {
		t.Fatal("no agent option is on the wire")
	}
}

// TestPlainAgentOptionsReachTheAgent decodes a few plain options and builds
// the agent from them.
func TestPlainAgentOptionsReachTheAgent(t *testing.T) {
	var s agentSpec
	spec := `{"name":"n","system_prompt":"p","instructions":["i"],"max_retries":2,"sequential":true,"batch_tool":true,"active_tags":["x"]}`
	if err := decodeStrict([]byte(spec), &s); err != nil {
		t.Fatal(err)
	}
	want := agent.Options{Name: "n", SystemPrompt: "p", Instructions: []string{"i"}, MaxRetries: new(2), Sequential: true, BatchTool: true, ActiveTags: []string{"x"}}
	if !reflect.DeepEqual(s.Options, want) {
		t.Fatalf("decoded %+v, want %+v", s.Options, want)
	}
}

// TestAPromotedFieldKeepsItsWireNameInErrors: a type error names the
// field as the host wrote it, not its path through agent.Options.
func TestAPromotedFieldKeepsItsWireNameInErrors(t *testing.T) {
	var s agentSpec
	err := decodeStrict([]byte(`{"max_concurrency":"x"}`), &s)
	const want = "json: cannot unmarshal string into Go struct field agentSpec.max_concurrency of type int"
	if err == nil || !strings.Contains(err.Error(), want) {
		t.Fatalf("got %v, want an error with %q", err, want)
	}
}
