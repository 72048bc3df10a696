package heed

import (
	"archive/zip"
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"golang.org/x/mod/module"
	modzip "golang.org/x/mod/zip"
)

// TestModuleZip builds the module zip that the Go module proxy serves for
// the committed tree (HEAD), as `go install ...@latest` downloads it, and
// checks that it holds the embedded model and the code but not the training
// state in model/english/train (a module of its own), and that its size is
// at most the model's plus 8 MB.
func TestModuleZip(t *testing.T) {
	if testing.Short() {
		t.Skip("builds a zip of the repository")
	}
	if _, err := exec.Command("git", "rev-parse", "HEAD").Output(); err != nil {
		t.Skip("not in a git checkout:", err)
	}
	// The committed files (modzip.CreateFromVCS wants a .git directory,
	// which a git worktree does not have); this package is the repository root.
	dir := t.TempDir()
	tarball := filepath.Join(dir, "head.tar")
	if out, err := exec.Command("git", "archive", "-o", tarball, "HEAD").CombinedOutput(); err != nil {
		t.Fatalf("git archive: %v: %s", err, out)
	}
	tree := filepath.Join(dir, "tree")
	if err := os.Mkdir(tree, 0o755); err != nil {
		t.Fatal(err)
	}
	if out, err := exec.Command("tar", "-xf", tarball, "-C", tree).CombinedOutput(); err != nil {
		t.Fatalf("tar: %v: %s", err, out)
	}
	var buf bytes.Buffer
	mv := module.Version{Path: "github.com/heed-asr/heed", Version: "v0.0.0-00010101000000-000000000000"}
	if err := modzip.CreateFromDir(&buf, mv, tree); err != nil {
		t.Fatal(err)
	}
	zr, err := zip.NewReader(bytes.NewReader(buf.Bytes()), int64(buf.Len()))
	if err != nil {
		t.Fatal(err)
	}
	prefix := mv.Path + "@" + mv.Version + "/"
	have := map[string]bool{}
	var unpacked uint64
	for _, f := range zr.File {
		name := strings.TrimPrefix(f.Name, prefix)
		have[name] = true
		unpacked += f.UncompressedSize64
		if strings.HasPrefix(name, "model/english/train/") {
			t.Errorf("the module zip holds %s", name)
		}
	}
	for _, name := range []string{"go.mod", "model/english/english.heed", "cmd/heed/main.go"} {
		if !have[name] {
			t.Errorf("the module zip lacks %s", name)
		}
	}
	st, err := os.Stat(filepath.Join("model", "english", "english.heed"))
	if err != nil {
		t.Fatal(err)
	}
	const code = 8 << 20
	t.Logf("module zip: %d files, %.1f MB (%.1f MB unpacked); embedded model %.1f MB",
		len(zr.File), float64(buf.Len())/1e6, float64(unpacked)/1e6, float64(st.Size())/1e6)
	if limit := st.Size() + code; int64(buf.Len()) > limit {
		t.Errorf("module zip is %d bytes, more than the model plus %d MB (%d)", buf.Len(), code>>20, limit)
	}
}
