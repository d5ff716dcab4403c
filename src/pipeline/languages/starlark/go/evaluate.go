package main

import (
	"fmt"

	"go.starlark.net/starlark"
)

// The dialect is go.starlark.net's default, as in Drone, which sets no resolve.Allow* option:
// no recursion, no while, no set(), no reassignment of globals or loops at top level; floats,
// lambdas, nested def and bitwise operators are allowed. Nothing is predeclared beyond the
// universe (no json or struct module), as in Drone.

// evaluate runs the entry file, then main(ctx), and returns the documents as a JSON array.
func evaluate(request evaluationRequest, readFile readFunc) ([]byte, *failure) {
	thread := &starlark.Thread{
		Name: "svc",
		// Drone logs print() at trace level only; a build has no place to show it either.
		Print: func(*starlark.Thread, string) {},
	}
	// Drone sets the limit after the top level has run, but counts those steps too; limiting the
	// whole evaluation fails the same programs, only earlier.
	thread.SetMaxExecutionSteps(request.MaxSteps)
	modules := newModuleLoader(readFile, request.Path)
	thread.Load = modules.load

	ctx, err := contextValue(request.Context)
	if err != nil {
		return nil, &failure{File: request.Path, Message: "invalid context: " + err.Error()}
	}
	globals, err := modules.execEntry(thread, request.Source)
	if err != nil {
		return nil, locate(err, thread, request)
	}
	main, fail := mainFunction(globals, request.Path)
	if fail != nil {
		return nil, fail
	}
	result, err := starlark.Call(thread, main, starlark.Tuple{ctx}, nil)
	if err != nil {
		return nil, locate(err, thread, request)
	}
	return encodeDocuments(result, main, request)
}

// mainFunction finds main. Errors about main start with Drone's own texts ("starlark: …").
func mainFunction(globals starlark.StringDict, path string) (starlark.Callable, *failure) {
	value, ok := globals["main"]
	if !ok {
		return nil, &failure{File: path, Message: "starlark: missing main function"}
	}
	main, ok := value.(starlark.Callable)
	if !ok {
		return nil, &failure{File: path, Message: fmt.Sprintf("starlark: main must be a function (it is a %s)", value.Type())}
	}
	return main, nil
}

// encodeDocuments accepts what Drone accepts from main: a dict (one document) or a list (one
// document per item), and bounds the size as Drone does.
func encodeDocuments(result starlark.Value, main starlark.Callable, request evaluationRequest) ([]byte, *failure) {
	var documents []starlark.Value
	switch value := result.(type) {
	case *starlark.Dict:
		documents = []starlark.Value{value}
	case *starlark.List:
		for i := 0; i < value.Len(); i++ {
			documents = append(documents, value.Index(i))
		}
	default:
		return nil, mainFailure(main, request.Path,
			fmt.Sprintf("starlark: main returns an invalid type (%s; want a dict or a list of dicts)", result.Type()))
	}
	encoded, err := encodeJSONArray(documents)
	if err != nil {
		return nil, mainFailure(main, request.Path, err.Error())
	}
	if request.MaxOutputBytes > 0 && len(encoded) > request.MaxOutputBytes {
		return nil, mainFailure(main, request.Path, fmt.Sprintf(
			"starlark: maximum file size exceeded (%d bytes; the limit is %d)", len(encoded), request.MaxOutputBytes))
	}
	return encoded, nil
}

// mainFailure places an error about main's result at main's definition, when main is a Starlark
// function (it always is, unless main was bound to a built-in).
func mainFailure(main starlark.Callable, path, message string) *failure {
	located := &failure{File: path, Message: message}
	if function, ok := main.(*starlark.Function); ok {
		position := function.Position()
		located.File, located.Line, located.Column = position.Filename(), position.Line, position.Col
	}
	return located
}
