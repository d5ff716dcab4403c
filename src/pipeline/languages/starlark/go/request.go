package main

import (
	"encoding/json"
	"fmt"
)

// evaluationRequest is what the worker asks for: one pipeline file and the facts it sees.
type evaluationRequest struct {
	// Path of the entry file in the repository, e.g. ".drone.star"; errors name files this way.
	Path   string `json:"path"`
	Source string `json:"source"`
	// Context holds the members of main's argument (build, repo, input), already shaped as Drone
	// shapes them by the TypeScript side.
	Context        json.RawMessage `json:"context"`
	MaxSteps       uint64          `json:"maxSteps"`
	MaxOutputBytes int             `json:"maxOutputBytes"`
}

// evaluationOutcome is either the documents main returned, in order, or the failure.
type evaluationOutcome struct {
	Documents []byte // a JSON array
	Error     *failure
}

// failure locates an error in the user's files; Line and Column are 0 when unknown.
type failure struct {
	File    string `json:"file"`
	Line    int32  `json:"line,omitempty"`
	Column  int32  `json:"column,omitempty"`
	Message string `json:"message"`
}

// evaluateJSON decodes the request, evaluates it and encodes the outcome. A panic in the
// interpreter becomes a failure, so that one bad program cannot stop the worker.
func evaluateJSON(requestJSON string, readFile readFunc) (outcomeJSON string) {
	var request evaluationRequest
	outcome := evaluationOutcome{}
	defer func() {
		if recovered := recover(); recovered != nil {
			outcome = evaluationOutcome{Error: &failure{File: request.Path, Message: fmt.Sprintf("internal error: %v", recovered)}}
			outcomeJSON = encodeOutcome(outcome)
		}
	}()
	if err := json.Unmarshal([]byte(requestJSON), &request); err != nil {
		outcome.Error = &failure{Message: "invalid request: " + err.Error()}
		return encodeOutcome(outcome)
	}
	documents, fail := evaluate(request, readFile)
	outcome.Documents, outcome.Error = documents, fail
	return encodeOutcome(outcome)
}

// encodeOutcome writes the documents verbatim: they are already JSON, in the order main built them,
// and json.Marshal would re-validate and re-escape them for nothing.
func encodeOutcome(outcome evaluationOutcome) string {
	if outcome.Error == nil {
		return `{"documents":` + string(outcome.Documents) + `}`
	}
	encoded, _ := json.Marshal(struct {
		Error *failure `json:"error"`
	}{outcome.Error}) // cannot fail: a failure holds only strings and numbers
	return string(encoded)
}
