// Command oracle prints Karpenter v1.14.1's NodePool.Hash() for NodePools read as
// JSON, one per line on stdin; one JSON line per input on stdout:
// {"hash":"...","version":"v3"} or {"error":"..."}.
//
// The NodePool is decoded as the API server would store it: the CRD default of
// spec.template.spec.expireAfter (720h) is applied when the field is absent; every
// other hashed field has no default. Run with TZ=UTC, as Karpenter's image does
// (taints' timeAdded is hashed in the local zone).
package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"

	v1 "sigs.k8s.io/karpenter/pkg/apis/v1"
)

type answer struct {
	Hash    string `json:"hash,omitempty"`
	Version string `json:"version,omitempty"`
	Error   string `json:"error,omitempty"`
}

func hash(line []byte) (a answer) {
	defer func() {
		if r := recover(); r != nil {
			a = answer{Error: fmt.Sprint(r)}
		}
	}()
	var raw map[string]any
	if err := json.Unmarshal(line, &raw); err != nil {
		return answer{Error: err.Error()}
	}
	spec, _ := raw["spec"].(map[string]any)
	template, _ := spec["template"].(map[string]any)
	tspec, _ := template["spec"].(map[string]any)
	if tspec != nil {
		if _, ok := tspec["expireAfter"]; !ok {
			tspec["expireAfter"] = "720h"
		}
	}
	defaulted, err := json.Marshal(raw)
	if err != nil {
		return answer{Error: err.Error()}
	}
	var np v1.NodePool
	if err := json.Unmarshal(defaulted, &np); err != nil {
		return answer{Error: err.Error()}
	}
	return answer{Hash: np.Hash(), Version: v1.NodePoolHashVersion}
}

func main() {
	in := bufio.NewScanner(os.Stdin)
	in.Buffer(make([]byte, 1<<20), 64<<20)
	out := bufio.NewWriter(os.Stdout)
	defer out.Flush()
	enc := json.NewEncoder(out)
	for in.Scan() {
		if err := enc.Encode(hash(in.Bytes())); err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
	}
	if err := in.Err(); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
}
