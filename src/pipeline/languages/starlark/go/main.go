//go:build js && wasm

// Command starlark is svc's Starlark evaluator: go.starlark.net compiled to WebAssembly and run in
// a Node worker thread (see ../worker.ts). It hands the worker one function,
//
//	evaluate(request: string, read: (path) => Promise<string | null>, done: (outcome: string) => void)
//
// where request is the JSON of evaluationRequest and outcome the JSON of evaluationOutcome.
package main

import (
	"errors"
	"os"
	"syscall/js"
)

func main() {
	// The worker passes, as the first argument, the name of a function it has put on its global
	// object for this hand-over; it removes that function once it holds evaluate.
	if len(os.Args) < 2 {
		panic("usage: starlark <name of the global function that receives evaluate>")
	}
	js.Global().Get(os.Args[1]).Invoke(js.FuncOf(evaluateFromJS))
	// Evaluations arrive as callbacks: the program must stay alive for them.
	select {}
}

// evaluateFromJS starts one evaluation. It runs in a goroutine because reading a repository file
// waits for a JavaScript promise, and a callback from JavaScript must not block.
func evaluateFromJS(_ js.Value, args []js.Value) interface{} {
	requestJSON, read, done := args[0].String(), args[1], args[2]
	go func() {
		readFile := func(path string) (string, bool, error) { return awaitRead(read, path) }
		done.Invoke(evaluateJSON(requestJSON, readFile))
	}()
	return nil
}

// awaitRead calls read(path) and blocks this goroutine until its promise settles; the Go runtime
// meanwhile returns control to the JavaScript event loop, which delivers the answer.
func awaitRead(read js.Value, path string) (content string, found bool, err error) {
	type settled struct {
		value js.Value
		err   error
	}
	answer := make(chan settled, 1)
	onValue := js.FuncOf(func(_ js.Value, args []js.Value) interface{} {
		answer <- settled{value: args[0]}
		return nil
	})
	defer onValue.Release()
	onError := js.FuncOf(func(_ js.Value, args []js.Value) interface{} {
		answer <- settled{err: errors.New(js.Global().Get("String").Invoke(args[0]).String())}
		return nil
	})
	defer onError.Release()

	read.Invoke(path).Call("then", onValue, onError)
	result := <-answer
	if result.err != nil {
		return "", false, result.err
	}
	if result.value.Type() != js.TypeString {
		return "", false, nil
	}
	return result.value.String(), true, nil
}
