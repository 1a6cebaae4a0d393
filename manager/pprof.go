package manager

import (
	"fmt"
	"html"
	"net/http"
	"runtime"
	"runtime/pprof"
	"runtime/trace"
	"strconv"
	"strings"
	"time"
)

// maxProfileSeconds bounds the duration of a CPU profile or trace request.
const maxProfileSeconds = 300

// pprofHandler serves the runtime profiles under /debug/pprof/. It is
// written here rather than taken from net/http/pprof, whose import
// registers the same handlers on http.DefaultServeMux for the whole
// process: a program serving that mux would expose them without knowing.
func pprofHandler() http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		name := strings.TrimPrefix(r.URL.Path, "/debug/pprof/")
		switch name {
		case "":
			pprofIndex(w)
		case "profile":
			pprofTimed(w, r, "cpu.pprof", func() error { return pprof.StartCPUProfile(w) }, pprof.StopCPUProfile)
		case "trace":
			pprofTimed(w, r, "trace.out", func() error { return trace.Start(w) }, trace.Stop)
		default:
			p := pprof.Lookup(name)
			if p == nil {
				http.Error(w, "unknown profile "+strconv.Quote(name), http.StatusNotFound)
				return
			}
			debug, _ := strconv.Atoi(r.URL.Query().Get("debug"))
			if name == "heap" && r.URL.Query().Get("gc") != "" {
				runtime.GC()
			}
			if debug > 0 {
				w.Header().Set("Content-Type", "text/plain; charset=utf-8")
			} else {
				w.Header().Set("Content-Type", "application/octet-stream")
				w.Header().Set("Content-Disposition", `attachment; filename="`+name+`.pprof"`)
			}
			if err := p.WriteTo(w, debug); err != nil {
				http.Error(w, err.Error(), http.StatusInternalServerError)
			}
		}
	})
}

// pprofTimed runs a profile for ?seconds=N (default 30, at most
// maxProfileSeconds), ending early when the client goes away.
func pprofTimed(w http.ResponseWriter, r *http.Request, file string, start func() error, stop func()) {
	secs := 30
	if s := r.URL.Query().Get("seconds"); s != "" {
		n, err := strconv.Atoi(s)
		if err != nil || n <= 0 || n > maxProfileSeconds {
			http.Error(w, fmt.Sprintf("seconds must be an integer from 1 to %d", maxProfileSeconds), http.StatusBadRequest)
			return
		}
		secs = n
	}
	w.Header().Set("Content-Type", "application/octet-stream")
	w.Header().Set("Content-Disposition", `attachment; filename="`+file+`"`)
	if err := start(); err != nil {
		// Another profile of the kind is running.
		w.Header().Del("Content-Disposition")
		http.Error(w, err.Error(), http.StatusConflict)
		return
	}
	t := time.NewTimer(time.Duration(secs) * time.Second)
	defer t.Stop()
	select {
	case <-t.C:
	case <-r.Context().Done():
	}
	stop()
}

func pprofIndex(w http.ResponseWriter) {
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	var b strings.Builder
	b.WriteString("<html><body><p>Profiles:</p><ul>\n")
	for _, p := range pprof.Profiles() {
		n := html.EscapeString(p.Name())
		fmt.Fprintf(&b, "<li><a href=\"%s?debug=1\">%s</a> (%d)</li>\n", n, n, p.Count())
	}
	b.WriteString("<li><a href=\"profile?seconds=30\">profile</a> (CPU, 30 s)</li>\n")
	b.WriteString("<li><a href=\"trace?seconds=5\">trace</a> (5 s)</li>\n")
	b.WriteString("</ul></body></html>\n")
	_, _ = w.Write([]byte(b.String()))
}
