package main

// Bench mode (-bench): Karpenter's side of the provisioning line of berth's
// `npm run bench`. Each stdin line is a case in the usual format (NodePools,
// pending pods, instance types); the setup is built as for a case, and only
// Solve is timed. The result gives the throughput, CPU time, the NodeClaims'
// count and their summed price (each at its cheapest compatible offering, as the
// conformance runner compares $/h), and the peak RSS.

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"runtime"
	"strconv"
	"strings"
	"syscall"
	"time"
)

type benchResult struct {
	ID            json.RawMessage `json:"id"`
	Error         string          `json:"error,omitempty"`
	Pods          int             `json:"pods"`
	NodeClaims    int             `json:"nodeClaims"`
	Unschedulable int             `json:"unschedulable"`
	CostPerHour   float64         `json:"costPerHour"`
	Seconds       float64         `json:"seconds"`
	// CPUSeconds is the process's user+system time over Solve (all threads, GC included).
	CPUSeconds float64 `json:"cpuSeconds"`
	PeakRSSMiB float64 `json:"peakRssMiB"`
}

func bench(ctx context.Context, in *caseInput) (res benchResult) {
	res.ID = in.ID
	res.Pods = len(in.Pods)
	defer func() {
		if r := recover(); r != nil {
			res.Error = fmt.Sprintf("panic: %v", r)
		}
	}()
	s, pods, _, err := newScheduler(ctx, in)
	if err != nil {
		res.Error = err.Error()
		return res
	}
	runtime.GC()
	cpuStart := cpuSeconds()
	start := time.Now()
	results, err := s.Solve(ctx, pods)
	res.Seconds = time.Since(start).Seconds()
	res.CPUSeconds = cpuSeconds() - cpuStart
	if err != nil {
		res.Error = "solve: " + err.Error()
		return res
	}
	out := resultOut{PodErrors: map[string]string{}}
	describe(results, &out)
	res.NodeClaims = len(out.NodeClaims)
	res.Unschedulable = len(out.PodErrors)
	total := 0.0
	for _, nc := range out.NodeClaims {
		total += nc.Price
	}
	res.CostPerHour = math.Round(total*1e6) / 1e6
	res.PeakRSSMiB = peakRSSMiB()
	return res
}

func cpuSeconds() float64 {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return float64(ru.Utime.Nano()+ru.Stime.Nano()) / 1e9
}

// peakRSSMiB reads VmHWM, the resident set's high-water mark, from /proc.
func peakRSSMiB() float64 {
	data, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return 0
	}
	for _, line := range strings.Split(string(data), "\n") {
		if rest, ok := strings.CutPrefix(line, "VmHWM:"); ok {
			kb, _ := strconv.ParseFloat(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(rest), "kB")), 64)
			return kb / 1024
		}
	}
	return 0
}
