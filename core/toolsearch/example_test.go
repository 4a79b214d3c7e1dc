package toolsearch_test

import (
	"fmt"

	"github.com/starweaver-go/starweaver/core/toolsearch"
)

func ExampleIndex_Search() {
	ix := toolsearch.New([]toolsearch.Entry{
		{Name: "github_create_issue", Namespace: "github", Description: "Create an issue."},
		{Name: "github_list_issues", Namespace: "github", Description: "List issues."},
		{Name: "audio_listen", Description: "Listen to an audio stream."},
		{Name: "github", Namespace: "github", Description: "GitHub repositories and issues", IsNamespace: true},
	})
	for _, h := range ix.Search("list issues", 3) {
		fmt.Println(h.Name)
	}
	// Output:
	// github_list_issues
	// github_create_issue
	// audio_listen
}
