package skills

import (
	"context"
	"slices"
	"strings"

	"github.com/starweaver-go/starweaver/core/tool"
	"github.com/starweaver-go/starweaver/core/toolset"
)

// ToolsetName is the name, id and instruction group of the skills
// toolset.
const ToolsetName = "skills"

// NoSkills is the instruction of a skills toolset without skills.
const NoSkills = "No fileops-loaded skills are currently available."

// routingPolicy and activationProcedure frame the list of skills in the
// instruction: the model reads a matching skill's SKILL.md (with the
// filesystem tools) before it plans.
const routingPolicy = `<skill-routing-policy>
Skill use is mandatory when applicable.
At the start of every new user task, compare the request against <available-skills>.
If one or more skills match, you MUST read the matching skill's SKILL.md before planning or executing the task.
Prefer reading a possibly relevant skill over guessing from memory or improvising.
After reading a skill, follow its workflow unless it conflicts with higher-priority instructions or the user's explicit request.
If multiple skills match, chain them deliberately: read the most specific skill first, then read supporting skills before their workflow steps are needed.
For multi-phase tasks, re-check <available-skills> at phase boundaries and activate additional skills when the next phase matches them.
If you intentionally skip an apparently relevant skill, briefly state why.
</skill-routing-policy>`

const activationProcedure = `<skill-activation-procedure>
1. Identify matching skills from the descriptions in <available-skills>.
2. Read each matching skill by opening the SKILL.md file at the shown path.
3. If the task has multiple phases or adjacent domains, identify and read additional skills for those phases before executing them.
4. Read any additional reference files, scripts, or examples named by the activated skills.
5. Use available file, shell, web, or other tools to execute the activated skills' workflows.
6. Treat <available-skills> as an index only; the authoritative instructions live in SKILL.md.
</skill-activation-procedure>`

// Instruction is the skills instruction for pkgs: the routing policy, the
// packages' summary lines sorted, and the activation procedure; NoSkills
// when pkgs is empty.
func Instruction(pkgs []Package) string {
	if len(pkgs) == 0 {
		return NoSkills
	}
	lines := make([]string, len(pkgs))
	for i, p := range pkgs {
		lines[i] = p.SummaryLine()
	}
	slices.Sort(lines)
	return routingPolicy + "\n\n<available-skills>\nAvailable fileops-loaded skills:\n" +
		strings.Join(lines, "\n") + "\n</available-skills>\n\n" + activationProcedure
}

// Toolset returns the skills toolset of pkgs: named and identified
// "skills", with no tools and one instruction (group "skills", see
// Instruction). The model reads a skill with the filesystem tools, so an
// agent given this toolset needs them too.
func Toolset(pkgs []Package) *toolset.Static {
	return toolset.New(ToolsetName).WithID(ToolsetName).WithInstruction(ToolsetName, Instruction(pkgs))
}

// Toolset returns the skills toolset of r's packages.
func (r *Registry) Toolset() *toolset.Static { return Toolset(r.Packages()) }

// Toolset returns the skills toolset of the report's packages which also,
// when each run starts, publishes skills_scanned (ScannedPayload) on the
// run's agent context, followed by skill_activated for each package that
// holds its body. It is a toolset with a lifecycle ([toolset.Lifecycle]):
// the agent enters it once per run.
func (r *ScanReport) Toolset() toolset.Toolset {
	return &scanned{Static: Toolset(r.Registry.Packages()), report: r}
}

type scanned struct {
	*toolset.Static
	report *ScanReport
}

var _ toolset.Lifecycle = (*scanned)(nil)

// Enter publishes the report on the run's agent context.
func (s *scanned) Enter(_ context.Context, rc *tool.RunContext) error {
	if rc == nil || rc.Agent == nil {
		return nil
	}
	rc.Agent.Publish(EventScanned, ScannedPayload(s.report))
	for _, p := range s.report.Registry.Packages() {
		if p.Activated() {
			rc.Agent.Publish(EventActivated, ActivatedPayload(p))
		}
	}
	return nil
}

// Exit does nothing: the report holds no resource.
func (s *scanned) Exit(context.Context, *tool.RunContext) error { return nil }
