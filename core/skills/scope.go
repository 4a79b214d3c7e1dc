package skills

import (
	"fmt"
	"slices"
)

// SourceKind is the tier of a [SourceScope]; it orders scopes when two
// define a skill of the same name. The zero value is [Custom].
type SourceKind string

// The source kinds, lowest precedence first.
const (
	BuiltIn         SourceKind = "built_in"         // first-party skills bundled by the host
	UserShared      SourceKind = "user_shared"      // a user's shared skills (.agents/skills)
	UserTool        SourceKind = "user_tool"        // a user's starweaver skills (skills)
	WorkspaceShared SourceKind = "workspace_shared" // a workspace's shared skills (.agents/skills)
	WorkspaceTool   SourceKind = "workspace_tool"   // a workspace's starweaver skills (skills)
	Custom          SourceKind = "custom"           // caller-defined; ordered as given
)

// Precedence is the kind's rank: BuiltIn 0, UserShared 10, UserTool 20,
// WorkspaceShared 30, WorkspaceTool 40, Custom (and "") 50; -1 for an
// unknown kind. A higher rank wins a duplicate name.
func (k SourceKind) Precedence() int {
	switch k {
	case BuiltIn:
		return 0
	case UserShared:
		return 10
	case UserTool:
		return 20
	case WorkspaceShared:
		return 30
	case WorkspaceTool:
		return 40
	case Custom, "":
		return 50
	}
	return -1
}

func (k SourceKind) orCustom() SourceKind {
	if k == "" {
		return Custom
	}
	return k
}

// The directories a scope searches by default.
var (
	sharedDirs  = []string{".agents/skills"}
	toolDirs    = []string{"skills"}
	defaultDirs = []string{".agents/skills", "skills"}
)

// SourceScope is where skills are searched: each of Directories under
// Root (relative provider paths; "" is the provider's root), for the
// subdirectories holding a SKILL.md.
//
// Nil Directories means the kind's default: [".agents/skills", "skills"]
// for Custom, ["skills"] for BuiltIn, UserTool and WorkspaceTool,
// [".agents/skills"] for UserShared and WorkspaceShared. A non-nil empty
// list searches nothing.
type SourceScope struct {
	Root        string     `json:"root"`
	Kind        SourceKind `json:"kind,omitempty"`
	Directories []string   `json:"directories,omitempty"`
}

// NewScope returns a Custom scope of root with the default directories
// [".agents/skills", "skills"]: with a duplicate name, skills/ wins.
func NewScope(root string) SourceScope { return SourceScope{Root: root, Kind: Custom} }

// BuiltInScope returns a BuiltIn scope of root (directories ["skills"]).
func BuiltInScope(root string) SourceScope { return SourceScope{Root: root, Kind: BuiltIn} }

// UserSharedScope returns a UserShared scope of root (directories
// [".agents/skills"]).
func UserSharedScope(root string) SourceScope { return SourceScope{Root: root, Kind: UserShared} }

// UserToolScope returns a UserTool scope of root (directories ["skills"]).
func UserToolScope(root string) SourceScope { return SourceScope{Root: root, Kind: UserTool} }

// WorkspaceSharedScope returns a WorkspaceShared scope of root
// (directories [".agents/skills"]).
func WorkspaceSharedScope(root string) SourceScope {
	return SourceScope{Root: root, Kind: WorkspaceShared}
}

// WorkspaceToolScope returns a WorkspaceTool scope of root (directories
// ["skills"]).
func WorkspaceToolScope(root string) SourceScope { return SourceScope{Root: root, Kind: WorkspaceTool} }

// WithDirectories returns s searching dirs instead.
func (s SourceScope) WithDirectories(dirs ...string) SourceScope {
	s.Directories = append([]string{}, dirs...)
	return s
}

// Dirs returns the directories s searches, in order (a later directory
// wins a duplicate name).
func (s SourceScope) Dirs() []string {
	if s.Directories != nil {
		return slices.Clone(s.Directories)
	}
	switch s.Kind.orCustom() {
	case UserShared, WorkspaceShared:
		return slices.Clone(sharedDirs)
	case BuiltIn, UserTool, WorkspaceTool:
		return slices.Clone(toolDirs)
	}
	return slices.Clone(defaultDirs)
}

// ordered returns the indexes of scopes in scan order: ascending
// (precedence, index), so later inserts (which replace) win. An unknown
// kind is an error.
func ordered(scopes []SourceScope) ([]int, error) {
	idx := make([]int, len(scopes))
	for i, s := range scopes {
		if s.Kind.Precedence() < 0 {
			return nil, fmt.Errorf("%w: unknown source kind %q", ErrInvalidScope, s.Kind)
		}
		idx[i] = i
	}
	slices.SortStableFunc(idx, func(a, b int) int {
		return scopes[a].Kind.Precedence() - scopes[b].Kind.Precedence()
	})
	return idx, nil
}
