package agent

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/starweaver-go/starweaver/core/model"
	"github.com/starweaver-go/starweaver/core/tool"
)

// DefaultOutputName is the name of the output tool when OutputSpec.Name is
// empty (pydantic-ai's name).
const DefaultOutputName = "final_result"

// defaultOutputDescription describes the output tool when the spec does not.
const defaultOutputDescription = "The final response which ends this conversation"

// What the model reads after a final output call (pydantic-ai's texts): the
// output call's own return, and the return of every other call of the same
// response, which is not executed.
const (
	outputProcessed   = "Final result processed."
	outputNotExecuted = "Tool not executed - a final result was already processed."
	// outputNotChecked answers the output calls after the first of a
	// response.
	outputNotChecked = "Tool not executed - only the first final result call of a response is checked."
	// outputTextRetry asks a model that answered with text for the call.
	outputTextRetry = "Please include your response in a tool call."
)

// OutputValidator checks (and may rewrite) a structured answer that matched
// the output schema. It returns the value to keep (nil keeps value as it
// is) or an error: a tool.ModelRetry (or tool.InvalidArguments) error goes
// back to the model as a retry prompt within the output-retry budget; any
// other error fails the run. tc describes the output call (its id is empty
// in native mode); tc.Retry counts the corrections made so far and
// tc.MaxRetries is the budget.
type OutputValidator func(ctx context.Context, tc *tool.Context, value json.RawMessage) (json.RawMessage, error)

// OutputSpec asks for a structured final answer, as pydantic-ai's output
// types do.
//
// In tool mode (the default) every request carries the definition of an
// output tool (named Name, kind "output" in its metadata) and
// Params.Output; the run ends when the model calls it with arguments that
// match Schema and pass the validators. In native mode no tool is added:
// the provider's JSON-schema response format is asked for through
// Params.Output, and the response text is parsed and validated the same
// way.
//
// Invalid output (a schema mismatch, a validator's ModelRetry, text where
// the output tool was expected) goes back to the model as a retry prompt;
// each one spends the output-retry budget (Builder.OutputRetries), and the
// run fails with a *RetryLimitError (Output set) once it is spent.
//
// When the response that calls the output tool also calls other tools, the
// output wins (pydantic-ai's default "early" strategy): the run ends with
// the output, and the other calls are not executed; their returns say so,
// so the history stays well formed for the next run of the session.
type OutputSpec struct {
	// Name of the output tool; DefaultOutputName when empty.
	Name        string
	Description string
	// Schema is the JSON Schema of the answer, an object schema.
	Schema map[string]any
	// Mode is model.OutputTool (the default when empty) or
	// model.OutputNative.
	Mode   string
	Strict bool
	// Validators run in order after the schema check.
	Validators []OutputValidator
}

// ToolName returns the output tool's name: Name, or DefaultOutputName when
// Name is empty.
func (s OutputSpec) ToolName() string {
	if s.Name == "" {
		return DefaultOutputName
	}
	return s.Name
}

// output is an agent's compiled OutputSpec.
type output struct {
	spec OutputSpec
	// def is the output tool's normalised definition.
	def tool.Definition
	// reg holds the output tool alone: arguments are checked by the same
	// path as every tool's (limits, normalised schema, schema cache).
	reg     *tool.Registry
	retries int
}

// Output makes the agent's runs end with a structured answer (see
// OutputSpec). Build reports an invalid spec as ErrConfig.
func (b *Builder) Output(spec OutputSpec) *Builder {
	s := spec
	s.Validators = append([]OutputValidator(nil), spec.Validators...)
	b.opts.Output = &s
	return b
}

// OutputRetries sets the output-retry budget: how many invalid answers the
// model may correct before the run fails. It defaults to the agent's
// MaxRetries, else tool.DefaultMaxRetries (3): the same budget as a tool's
// corrections, where pydantic-ai defaults to 1. n must not be negative.
func (b *Builder) OutputRetries(n int) *Builder {
	if err := checkOutputRetries(n); err != nil {
		b.fail(err)
	}
	b.opts.OutputRetries = &n
	return b
}

// buildOutput compiles the agent's output spec, if any.
func (a *Agent) buildOutput() (*output, error) {
	spec := a.outputSpec
	if spec == nil {
		return nil, nil
	}
	o := &output{spec: *spec}
	o.spec.Name = o.spec.ToolName()
	if o.spec.Description == "" {
		o.spec.Description = defaultOutputDescription
	}
	switch o.spec.Mode {
	case "":
		o.spec.Mode = model.OutputTool
	case model.OutputTool, model.OutputNative:
	default:
		return nil, fmt.Errorf("%w: output mode must be %q or %q, got %q", ErrConfig, model.OutputTool, model.OutputNative, o.spec.Mode)
	}
	if o.spec.Schema == nil {
		return nil, fmt.Errorf("%w: output %q has no schema", ErrConfig, o.spec.Name)
	}
	switch {
	case a.outputRetries != nil:
		o.retries = *a.outputRetries
	case a.maxRetries != nil:
		o.retries = *a.maxRetries
	default:
		o.retries = tool.DefaultMaxRetries
	}
	validators, budget := o.spec.Validators, o.retries
	fn := tool.New(o.spec.Name, o.spec.Description, o.spec.Schema,
		func(ctx context.Context, tc *tool.Context, args json.RawMessage) (tool.Result, error) {
			c := *tc
			c.MaxRetries = budget
			value := args
			for _, v := range validators {
				out, err := v(ctx, &c, value)
				if err != nil {
					return tool.Result{}, err
				}
				if out != nil {
					if !json.Valid(out) {
						return tool.Result{}, tool.UserError("an output validator returned a value that is not JSON")
					}
					value = out
				}
			}
			return tool.Result{Content: value}, nil
		}).WithKind(tool.KindOutput).WithStrict(o.spec.Strict).WithMaxRetries(0)
	o.reg = &tool.Registry{}
	o.reg.SetSchemaCache(a.schemas)
	if err := o.reg.Add(fn); err != nil {
		return nil, fmt.Errorf("%w: output: %w", ErrConfig, err)
	}
	defs := o.reg.DefinitionsFor(&tool.RunContext{}).Definitions
	if len(defs) != 1 {
		return nil, fmt.Errorf("%w: output %q has no definition", ErrConfig, o.spec.Name)
	}
	o.def = defs[0]
	return o, nil
}

// params is what a request carries about the output.
func (o *output) params() *model.Output {
	return &model.Output{Mode: o.spec.Mode, Name: o.spec.Name, Description: o.spec.Description,
		Schema: o.def.Parameters, Strict: o.spec.Strict}
}

// outputVerdict is what the run does with one response when an output is
// required.
type outputVerdict struct {
	// value is set when the response holds a valid answer.
	value json.RawMessage
	// retry is set when the model must correct its answer.
	retry *model.Part
	// err fails the run.
	err error
}

// check validates one candidate answer: the arguments of an output call
// (call.ID set) or the text of a native answer.
func (r *runner) checkOutput(ctx context.Context, step int, call tool.Call) outputVerdict {
	o := r.a.output
	base := r.baseContext(step)
	base.Artifacts, base.Retry = nil, r.outputRetries
	ret := o.reg.Execute(ctx, base, call)
	switch ret.ErrorKind() {
	case "":
		value, _ := ret.Content.(json.RawMessage)
		if value == nil {
			b, err := json.Marshal(ret.Content)
			if err != nil {
				return outputVerdict{err: fmt.Errorf("%w: output: %v", ErrModel, err)}
			}
			value = b
		}
		return outputVerdict{value: value}
	case tool.ErrorKindInvalidArguments, tool.ErrorKindModelRetry:
		msg, _ := ret.Metadata[tool.MetaMessage].(string)
		p := model.RetryPrompt(msg, call.ID)
		return outputVerdict{retry: &p}
	case tool.ErrorKindCancelled:
		if ctx.Err() != nil {
			return outputVerdict{err: ctx.Err()}
		}
	}
	// The run's error is the application's: the full message.
	return outputVerdict{err: fmt.Errorf("%w: output validation of %q failed: %s", ErrOutput, o.spec.Name, tool.ErrorMessage(ret))}
}

// spendOutputRetry counts one correction of the output, failing the run
// once the budget is spent.
func (r *runner) spendOutputRetry() error {
	budget := r.a.output.retries
	if r.outputRetries >= budget {
		return &RetryLimitError{Tool: r.a.output.spec.Name, MaxRetries: budget, Output: true}
	}
	r.outputRetries++
	return nil
}

// nativeCall is the candidate answer of a native-mode response: its text,
// checked as JSON first so that a non-JSON answer gets a clear prompt.
func (r *runner) nativeCall(text string) (tool.Call, *model.Part) {
	text = strings.TrimSpace(text)
	if !json.Valid([]byte(text)) {
		p := model.RetryPrompt("Your response is not valid JSON. Answer with a JSON value that matches the response schema.", "")
		return tool.Call{}, &p
	}
	return tool.Call{Name: r.a.output.spec.Name, Arguments: json.RawMessage(text)}, nil
}

// refusal returns the text of the response's refusal parts.
func refusal(m model.Message) (string, bool) {
	var parts []string
	found := false
	for _, p := range m.Parts {
		if p.Kind == model.KindRefusal {
			found = true
			parts = append(parts, p.Text)
		}
	}
	return strings.Join(parts, "\n"), found
}
