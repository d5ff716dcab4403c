package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"strconv"

	"go.starlark.net/starlark"
)

// encodeJSONArray writes the documents as one JSON array. Like Drone's writer it keeps the
// insertion order of dicts, writes tuples and ranges as arrays and refuses other values (struct,
// function…); unlike Drone's, which feeds a YAML parser, its output is strict JSON.
func encodeJSONArray(documents []starlark.Value) ([]byte, error) {
	out := new(bytes.Buffer)
	out.WriteByte('[')
	for i, document := range documents {
		if i > 0 {
			out.WriteByte(',')
		}
		if err := writeJSON(out, document); err != nil {
			return nil, err
		}
	}
	out.WriteByte(']')
	return out.Bytes(), nil
}

func writeJSON(out *bytes.Buffer, value starlark.Value) error {
	switch value := value.(type) {
	case starlark.NoneType:
		out.WriteString("null")
	case starlark.Bool:
		out.WriteString(strconv.FormatBool(bool(value)))
	case starlark.Int:
		out.WriteString(value.String())
	case starlark.Float:
		return writeFloat(out, float64(value))
	case starlark.String:
		writeString(out, string(value))
	case starlark.Indexable: // list, tuple, range; after String, which is Indexable too
		out.WriteByte('[')
		for i, n := 0, value.Len(); i < n; i++ {
			if i > 0 {
				out.WriteByte(',')
			}
			if err := writeJSON(out, value.Index(i)); err != nil {
				return err
			}
		}
		out.WriteByte(']')
	case *starlark.Dict:
		return writeObject(out, value)
	default:
		return unconvertible(value)
	}
	return nil
}

func writeObject(out *bytes.Buffer, dict *starlark.Dict) error {
	out.WriteByte('{')
	for i, item := range dict.Items() {
		if i > 0 {
			out.WriteByte(',')
		}
		key, err := objectKey(item[0])
		if err != nil {
			return err
		}
		writeString(out, key)
		out.WriteByte(':')
		if err := writeJSON(out, item[1]); err != nil {
			return err
		}
	}
	out.WriteByte('}')
	return nil
}

// objectKey gives a non-string key the text Drone writes for it, which its YAML parser then reads
// back as the key (as a JavaScript object would name it).
func objectKey(key starlark.Value) (string, error) {
	switch key := key.(type) {
	case starlark.String:
		return string(key), nil
	case starlark.NoneType, starlark.Bool, starlark.Int, starlark.Float:
		text := new(bytes.Buffer)
		if err := writeJSON(text, key); err != nil {
			return "", err
		}
		return text.String(), nil
	}
	return "", unconvertible(key)
}

// writeFloat formats like Drone's %g: 1.0 is written 1, 1e21 as 1e+21.
func writeFloat(out *bytes.Buffer, float float64) error {
	if math.IsNaN(float) || math.IsInf(float, 0) {
		return fmt.Errorf("value %s can't be converted to JSON", starlark.Float(float).String())
	}
	out.WriteString(strconv.FormatFloat(float, 'g', -1, 64))
	return nil
}

func writeString(out *bytes.Buffer, text string) {
	encoder := json.NewEncoder(out)
	encoder.SetEscapeHTML(false)
	_ = encoder.Encode(text)    // a string always encodes
	out.Truncate(out.Len() - 1) // Encode ends with a newline
}

func unconvertible(value starlark.Value) error {
	return fmt.Errorf("value %s (type `%s') can't be converted to JSON", value.String(), value.Type())
}
