package main

import (
	"context"
	"crypto/sha256"
	"flag"
	"fmt"
	"io"
	"os"
	"runtime"
	"runtime/debug"

	"github.com/heed-asr/heed/model/english"
)

func init() {
	register(&command{
		Name:  "version",
		Usage: "heed version [--model FILE]",
		Short: "print heed's version, commit and model",
		Long: `Version prints heed's module version, the VCS commit it was built from (with
"+dirty" when the working tree had changes), the Go version, and the model
it uses with the SHA-256 of the model file: the embedded English model, or
the file given with --model.`,
		Flags: func(fs *flag.FlagSet) func(context.Context, *env, []string) error {
			modelPath := fs.String("model", "", "model file to describe (default: the embedded English model)")
			return func(ctx context.Context, e *env, args []string) error {
				if len(args) > 0 {
					return usagef("unexpected argument %q", args[0])
				}
				name, sum, err := modelSum(*modelPath)
				if err != nil {
					return err
				}
				version, commit := buildVersion()
				fmt.Fprintf(e.Stdout, "heed %s\ncommit %s\ngo %s %s/%s\nmodel %s\nmodel sha256 %x\n",
					version, commit, runtime.Version(), runtime.GOOS, runtime.GOARCH, name, sum)
				return nil
			}
		},
	})
}

// buildVersion returns the main module's version ("(devel)" for a build
// from a checkout) and the VCS commit, "unknown" when the binary does not
// record one (go run, go test, or a build outside a repository).
func buildVersion() (version, commit string) {
	version, commit = "(devel)", "unknown"
	bi, ok := debug.ReadBuildInfo()
	if !ok {
		return version, commit
	}
	if bi.Main.Version != "" {
		version = bi.Main.Version
	}
	var rev, modified string
	for _, s := range bi.Settings {
		switch s.Key {
		case "vcs.revision":
			rev = s.Value
		case "vcs.modified":
			modified = s.Value
		}
	}
	if rev != "" {
		commit = rev
		if modified == "true" {
			commit += "+dirty"
		}
	}
	return version, commit
}

// modelSum names the model at path (the embedded one for "") and returns
// the SHA-256 of its file.
func modelSum(path string) (string, [sha256.Size]byte, error) {
	if path == "" {
		return "embedded English model (model/english/english.heed)", sha256.Sum256(english.Bytes()), nil
	}
	var sum [sha256.Size]byte
	f, err := os.Open(path)
	if err != nil {
		return "", sum, openErr(path, err)
	}
	defer f.Close()
	h := sha256.New()
	if _, err := io.Copy(h, f); err != nil {
		return "", sum, fileErr(path, err)
	}
	copy(sum[:], h.Sum(nil))
	return path, sum, nil
}
