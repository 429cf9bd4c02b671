// Writes testdata/scalars.json: how Kubernetes reads plain YAML scalars. Each
// candidate is the value of `v:` in a one-line document, converted to JSON by
// sigs.k8s.io/yaml v1.6.0 (go-yaml v2.4.4 underneath, the versions Kubernetes
// v1.37.2 builds with) exactly as kubectl and the API server convert a manifest.
// berth's YAML reader is tested against every row (src/io/yaml-scalars.test.ts).
//
// Run: cd conformance/yaml-scalars && go run . > testdata/scalars.json
package main

import (
	"encoding/json"
	"fmt"

	"sigs.k8s.io/yaml"
)

// Row is one scalar: its text, and the JSON value Kubernetes reads (or the error).
type Row struct {
	YAML  string          `json:"yaml"`
	JSON  json.RawMessage `json:"json,omitempty"`
	Error string          `json:"error,omitempty"`
}

func candidates() []string {
	seen := map[string]bool{}
	var out []string
	add := func(ss ...string) {
		for _, s := range ss {
			if !seen[s] {
				seen[s] = true
				out = append(out, s)
			}
		}
	}
	// Booleans and nulls in every spelling YAML 1.1 and 1.2 know, in three cases.
	for _, w := range []string{"y", "yes", "n", "no", "on", "off", "true", "false", "null", "nil", "none", "~", ""} {
		add(w, upper(w), title(w))
	}
	// Integers: signs, bases, underscores, leading zeros, sexagesimal, bounds.
	for _, sign := range []string{"", "+", "-"} {
		for _, body := range []string{"0", "7", "10", "012", "08", "0o17", "0x10", "0xff", "0XFF", "0b101", "0B11", "1_000", "1__0", "_1", "1_", "0x_1", "0b1_0", "190:20:30", "1:30", "9223372036854775807", "9223372036854775808", "18446744073709551615", "18446744073709551616", "2147483648", "1e3", "1E3", "1e+3", "1e-3", "1.5", "1.", ".5", "1_000.5", "1.5e3", "1.5E-3", "e1", "E1", "1e", ".e1", "0.", "00", "0_0", "1_2_3", "6.8523015e+5", "685.230_15e+03", "685_230.15", "190:20:30.15", "1,000", "1 000"} {
			add(sign + body)
		}
	}
	// Special floats.
	for _, w := range []string{".inf", ".Inf", ".INF", "+.inf", "-.inf", "-.Inf", ".nan", ".NaN", ".NAN", "inf", "nan", "Infinity", "NaN", "-inf"} {
		add(w)
	}
	// Timestamps and dates (YAML 1.1 types), and strings that look like them.
	add("2001-12-14", "2001-12-14t21:59:43.10-05:00", "2001-12-14T21:59:43Z", "2001-12-14 21:59:43.10 -5", "2002-12-14", "2001-12-1", "12:30", "12:30:45", "2026-01-02T03:04:05.123456789Z")
	// Words Kubernetes users write as label values, names and versions.
	add("e1", "e10", "1e1", "v1", "1.0", "1.10", "1.2.3", "0.1", "100m", "1Gi", "1e3m", "0755", "0o755", "3.14", "abc", "a b", "=", "<<", "-", "--", "!", "@", "`", "%", "a:b", "a: b", "#", "a #b", "a#b", "'q'", "\"q\"", "'it''s'", "\"\\t\"", "\"\\u00e9\"", "\"0x10\"", "'yes'")
	// Merge keys and tags on scalars.
	add("!!str 10", "!!int \"10\"", "!!float 1", "!!bool yes", "!!str yes", "!!null ''", "!!binary aGk=", "!!timestamp 2001-12-14")
	return out
}

func upper(s string) string {
	b := []byte(s)
	for i, c := range b {
		if c >= 'a' && c <= 'z' {
			b[i] = c - 32
		}
	}
	return string(b)
}

func title(s string) string {
	if s == "" || s[0] < 'a' || s[0] > 'z' {
		return s
	}
	return string(s[0]-32) + s[1:]
}

func main() {
	var rows []Row
	for _, c := range candidates() {
		row := Row{YAML: c}
		out, err := yaml.YAMLToJSON([]byte("v: " + c + "\n"))
		if err != nil {
			row.Error = err.Error()
		} else {
			var doc map[string]json.RawMessage
			if err := json.Unmarshal(out, &doc); err != nil {
				row.Error = err.Error()
			} else {
				row.JSON = doc["v"]
			}
		}
		rows = append(rows, row)
	}
	fmt.Println("[")
	for i, r := range rows {
		b, err := json.Marshal(r)
		if err != nil {
			panic(err)
		}
		sep := ","
		if i == len(rows)-1 {
			sep = ""
		}
		fmt.Printf("  %s%s\n", b, sep)
	}
	fmt.Println("]")
}
