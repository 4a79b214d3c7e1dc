// Package mcp provides toolsets whose tools live on a Model Context
// Protocol server: a [Toolset] connects to the server over a
// [Transport] (a local command speaking over stdio, or a streamable HTTP
// endpoint), lists its tools, and presents each as a [tool.Tool] built
// with [tool.New] from the server's input schema, so that the registry's
// normalisation and argument validation apply to MCP tools as to any
// other. It is built on the official Go SDK
// (github.com/modelcontextprotocol/go-sdk).
//
// A [Toolset] is related to a [toolset.Toolset] the way a remote
// filesystem is related to a local one: the same interface, with a
// connection behind it. The connection follows the toolset's lifecycle
// ([toolset.Lifecycle]): Enter starts the server (or connects to it) and
// Exit stops it; a toolset used without Enter connects on first use and,
// when the run context it was read with ends, disconnects again (see
// [Toolset.Tools]). Close stops the server at once. A server that cannot
// be started or does not answer the MCP handshake within the
// initialisation timeout is an error naming the toolset, never a hang.
//
// Tool lists are cached per connection and listed again when the server
// sends notifications/tools/list_changed. Calls go through the registry
// like any tool call: the call's context bounds it (the registry's
// timeouts included), and when that context ends before the server
// answers, the SDK sends notifications/cancelled for the request. MCP
// content (text, images, audio, embedded resources and resource links)
// becomes the content parts of a [tool.Result]; a result with isError
// set is a [tool.ModelError], which the model reads without any retry.
//
// Every definition carries the metadata keys [MetaServerID],
// [MetaTransport], [MetaToolName] and [MetaTask]. A Toolset is safe for
// concurrent use.
package mcp
