package tool

// Reason says why a registered tool is not offered to the model in a run
// context (see [Registry.AvailabilityReport]).
type Reason string

// The reasons of an availability report.
const (
	// ReasonUnavailable: the tool's availability check (Config.Available)
	// said no.
	ReasonUnavailable Reason = "unavailable"
	// ReasonHiddenByTags: an active capability tag is in the tool's
	// hidden_by_tags.
	ReasonHiddenByTags Reason = "hidden_by_tags"
	// ReasonPrepareHidden: the tool's prepare function (Config.Prepare)
	// returned no definition.
	ReasonPrepareHidden Reason = "prepare_hidden"
	// ReasonNotLoaded: the tool waits to be discovered (Config.Listed said
	// no: tool search has not loaded its name or namespace). It is not
	// reported unavailable.
	ReasonNotLoaded Reason = "not_loaded"
	// ReasonNotGranted: the run's grants leave the tool out (see
	// [Registry.Grant]). It is not reported unavailable.
	ReasonNotGranted Reason = "not_granted"
)

// Reasons returns every reason, in a fixed order.
func Reasons() []Reason {
	return []Reason{ReasonUnavailable, ReasonHiddenByTags, ReasonPrepareHidden, ReasonNotLoaded, ReasonNotGranted}
}

// AvailabilityReport is what a model would be offered in one run context
// and why each other registered tool is not.
type AvailabilityReport struct {
	// Definitions are the prepared definitions the model would receive,
	// sorted by name, as DefinitionsFor gives them.
	Definitions []Definition `json:"definitions"`
	// Available names the offered tools; Unavailable the tools a run
	// reports in its tools_unavailable event (and refuses under the
	// fail-run policy): those hidden by availability, tags or prepare.
	Available   []string `json:"available"`
	Unavailable []string `json:"unavailable"`
	// Reasons holds, for every registered tool that is not offered (the
	// unavailable ones, those tool search has not loaded and those the
	// grants leave out), why.
	Reasons map[string]Reason `json:"reasons"`
}

// AvailabilityReport prepares the definitions for rc as DefinitionsFor
// does (the same checks, in the same order: the runner's own path) and
// says why each tool left out is. A prepare or availability function runs
// once per tool, as it does for a run step.
func (r *Registry) AvailabilityReport(rc *RunContext) AvailabilityReport {
	reasons := map[string]Reason{}
	a := r.definitionsFor(rc, func(name string, why Reason) { reasons[name] = why })
	for n := range r.refused {
		reasons[n] = ReasonNotGranted
	}
	out := AvailabilityReport{Definitions: a.Definitions, Available: a.Available, Unavailable: a.Unavailable, Reasons: reasons}
	if out.Unavailable == nil {
		out.Unavailable = []string{}
	}
	return out
}
