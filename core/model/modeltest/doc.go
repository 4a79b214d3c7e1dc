// Package modeltest is the conformance suite every provider model passes:
// the same scenarios (plain text, a tool round trip, parallel calls,
// structured output, streaming deltas, error mapping and retries, usage,
// and the content kinds of tool results) run against each provider's fake
// server, which speaks that provider's wire format. It does for models what
// core/session/sessiontest does for session stores.
//
// A provider's test supplies a [Provider]: a [Fake] server built from the
// API's documented shapes (JSON and its stream format), which answers
// scripted [Turn]s and decodes what it received into [Seen] values, and a
// constructor of the model under test pointed at it. [Run] then checks the
// model against the suite. [NewHTTPFake] is such a server for any HTTP
// API: a [Wire] says how its requests read and its answers look, and it
// keeps the script, records the requests, sends the Retry-After headers of
// error turns and cuts the connection of a Turn.Cut halfway, holds a
// Turn.Hold unanswered and stalls a Turn.Stall after its headers.
//
// Besides the suite, the package holds the small helpers the providers'
// own tests share: [Replay], a scripted httptest server recording the
// requests of their wire tests; [ProviderError], [Collect] and
// [DeltaLines] for their checks; [Measure], [CPUTime] and [Canned] for
// their benchmarks; [LiveToolRoundTrip] for their opt-in live tests;
// [ServeFile] and [RestoreEnv] for their examples.
//
// Where an API cannot do something the suite asks, the Provider says so
// and the suite checks the refusal instead: structured output without a
// native schema ([Provider.NativeOutput] false) fails before any request is
// sent; a content kind a provider does not carry ([Provider.Carries],
// [Provider.NoURL]) fails the request with an error naming the kind.
package modeltest
