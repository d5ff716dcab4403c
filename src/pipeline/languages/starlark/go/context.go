package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"sort"

	"go.starlark.net/starlark"
	"go.starlark.net/starlarkstruct"
)

// contextValue builds main's argument as Drone does: a struct named "context" whose members
// (build, repo, input) are structs named after themselves; nested JSON objects, such as
// ctx.build.params, become dicts. The TypeScript side decides the fields and their types.
func contextValue(contextJSON json.RawMessage) (starlark.Value, error) {
	var members map[string]map[string]interface{}
	decoder := json.NewDecoder(bytes.NewReader(contextJSON))
	decoder.UseNumber()
	if err := decoder.Decode(&members); err != nil {
		return nil, err
	}
	context := starlark.StringDict{}
	for name, fields := range members {
		values := starlark.StringDict{}
		for field, value := range fields {
			converted, err := starlarkValue(value)
			if err != nil {
				return nil, fmt.Errorf("%s.%s: %w", name, field, err)
			}
			values[field] = converted
		}
		context[name] = starlarkstruct.FromStringDict(starlark.String(name), values)
	}
	return starlarkstruct.FromStringDict(starlark.String("context"), context), nil
}

// starlarkValue converts a decoded JSON value.
func starlarkValue(value interface{}) (starlark.Value, error) {
	switch value := value.(type) {
	case nil:
		return starlark.None, nil
	case bool:
		return starlark.Bool(value), nil
	case string:
		return starlark.String(value), nil
	case json.Number:
		if integer, err := value.Int64(); err == nil {
			return starlark.MakeInt64(integer), nil
		}
		float, err := value.Float64()
		return starlark.Float(float), err
	case []interface{}:
		items := make([]starlark.Value, 0, len(value))
		for _, item := range value {
			converted, err := starlarkValue(item)
			if err != nil {
				return nil, err
			}
			items = append(items, converted)
		}
		return starlark.NewList(items), nil
	case map[string]interface{}:
		return starlarkDict(value)
	}
	return nil, fmt.Errorf("unexpected JSON value %v", value)
}

// starlarkDict inserts keys in sorted order, so that iterating a dict such as ctx.build.params
// gives the same order on every build (Drone's order follows Go's random map iteration).
func starlarkDict(object map[string]interface{}) (*starlark.Dict, error) {
	keys := make([]string, 0, len(object))
	for key := range object {
		keys = append(keys, key)
	}
	sort.Strings(keys)
	dict := starlark.NewDict(len(keys))
	for _, key := range keys {
		converted, err := starlarkValue(object[key])
		if err != nil {
			return nil, err
		}
		if err := dict.SetKey(starlark.String(key), converted); err != nil {
			return nil, err
		}
	}
	return dict, nil
}
