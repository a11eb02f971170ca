package main

import (
	"bytes"
	"errors"
	"fmt"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/mscppl/mscppl/infer"
	"github.com/mscppl/mscppl/lang"
)

// userErrorf builds an error caused by the user's input (exit status 1),
// with an optional hint.
func userErrorf(hint, format string, args ...any) error { return infer.Errorf(hint, format, args...) }

// dataExts are the extensions of data files, never of a model.
var dataExts = map[string]string{".csv": "CSV", ".tsv": "CSV", ".json": "JSON"}

// swappedArgs returns the error for a data file given where the model
// goes (judged by its extension, or, when src is not nil and did not
// parse, by its content), or nil. cmd is the subcommand, for the hint.
func swappedArgs(cmd, model, data string, src []byte) error {
	kind := dataExts[strings.ToLower(filepath.Ext(model))]
	if kind == "" && src != nil {
		kind = looksLikeData(src)
	}
	if kind == "" {
		return nil
	}
	m, d := "MODEL.msc", model
	if data != "" {
		if strings.EqualFold(filepath.Ext(data), ".msc") || infer.IsStan(data) {
			m = data
		} else {
			d = "DATA"
		}
	}
	if cmd == "" {
		cmd = "run"
	}
	return usageError{userErrorf(fmt.Sprintf("the model comes first: mscppl %s %s %s", cmd, m, d),
		"%s looks like a %s data file, not a model", model, kind)}
}

// usageError is a command line that parses but makes no sense, such as
// swapped arguments (exit status 2, like a flag error).
type usageError struct{ error }

func (u usageError) Unwrap() error { return u.error }

// looksLikeData says whether a file that did not parse as a model is a
// JSON document ("JSON") or a table whose second line holds numbers
// ("CSV"), else "".
func looksLikeData(src []byte) string {
	src = bytes.TrimPrefix(src, []byte("\xef\xbb\xbf"))
	t := bytes.TrimSpace(src)
	if len(t) > 0 && (t[0] == '{' || t[0] == '[') {
		return "JSON" // a model starts with a block name or a comment
	}
	var lines []string
	for _, l := range strings.SplitN(string(t), "\n", 4) {
		if l = strings.TrimSpace(l); l != "" {
			lines = append(lines, l)
		}
	}
	if len(lines) < 2 || strings.ContainsAny(lines[0], "{}") || strings.HasPrefix(lines[0], "//") {
		return ""
	}
	fields := strings.FieldsFunc(lines[1], func(r rune) bool { return r == ',' || r == ';' || r == '\t' })
	if len(fields) == 0 {
		return ""
	}
	for _, f := range fields {
		f = strings.Trim(strings.TrimSpace(f), `"`)
		if _, err := strconv.ParseFloat(f, 64); err != nil && f != "" && f != "NA" {
			return ""
		}
	}
	return "CSV"
}

// isParseError reports whether err is a positioned error in the model's
// syntax (what a data file given as the model produces).
func isParseError(err error) bool {
	var list lang.ErrorList
	var one *lang.Error
	return errors.As(err, &list) || errors.As(err, &one)
}
