// Package model provides the conversation the agent loop keeps with a
// language model: messages and their parts, the Model interface, and two
// models for tests and custom logic: TestModel (scripted responses that
// records every request) and FunctionModel (a Go callback).
package model
