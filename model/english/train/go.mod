// This directory is a module of its own so that the main module's zip, and
// so `go install github.com/heed-asr/heed/cmd/heed@latest`, leaves out the
// 49 MB training checkpoint. Nothing imports it; see README.md here.
module github.com/heed-asr/heed/model/english/train

go 1.26.0
