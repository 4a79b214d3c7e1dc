package openai

import (
	"errors"

	"github.com/tidwall/gjson"
)

// The responses are decoded in one pass with gjson (the JSON library the
// SDK itself uses for its streams), field by field as the API reference
// names them; unknown fields are skipped. encoding/json's reflection made
// decoding alone cost 26 µs of a chat response, half the provider's
// budget.

var errMalformed = errors.New("malformed JSON")

// decodeChat decodes a chat completion or a chunk of one.
func decodeChat(b []byte, c *chatCompletion) error {
	if !gjson.ValidBytes(b) {
		return errMalformed
	}
	fields(gjson.ParseBytes(b), func(k, v gjson.Result) bool {
		switch k.Str {
		case "id":
			c.ID = v.String()
		case "model":
			c.Model = v.String()
		case "usage":
			if v.IsObject() {
				c.Usage = decodeChatUsage(v)
			}
		case "choices":
			c.Choices = nil // a repeated key: the last one wins, as in encoding/json
			each(v, func(_, ch gjson.Result) bool {
				c.Choices = append(c.Choices, decodeChoice(ch))
				return true
			})
		}
		return true
	})
	return nil
}

func decodeChoice(v gjson.Result) chatChoice {
	var ch chatChoice
	fields(v, func(k, v gjson.Result) bool {
		switch k.Str {
		case "index":
			ch.Index = int(v.Int())
		case "finish_reason":
			ch.FinishReason = v.String()
		case "message", "delta":
			ch.Message = decodeAnswer(v)
		}
		return true
	})
	return ch
}

func decodeAnswer(v gjson.Result) chatAnswer {
	var a chatAnswer
	fields(v, func(k, v gjson.Result) bool {
		switch k.Str {
		case "content":
			a.Content = str(v)
		case "refusal":
			a.Refusal = str(v)
		case "reasoning_content":
			if s := str(v); s != "" {
				a.Reasoning = s
			}
		case "reasoning":
			if s := str(v); s != "" && a.Reasoning == "" {
				a.Reasoning = s
			}
		case "tool_calls":
			a.ToolCalls = nil
			each(v, func(_, tc gjson.Result) bool {
				var d chatCallDelta
				fields(tc, func(k, v gjson.Result) bool {
					switch k.Str {
					case "index":
						d.Index = int(v.Int())
					case "id":
						d.ID = v.String()
					case "type":
						d.Type = v.String()
					case "function":
						fields(v, func(k, v gjson.Result) bool {
							switch k.Str {
							case "name":
								d.Name = v.String()
							case "arguments":
								d.Arguments = text(v)
							}
							return true
						})
					}
					return true
				})
				a.ToolCalls = append(a.ToolCalls, d)
				return true
			})
		}
		return true
	})
	return a
}

func decodeChatUsage(v gjson.Result) *chatUsage {
	u := &chatUsage{}
	fields(v, func(k, v gjson.Result) bool {
		switch k.Str {
		case "prompt_tokens":
			u.PromptTokens = int(v.Int())
		case "completion_tokens":
			u.CompletionTokens = int(v.Int())
		case "prompt_tokens_details":
			u.CachedTokens = int(v.Get("cached_tokens").Int())
			u.CacheWriteTokens = int(v.Get("cache_write_tokens").Int())
		case "completion_tokens_details":
			u.ReasoningTokens = int(v.Get("reasoning_tokens").Int())
		}
		return true
	})
	return u
}

// decodeResponses decodes a Responses API response.
func decodeResponses(b []byte, r *responsesResponse) error {
	if !gjson.ValidBytes(b) {
		return errMalformed
	}
	*r = decodeResponse(gjson.ParseBytes(b))
	return nil
}

func decodeResponse(v gjson.Result) responsesResponse {
	var r responsesResponse
	fields(v, func(k, v gjson.Result) bool {
		switch k.Str {
		case "id":
			r.ID = v.String()
		case "model":
			r.Model = v.String()
		case "status":
			r.Status = v.String()
		case "error":
			if v.IsObject() {
				r.ErrorCode, r.ErrorMessage = v.Get("code").String(), v.Get("message").String()
			}
		case "incomplete_details":
			r.IncompleteReason = v.Get("reason").String()
		case "output":
			r.Output = nil
			each(v, func(_, it gjson.Result) bool {
				r.Output = append(r.Output, decodeItem(it))
				return true
			})
		case "usage":
			if v.IsObject() {
				r.Usage = &responsesUsage{
					InputTokens:      int(v.Get("input_tokens").Int()),
					OutputTokens:     int(v.Get("output_tokens").Int()),
					CachedTokens:     int(v.Get("input_tokens_details.cached_tokens").Int()),
					CacheWriteTokens: int(v.Get("input_tokens_details.cache_write_tokens").Int()),
					ReasoningTokens:  int(v.Get("output_tokens_details.reasoning_tokens").Int()),
				}
			}
		}
		return true
	})
	return r
}

func decodeItem(v gjson.Result) outputItem {
	var it outputItem
	fields(v, func(k, v gjson.Result) bool {
		switch k.Str {
		case "type":
			it.Type = v.String()
		case "id":
			it.ID = v.String()
		case "call_id":
			it.CallID = v.String()
		case "name":
			it.Name = v.String()
		case "arguments":
			it.Arguments = text(v)
		case "encrypted_content":
			it.EncryptedContent = str(v)
		case "summary":
			it.Summary = nil
			each(v, func(_, s gjson.Result) bool {
				it.Summary = append(it.Summary, s.Get("text").String())
				return true
			})
		case "content":
			it.Content = nil
			each(v, func(_, c gjson.Result) bool {
				it.Content = append(it.Content, outputContent{
					Type: c.Get("type").String(), Text: c.Get("text").String(), Refusal: c.Get("refusal").String(),
				})
				return true
			})
		}
		return true
	})
	return it
}

// decodeStreamEvent decodes one streamed Responses event into e.
func decodeStreamEvent(b []byte, e *streamEvent) error {
	if !gjson.ValidBytes(b) {
		return errMalformed
	}
	fields(gjson.ParseBytes(b), func(k, v gjson.Result) bool {
		switch k.Str {
		case "type":
			e.Type = v.String()
		case "item":
			e.Item = decodeItem(v)
		case "response":
			e.Response = decodeResponse(v)
		case "code":
			e.Code = v.String()
		case "message":
			e.Message = v.String()
		case "delta":
			e.Delta = str(v)
		case "arguments":
			e.Arguments = text(v)
		case "output_index":
			e.OutputIndex = int(v.Int())
		case "summary_index":
			e.SummaryIndex = int(v.Int())
		}
		return true
	})
	return nil
}

// str is a string value, "" for null or another type.
func str(v gjson.Result) string {
	if v.Type == gjson.String {
		return v.Str
	}
	return ""
}

// text is a string value's text, or another value's JSON text ("" for
// null or absent).
func text(v gjson.Result) string {
	switch v.Type {
	case gjson.String:
		return v.Str
	case gjson.Null:
		return ""
	}
	return v.Raw
}

// fields calls fn for each member of an object; anything else has none
// (gjson's ForEach would call fn once with a scalar itself).
func fields(v gjson.Result, fn func(k, v gjson.Result) bool) {
	if v.IsObject() {
		v.ForEach(fn)
	}
}

// each calls fn for each element of an array; null or another value has
// none ("tool_calls": null is common).
func each(v gjson.Result, fn func(k, v gjson.Result) bool) {
	if v.IsArray() {
		v.ForEach(fn)
	}
}
