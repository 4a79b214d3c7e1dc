package toolsearch_test

import (
	"fmt"
	"strings"

	"github.com/starweaver-go/starweaver/core/toolsearch"
)

// product is one namespace of the generated corpus: a toolset id, the
// product name descriptions use, the naming style of its tools and the
// objects and verbs they combine.
type product struct {
	id, title, prefix string
	camel             bool
	objects           []string
	verbs             []string
}

var verbText = map[string]string{
	"create": "Create a new", "get": "Get the details of a", "list": "List every", "update": "Update an existing",
	"delete": "Permanently delete a", "search": "Search for a", "post": "Post a", "archive": "Archive a",
}

var products = []product{
	{"github", "GitHub", "github", false, []string{"issue", "pull_request", "branch", "repository", "release", "comment", "label", "workflow_run", "gist", "commit"}, []string{"create", "get", "list", "update", "delete", "search"}},
	{"jira", "Jira", "jira", false, []string{"issue", "sprint", "board", "epic", "project", "worklog", "comment", "attachment", "version", "component"}, []string{"create", "get", "list", "update", "delete", "search"}},
	{"slack", "Slack", "slack", true, []string{"message", "channel", "reaction", "reminder", "user_group", "file", "bookmark", "thread", "emoji", "status"}, []string{"post", "get", "list", "update", "delete", "search"}},
	{"filesystem", "the workspace", "fs", false, []string{"file", "directory", "symlink", "permission", "archive", "snapshot", "mount", "quota", "lock", "tag"}, []string{"create", "get", "list", "update", "delete", "search"}},
	{"postgres", "PostgreSQL", "pg", false, []string{"table", "index", "query", "schema", "role", "extension", "backup", "connection", "view", "trigger"}, []string{"create", "get", "list", "update", "delete", "search"}},
	{"calendar", "Google Calendar", "calendar", false, []string{"event", "calendar", "attendee", "reminder", "availability", "room", "invitation", "recurrence", "timezone", "color"}, []string{"create", "get", "list", "update", "delete", "search"}},
	{"email", "Gmail", "email", false, []string{"message", "draft", "label", "attachment", "thread", "filter", "contact", "signature", "alias", "vacation_responder"}, []string{"create", "get", "list", "update", "delete", "archive"}},
	{"stripe", "Stripe", "stripe", false, []string{"customer", "invoice", "payment_intent", "subscription", "refund", "product", "price", "coupon", "payout", "dispute"}, []string{"create", "get", "list", "update", "delete", "search"}},
	{"kubernetes", "the Kubernetes cluster", "k8s", false, []string{"pod", "deployment", "service", "namespace", "secret", "config_map", "node", "ingress", "job", "cron_job"}, []string{"create", "get", "list", "update", "delete", "search"}},
	{"aws_s3", "Amazon S3", "s3", true, []string{"bucket", "object", "bucket_policy", "lifecycle_rule", "multipart_upload", "access_point", "replication", "inventory", "cors_rule", "object_lock"}, []string{"create", "get", "list", "update", "delete", "search"}},
}

// corpus generates the test catalogue: every verb × object of each
// product, scaled by copies (copy k > 0 suffixes ids and names with k),
// plus a few odd tools that trap naive scoring. copies=1 gives 600+ tools.
func corpus(copies int) []toolsearch.Entry {
	var out []toolsearch.Entry
	for k := 0; k < copies; k++ {
		for _, p := range products {
			ns, prefix := p.id, p.prefix
			if k > 0 {
				ns, prefix = fmt.Sprintf("%s%d", p.id, k), fmt.Sprintf("%s%d", p.prefix, k)
			}
			for _, o := range p.objects {
				words := strings.ReplaceAll(o, "_", " ")
				for _, v := range p.verbs {
					out = append(out, toolsearch.Entry{
						Name:        toolName(prefix, v, o, p.camel),
						Namespace:   ns,
						Description: fmt.Sprintf("%s %s in %s.", verbText[v], words, p.title),
						Parameters:  params(v, o),
					})
				}
			}
			out = append(out, toolsearch.Entry{Name: ns, Namespace: ns, Description: "Toolset: " + ns, IsNamespace: true})
		}
		out = append(out,
			toolsearch.Entry{Name: fmt.Sprintf("audio_listen%d", k), Namespace: "", Description: "Listen to an audio stream and transcribe it."},
			toolsearch.Entry{Name: fmt.Sprintf("weather_forecast%d", k), Namespace: "", Description: "Get the weather forecast for a city.",
				Parameters: map[string]any{"type": "object", "properties": map[string]any{"city": map[string]any{}, "days": map[string]any{}}}},
		)
	}
	return out
}

func toolName(prefix, verb, object string, camel bool) string {
	if !camel {
		return prefix + "_" + verb + "_" + object
	}
	var b strings.Builder
	b.WriteString(prefix)
	for _, w := range append([]string{verb}, strings.Split(object, "_")...) {
		b.WriteString(strings.ToUpper(w[:1]) + w[1:])
	}
	return b.String()
}

func params(verb, object string) map[string]any {
	props := map[string]any{}
	switch verb {
	case "create", "post":
		props[object+"_name"] = map[string]any{"type": "string"}
		props["body"] = map[string]any{"type": "string"}
	case "list":
		props["limit"] = map[string]any{"type": "integer"}
		props["cursor"] = map[string]any{"type": "string"}
	case "search":
		props["query"] = map[string]any{"type": "string"}
	default:
		props[object+"_id"] = map[string]any{"type": "string"}
	}
	if object == "cron_job" && verb == "create" {
		props["schedule"] = map[string]any{"type": "string"}
	}
	return map[string]any{"type": "object", "properties": props}
}
