package bridge

import (
	"strconv"
	"testing"
)

// The range checks of the specs are core's (env.ShellLimits,
// mcp.Timeouts, toolset.LifecycleTimeouts, catalog.Options.Validate,
// artifact.Config.Validate, skills.Package.Validate); the bridge reports
// each as invalid_spec with core's message, byte for byte.
func TestRangeErrorsKeepSlugAndMessage(t *testing.T) {
	check := func(name string, err error, want string) {
		t.Helper()
		if err == nil {
			t.Errorf("%s: no error, want %q", name, want)
			return
		}
		if ae := toABIError(err); ae.Type != "invalid_spec" || ae.Message != want {
			t.Errorf("%s: %s %q, want invalid_spec %q", name, ae.Type, ae.Message, want)
		}
	}
	h := strconv.FormatInt(testModelHandle(t), 10)
	for spec, want := range map[string]string{
		`"shell":{"root":"/","max_processes":0}`:                          "shell: max_processes must be positive, got 0",
		`"shell":{"root":"/","max_capture_bytes":-3}`:                     "shell: max_capture_bytes must be positive, got -3",
		`"shell":{"root":"/","max_processes":-1,"max_capture_bytes":512}`: "shell: max_processes must be positive, got -1",
	} {
		_, err := agentFromJSON(t, `{"model":`+h+`,`+spec+`}`)
		check(spec, err, want)
	}
	const stdio = `"transport":{"kind":"stdio","command":"c"}`
	const members = `"combined":[{"name":"m","tools":[{"id":1,"definition":{"name":"t"}}]}]`
	for spec, want := range map[string]string{
		`[{"name":"x","kind":"mcp","mcp":{` + stdio + `,"read_timeout_ms":0}}]`:                     `toolset "x": read_timeout_ms must be positive`,
		`[{"name":"x","id":"i","kind":"mcp","mcp":{` + stdio + `,"init_timeout_ms":-5}}]`:           `toolset "i": init_timeout_ms must be positive`,
		`[{"name":"x","kind":"mcp","timeout_ms":0,"mcp":{` + stdio + `}}]`:                          `toolset "x": timeout_ms must be positive`,
		`[{"name":"d","dynamic":{"callback":1},"lifecycle":{"initialization_timeout_ms":0}}]`:       `toolset "d": initialization_timeout_ms must be positive, got 0`,
		`[{"name":"d","dynamic":{"callback":1},"lifecycle":{"read_timeout_ms":-2}}]`:                `toolset "d": read_timeout_ms must be positive, got -2`,
		`[{"name":"d","dynamic":{"callback":1},"lifecycle":{"exit_timeout_ms":0}}]`:                 `toolset "d": exit_timeout_ms must be positive, got 0`,
		`[{"name":"c","id":"i",` + members + `,"catalog":{"kind":"tool_search","max_results":-1}}]`: `toolset "c": max_results must not be negative`,
		`[{"name":"c",` + members + `,"catalog":{"kind":"tool_proxy","max_results":-7}}]`:           `toolset "c": max_results must not be negative`,
	} {
		_, err := toolNames(t, spec)
		check(spec, err, want)
	}
	_, err := buildArtifactStore(artifactStoreSpec{Kind: "memory", MaxBytes: -1})
	check("artifact store", err, "artifact store max_bytes must be positive, got -1")
	_, err = buildArtifactStore(artifactStoreSpec{Kind: "sqlite", MaxBytes: -2})
	check("artifact store", err, "artifact store max_bytes must be positive, got -2")
}
