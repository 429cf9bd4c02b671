// Command oracle is berth's differential-testing oracle: it runs one
// scheduling cycle of the real kube-scheduler (k8s.io/kubernetes v1.37.2,
// default profile, in-tree plugins, framework runtime) per input case and
// reports every plugin verdict. Batch mode: one JSON case per stdin line, one
// JSON result per stdout line. See README.md for the protocol.
package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"

	"k8s.io/klog/v2"
	kjson "sigs.k8s.io/json"
)

func main() {
	klog.InitFlags(nil)
	_ = flag.Set("v", "0")
	benchMode := flag.Bool("bench", false, "read compact workload descriptions (bench/workloads.ts) instead of cases and report scheduling throughput")
	flag.Parse()

	o := newOracle()
	in := bufio.NewReaderSize(os.Stdin, 1<<20)
	out := bufio.NewWriterSize(os.Stdout, 1<<20)
	enc := json.NewEncoder(out)
	enc.SetEscapeHTML(false)
	lineNo := 0
	for {
		line, err := in.ReadBytes('\n')
		if len(bytes.TrimSpace(line)) > 0 {
			lineNo++
			var c Case
			var res Result
			var result any
			if *benchMode {
				var spec BenchSpec
				if derr := kjson.UnmarshalCaseSensitivePreserveInts(line, &spec); derr != nil {
					result = BenchResult{Error: fmt.Sprintf("line %d: decoding workload: %v", lineNo, derr)}
				} else {
					result = o.bench(&spec)
				}
			} else if derr := kjson.UnmarshalCaseSensitivePreserveInts(line, &c); derr != nil {
				result = Result{ID: c.ID, Error: fmt.Sprintf("line %d: decoding case: %v", lineNo, derr)}
			} else {
				res = o.run(&c)
				result = &res
			}
			if eerr := enc.Encode(result); eerr != nil {
				fmt.Fprintf(os.Stderr, "oracle: encoding result of line %d: %v\n", lineNo, eerr)
				os.Exit(2)
			}
			if ferr := out.Flush(); ferr != nil {
				os.Exit(2)
			}
		}
		if err == io.EOF {
			break
		}
		if err != nil {
			fmt.Fprintf(os.Stderr, "oracle: reading stdin: %v\n", err)
			os.Exit(2)
		}
	}
}
