package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"syscall"
	"time"
)

func measure(args []string) error {
	fs := flag.NewFlagSet("measure", flag.ContinueOnError)
	out := fs.String("o", "", "results file (JSON Lines, appended)")
	stdin := fs.String("stdin", "", "file to give the command as standard input")
	stdout := fs.String("stdout", "", "file for the command's standard output (default: discarded)")
	logPath := fs.String("log", "", "file to append the command's standard error to (default: standard error)")
	fields := fs.String("fields", "{}", "JSON object of fields to record with the measurement")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if *out == "" || fs.NArg() == 0 {
		return fmt.Errorf("usage: report measure -o RESULTS [-stdin FILE] [-fields JSON] -- COMMAND [ARG...]")
	}
	rec := map[string]any{}
	if err := json.Unmarshal([]byte(*fields), &rec); err != nil {
		return fmt.Errorf("-fields: %v", err)
	}
	cmd := exec.Command(fs.Arg(0), fs.Args()[1:]...)
	cmd.Stderr = os.Stderr
	if *logPath != "" {
		f, err := os.OpenFile(*logPath, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o644)
		if err != nil {
			return err
		}
		defer f.Close()
		cmd.Stderr = f
	}
	if *stdin != "" {
		f, err := os.Open(*stdin)
		if err != nil {
			return err
		}
		defer f.Close()
		cmd.Stdin = f
	}
	if *stdout != "" {
		f, err := os.Create(*stdout)
		if err != nil {
			return err
		}
		defer f.Close()
		cmd.Stdout = f
	}
	t0 := time.Now()
	err := cmd.Run()
	wall := time.Since(t0)
	if err != nil {
		return fmt.Errorf("%s: %v", strings.Join(cmd.Args, " "), err)
	}
	// wait4's usage covers the command and the processes it waited for;
	// Maxrss (KB on Linux) is the largest of them.
	ru := cmd.ProcessState.SysUsage().(*syscall.Rusage)
	rec["wall_s"] = wall.Seconds()
	rec["cpu_s"] = (cmd.ProcessState.UserTime() + cmd.ProcessState.SystemTime()).Seconds()
	rec["rss_mb"] = float64(ru.Maxrss) / 1024
	rec["command"] = strings.Join(cmd.Args, " ")
	fmt.Fprintf(os.Stderr, "report measure: %.2f s wall, %.2f s CPU, %.0f MB: %s\n", rec["wall_s"], rec["cpu_s"], rec["rss_mb"], rec["command"])
	return appendJSON(*out, rec)
}
