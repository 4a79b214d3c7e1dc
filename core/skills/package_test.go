package skills_test

import (
	"errors"
	"testing"

	"github.com/starweaver-go/starweaver/core/skills"
)

func TestPackageValidate(t *testing.T) {
	if err := (skills.Package{Name: "a", Description: "d", Path: "p"}).Validate(); err != nil {
		t.Fatal(err)
	}
	for _, p := range []skills.Package{{Description: "d", Path: "p"}, {Name: "a", Path: "p"}, {Name: "a", Description: "d"}} {
		err := p.Validate()
		if err == nil || err.Error() != `toolset "skills": a package needs a name, a description and a path` || !errors.Is(err, skills.ErrInvalidPackage) {
			t.Errorf("%+v: %v", p, err)
		}
	}
}
