package main

import (
	"os/exec"
	"strings"
	"testing"
)

// TestNoPlotDeps keeps gonum.org/v1/plot and its fonts, LaTeX and PDF
// packages out of heed: their package inits parse a dozen TrueType fonts
// and cost every heed command about 7 ms of start-up. Plots are drawn
// with internal/chart instead.
func TestNoPlotDeps(t *testing.T) {
	// go test puts its own go tool first in PATH.
	goTool, err := exec.LookPath("go")
	if err != nil {
		t.Skip("no go tool:", err)
	}
	out, err := exec.Command(goTool, "list", "-deps", "github.com/heed-asr/heed/cmd/heed").Output()
	if err != nil {
		t.Fatalf("go list -deps: %v", err)
	}
	deps := strings.Fields(string(out))
	if len(deps) < 10 {
		t.Fatalf("go list -deps lists only %q", deps)
	}
	for _, p := range deps {
		if strings.HasPrefix(p, "gonum.org/v1/plot") || strings.HasPrefix(p, "codeberg.org/go-latex") {
			t.Errorf("heed links %s", p)
		}
	}
}
