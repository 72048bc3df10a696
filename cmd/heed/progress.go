package main

import (
	"fmt"
	"io"
	"os"
	"strings"
	"sync"
	"time"
)

// progress counts a batch's inputs as they finish. When live, it redraws
// one status line on a terminal (files done, hours of audio, speed as a
// multiple of real time, ETA) and keeps it below the messages written
// through it; Summary gives the closing line either way.
type progress struct {
	mu         sync.Mutex
	w          io.Writer // standard error
	live       bool      // draw the status line
	start      time.Time
	total      int   // inputs to decode
	totalBytes int64 // their file sizes, for the ETA
	done       int
	failed     int
	skipped    int     // outputs that already existed
	audio      float64 // seconds of audio decoded
	doneBytes  int64
	drawn      int // length of the status line on screen (0: none)
	last       time.Time
	stop       chan struct{}
	stopped    sync.WaitGroup
}

// isTerminal reports whether w is a character device such as a terminal.
func isTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	if !ok {
		return false
	}
	fi, err := f.Stat()
	return err == nil && fi.Mode()&os.ModeCharDevice != 0
}

// newProgress starts counting total inputs of totalBytes bytes. A live
// progress redraws its line every half second until Close.
func newProgress(w io.Writer, live bool, total int, totalBytes int64) *progress {
	p := &progress{w: w, live: live, start: time.Now(), total: total, totalBytes: totalBytes, stop: make(chan struct{})}
	if live {
		p.stopped.Add(1)
		go func() {
			defer p.stopped.Done()
			t := time.NewTicker(500 * time.Millisecond)
			defer t.Stop()
			for {
				select {
				case <-p.stop:
					return
				case <-t.C:
					p.mu.Lock()
					p.draw()
					p.mu.Unlock()
				}
			}
		}()
	}
	return p
}

// Write writes a message (whole lines) above the status line.
func (p *progress) Write(b []byte) (int, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.clear()
	n, err := p.w.Write(b)
	p.draw()
	return n, err
}

// Finished counts one input of size bytes: decoded (audio seconds) or
// failed.
func (p *progress) Finished(bytes int64, audio float64, failed bool) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if failed {
		p.failed++
	} else {
		p.done++
		p.audio += audio
	}
	p.doneBytes += bytes
	if time.Since(p.last) > 100*time.Millisecond {
		p.draw()
	}
}

// Close stops redrawing and erases the status line.
func (p *progress) Close() {
	close(p.stop)
	p.stopped.Wait()
	p.mu.Lock()
	p.clear()
	p.live = false // inputs abandoned after an interrupt may still finish
	p.mu.Unlock()
}

// clear erases the status line (without escape sequences: spaces, then a
// carriage return, so that any terminal understands it).
func (p *progress) clear() {
	if p.drawn > 0 {
		fmt.Fprintf(p.w, "\r%s\r", strings.Repeat(" ", p.drawn))
		p.drawn = 0
	}
}

func (p *progress) draw() {
	if !p.live {
		return
	}
	line := p.status(time.Since(p.start))
	pad := max(0, p.drawn-len(line))
	fmt.Fprintf(p.w, "\r%s%s", line, strings.Repeat(" ", pad))
	p.drawn = len(line)
	p.last = time.Now()
}

// status is the status line after elapsed time:
//
//	[=======>      ] 312/1000 files, 1.2 h audio, 41.3x real time, ETA 4m12s
func (p *progress) status(elapsed time.Duration) string {
	const width = 20
	finished := p.done + p.failed
	bar := strings.Repeat(" ", width)
	if p.total > 0 {
		n := min(width, finished*width/p.total)
		bar = strings.Repeat("=", n) + strings.Repeat(" ", width-n)
		if n < width {
			bar = bar[:n] + ">" + bar[n+1:]
		}
	}
	s := fmt.Sprintf("[%s] %d/%d files", bar, finished, p.total)
	if p.failed > 0 {
		s += fmt.Sprintf(" (%d failed)", p.failed)
	}
	s += ", " + hours(p.audio) + " audio"
	if sec := elapsed.Seconds(); sec > 0 && p.audio > 0 {
		s += fmt.Sprintf(", %.1fx real time", p.audio/sec)
	}
	if p.doneBytes > 0 && p.totalBytes > p.doneBytes {
		eta := time.Duration(float64(elapsed) * float64(p.totalBytes-p.doneBytes) / float64(p.doneBytes))
		s += ", ETA " + eta.Round(time.Second).String()
	}
	return s
}

// Summary returns the closing line, such as
//
//	heed: 998 done, 2 failed, 12.5 h of audio in 9m14s
//
// followed by the inputs skipped because their output existed, if any.
func (p *progress) Summary() string {
	p.mu.Lock()
	defer p.mu.Unlock()
	el := time.Since(p.start)
	if el >= time.Second {
		el = el.Round(time.Second)
	} else {
		el = el.Round(time.Millisecond)
	}
	s := fmt.Sprintf("heed: %d done, %d failed, %s of audio in %v", p.done, p.failed, hours(p.audio), el)
	if p.skipped > 0 {
		s += fmt.Sprintf("; %d skipped: output exists (--force redoes them)", p.skipped)
	}
	return s
}

// hours formats a duration in seconds as hours, minutes or seconds,
// whichever reads best: "12.5 h", "3.2 min", "4.1 s".
func hours(sec float64) string {
	switch {
	case sec >= 3600:
		return fmt.Sprintf("%.1f h", sec/3600)
	case sec >= 60:
		return fmt.Sprintf("%.1f min", sec/60)
	}
	return fmt.Sprintf("%.1f s", sec)
}
