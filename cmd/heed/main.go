// Command heed is a speech recognizer and forced aligner.
//
// Usage:
//
//	heed <command> [flags] [arguments]
//
// Commands:
//
//	transcribe  write the words spoken in audio files
//	align       time every word of a transcript against its audio
//	train       train a model on manifests of utterances
//	lm          add a character language model to a model file
//	eval        measure recognition or alignment error on manifests
//	features    print the log-mel filterbank features of an audio file
//	info        describe audio files
//	stream      transcribe audio arriving on standard input
//	version     print heed's version, commit and model
//
// Run "heed help <command>" or "heed <command> --help" for its flags.
//
// Environment: GOMAXPROCS=N uses at most N cores; HEED_THP=0 stops heed
// asking Linux for transparent huge pages for the first 64 MiB of its heap
// (see internal/thp); HEED_BF16=0 keeps the encoder of long alignments in
// float32 where the CPU has AVX512_BF16 (bfloat16 products by default
// there; see kern.MatMulBF16).
//
// Exit status: 0 on success, 1 when an input failed, 2 on a usage error.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"sort"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/heed-asr/heed/internal/thp"
)

// command is one heed verb: its usage, its flags and what it runs.
type command struct {
	Name  string
	Usage string // e.g. "heed info AUDIO"
	Short string // one line for the command list
	Long  string // paragraphs shown by --help
	// Flags registers the verb's flags on fs and returns the function that
	// runs the verb with the remaining arguments.
	Flags func(fs *flag.FlagSet) func(ctx context.Context, env *env, args []string) error
}

// env is what a command may touch of the outside world.
type env struct {
	Stdin          io.Reader
	Stdout, Stderr io.Writer
}

// usageError marks an error in how heed was called (exit status 2).
type usageError struct{ msg string }

func (e usageError) Error() string { return e.msg }

func usagef(format string, args ...any) error { return usageError{fmt.Sprintf(format, args...)} }

// errReported marks that some inputs failed after their problems were
// already reported (exit status 1, nothing more to print).
var errReported = errors.New("some inputs failed")

var commands = map[string]*command{}

func register(c *command) { commands[c.Name] = c }

// selfStopping are the verbs that finish their own work on Ctrl-C or
// SIGTERM however long it takes (train writes a checkpoint, stream
// transcribes what it holds, adapt removes its temporary files); every other verb is ended by a watchdog if it
// has not stopped interruptGrace after the signal (say, while it waits to
// open a FIFO that nothing writes to).
var selfStopping = map[string]bool{"train": true, "stream": true, "adapt": true}

// interruptGrace is how long a verb may take to stop after a signal before
// the watchdog ends the process.
const interruptGrace = time.Second

// stopGrace is how long a batch waits, after a signal, for the inputs in
// flight to stop before it abandons them and reports (well within
// interruptGrace, so that the report is printed).
const stopGrace = 300 * time.Millisecond

// hugePages asks Linux for transparent huge pages for the next 64 MiB of
// the heap (internal/thp), once, unless HEED_THP=0: far fewer page faults
// for the buffers of a short command. Without THP nothing changes.
func hugePages() {
	hugePagesOnce.Do(func() {
		if os.Getenv("HEED_THP") != "0" {
			thp.Heap(thp.DefaultBytes)
		}
	})
}

var hugePagesOnce sync.Once

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if len(os.Args) > 1 && !selfStopping[os.Args[1]] {
		go func() {
			<-ctx.Done()
			stop() // a second signal ends the process at once
			time.Sleep(interruptGrace)
			fmt.Fprintln(os.Stderr, "heed: interrupted")
			os.Exit(1)
		}()
	}
	os.Exit(run(ctx, &env{Stdin: os.Stdin, Stdout: os.Stdout, Stderr: os.Stderr}, os.Args[1:]))
}

// run executes heed with args (without the program name) and returns the
// exit status.
func run(ctx context.Context, e *env, args []string) int {
	if len(args) == 0 {
		printUsage(e.Stderr)
		return 2
	}
	name := args[0]
	switch name {
	case "-h", "--help", "-help", "help":
		if len(args) > 1 {
			if c, ok := commands[args[1]]; ok {
				fs := newFlagSet(c, e.Stdout)
				c.Flags(fs)
				fs.SetOutput(e.Stdout)
				fs.Usage()
				return 0
			}
			fmt.Fprintf(e.Stderr, "heed: unknown command %q\n", args[1])
			return 2
		}
		printUsage(e.Stdout)
		return 0
	}
	c, ok := commands[name]
	if !ok {
		fmt.Fprintf(e.Stderr, "heed: unknown command %q; run \"heed help\" for the list\n", name)
		return 2
	}
	var flagOut strings.Builder
	fs := newFlagSet(c, &flagOut)
	runFn := c.Flags(fs)
	pos, err := parseInterspersed(fs, args[1:])
	if err != nil {
		if errors.Is(err, flag.ErrHelp) {
			io.WriteString(e.Stdout, flagOut.String()) // asked for: stdout
			return 0
		}
		io.WriteString(e.Stderr, flagOut.String()) // the problem and the usage
		return 2
	}
	err = runFn(ctx, e, pos)
	if err == nil {
		return 0
	}
	var ue usageError
	if errors.As(err, &ue) {
		fmt.Fprintf(e.Stderr, "heed %s: %s\nusage: %s\nrun \"heed %s --help\" for details\n", name, ue.msg, c.Usage, name)
		return 2
	}
	switch {
	case errors.Is(err, errReported):
	case errors.Is(err, context.Canceled) && ctx.Err() != nil:
		fmt.Fprintf(e.Stderr, "heed: %v\n", interrupted(err))
	default:
		fmt.Fprintf(e.Stderr, "heed: %v\n", err)
	}
	return 1
}

// parseInterspersed parses args with fs, allowing flags after positional
// arguments ("heed align a.wav a.txt --format srt"). Everything after "--"
// is positional.
func parseInterspersed(fs *flag.FlagSet, args []string) ([]string, error) {
	var pos []string
	for {
		if err := fs.Parse(args); err != nil {
			return nil, err
		}
		rest := fs.Args()
		if len(rest) == 0 {
			return pos, nil
		}
		if used := len(args) - len(rest); used > 0 && args[used-1] == "--" {
			return append(pos, rest...), nil
		}
		pos = append(pos, rest[0])
		args = rest[1:]
	}
}

func newFlagSet(c *command, out io.Writer) *flag.FlagSet {
	fs := flag.NewFlagSet("heed "+c.Name, flag.ContinueOnError)
	fs.SetOutput(out)
	fs.Usage = func() {
		w := fs.Output()
		fmt.Fprintf(w, "usage: %s\n\n%s\n", c.Usage, strings.TrimSpace(c.Long))
		hasFlags := false
		fs.VisitAll(func(*flag.Flag) { hasFlags = true })
		if hasFlags {
			fmt.Fprintf(w, "\nflags:\n")
			fs.PrintDefaults()
		}
	}
	return fs
}

func printUsage(w io.Writer) {
	fmt.Fprintf(w, "heed: speech recognition and forced alignment\n\nusage: heed <command> [flags] [arguments]\n\ncommands:\n")
	names := make([]string, 0, len(commands))
	for n := range commands {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		fmt.Fprintf(w, "  %-11s %s\n", n, commands[n].Short)
	}
	fmt.Fprintf(w, "\nrun \"heed help <command>\" for a command's flags\n")
	fmt.Fprintf(w, "\nenvironment:\n")
	fmt.Fprintf(w, "  GOMAXPROCS=N  use at most N cores (default: all)\n")
	fmt.Fprintf(w, "  HEED_THP=0    do not ask Linux for transparent huge pages for heed's memory\n")
	fmt.Fprintf(w, "                (asked for by default: far fewer page faults at start-up)\n")
	fmt.Fprintf(w, "  HEED_BF16=0   keep the encoder of long alignments in float32 (by default it\n")
	fmt.Fprintf(w, "                multiplies in bfloat16 where the CPU has AVX512_BF16: faster,\n")
	fmt.Fprintf(w, "                the same alignments to within rounding)\n")
}

// interrupted rewrites the context's "context canceled" at the end of err
// as "interrupted", keeping the file name before it.
func interrupted(err error) string {
	return strings.TrimSuffix(err.Error(), context.Canceled.Error()) + "interrupted"
}

// fileErr prefixes err with the file it concerns, unless its message
// already starts with that name: every failure reads "FILE: problem".
func fileErr(path string, err error) error {
	if err == nil || strings.HasPrefix(err.Error(), path+":") {
		return err
	}
	return fmt.Errorf("%s: %w", path, err)
}
