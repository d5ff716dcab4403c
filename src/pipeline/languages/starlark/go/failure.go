package main

import (
	"errors"
	"fmt"

	"go.starlark.net/resolve"
	"go.starlark.net/starlark"
	"go.starlark.net/syntax"
)

// locate turns an interpreter error into a failure at the innermost position the error knows. A
// load() wraps the loaded file's error ("cannot load x: …"), so the chain is followed to its end:
// a syntax error in a loaded file is reported in that file, not at the load statement.
func locate(err error, thread *starlark.Thread, request evaluationRequest) *failure {
	located := &failure{File: request.Path, Message: err.Error()}
	for cause := err; cause != nil; cause = errors.Unwrap(cause) {
		if innermost, ok := failureOf(cause); ok {
			located = innermost
		}
	}
	if request.MaxSteps > 0 && thread.ExecutionSteps() >= request.MaxSteps {
		located.Message = fmt.Sprintf("exceeded %d steps, the step limit (Starlark computation cancelled: too many steps)", request.MaxSteps)
	}
	return located
}

// failureOf reads the position of one error of the chain, if it has one.
func failureOf(err error) (*failure, bool) {
	switch err := err.(type) {
	case *starlark.EvalError:
		// The innermost frame in a user's file: built-ins such as fail() have no position.
		for i := len(err.CallStack) - 1; i >= 0; i-- {
			if position := err.CallStack[i].Pos; position.IsValid() && position.Filename() != "<builtin>" {
				return at(position, err.Msg), true
			}
		}
	case syntax.Error:
		return at(err.Pos, err.Msg), true
	case resolve.ErrorList:
		message := err[0].Msg
		if len(err) > 1 {
			message = fmt.Sprintf("%s (and %d more errors)", message, len(err)-1)
		}
		return at(err[0].Pos, message), true
	}
	return nil, false
}

func at(position syntax.Position, message string) *failure {
	return &failure{File: position.Filename(), Line: position.Line, Column: position.Col, Message: message}
}
