// Package skills provides fileops-loaded skills: markdown packages an agent
// discovers through an environment ([env.Provider]) and reads when a task
// matches them, as in the agent-skills convention of a directory per skill
// holding a SKILL.md file.
//
// A SKILL.md starts with YAML frontmatter between "---" lines, with a
// required name and description; its other keys are kept as metadata, and
// the markdown after the frontmatter is the skill's body (see [Parse]).
//
// [Scan] reads the summaries (no bodies) of every "<dir>/*/SKILL.md"
// under the directories of a list of [SourceScope]s, into a [Registry]
// keyed by name. Scopes have a precedence by kind (built-in lowest,
// custom highest) so that a workspace's skill replaces a user's skill of
// the same name deterministically. Scan is strict: the first malformed
// or unreadable file fails it. [ScanWithReport] is lenient: it skips such
// files and says why in [Diagnostic]s, as it does for replaced
// duplicates. [Activate] reads one skill with its body.
//
// The model sees the skills through [Toolset], a toolset with no tools
// and one instruction: a routing policy and one line per skill, pointing
// at its SKILL.md for the model to read with the filesystem tools. A
// [ScanReport]'s toolset also publishes the report as a skills_scanned
// context event when each run starts.
//
// Hosts that watch skill directories reload a registry with
// [Registry.Reload], which compares the new scan with the registry
// ([Change]s: added, removed, modified) and publishes skills_reloaded;
// [Registry.ReloadIfDue] does it when a [ReloadBinding] says a reload is
// due, by interval or after a debounced inventory change.
//
// Registries are read-only once built and safe for concurrent use.
// Events never carry a skill's body.
package skills
