package kubeconfig

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"unicode/utf8"

	yamlv2 "go.yaml.in/yaml/v2"
	"sigs.k8s.io/yaml"
)

// MaxFileSize bounds a kubeconfig file. Real ones are a few KiB; inline
// certificates keep them well under this.
const MaxFileSize = 4 << 20

// maxExpanded bounds the size a document may reach once its YAML aliases
// are expanded (scalar bytes plus a charge per node).
const maxExpanded = 4 * MaxFileSize

// Parse decodes a kubeconfig from YAML or JSON. origin names the file it
// came from (for relative paths and errors; may be empty). Unknown fields
// are ignored. Within one file, the first entry with a given name wins;
// entries without a name are skipped.
//
// Errors are *Error wrapping ErrTooLarge, ErrAliasBomb or ErrSyntax.
func Parse(data []byte, origin string) (*File, error) {
	if len(data) > MaxFileSize {
		return nil, fieldErr(origin, "", ErrTooLarge)
	}
	if bytes.IndexByte(data, '*') >= 0 {
		if err := checkAliases(data); err != nil {
			return nil, fieldErr(origin, "", err)
		}
	}
	var w wireFile
	if err := yaml.Unmarshal(data, &w); err != nil {
		return nil, fieldErr(origin, "", fmt.Errorf("%w: %s", ErrSyntax, cleanYAMLError(err)))
	}
	f := &File{
		Clusters:       map[string]*Cluster{},
		Users:          map[string]*User{},
		Contexts:       map[string]*Context{},
		CurrentContext: w.CurrentContext,
	}
	if origin != "" {
		f.files = []string{origin}
		if f.CurrentContext != "" {
			f.currentFrom = origin
		}
	}
	for _, c := range w.Clusters {
		if c.Name == "" || f.Clusters[c.Name] != nil {
			continue
		}
		if c.Cluster == nil {
			c.Cluster = &Cluster{}
		}
		c.Cluster.Origin = origin
		f.Clusters[c.Name] = c.Cluster
	}
	for _, u := range w.Users {
		if u.Name == "" || f.Users[u.Name] != nil {
			continue
		}
		if u.User == nil {
			u.User = &User{}
		}
		u.User.Origin = origin
		f.Users[u.Name] = u.User
	}
	for _, c := range w.Contexts {
		if c.Name == "" || f.Contexts[c.Name] != nil {
			continue
		}
		if c.Context == nil {
			c.Context = &Context{}
		}
		c.Context.Origin = origin
		f.Contexts[c.Name] = c.Context
	}
	return f, nil
}

// cleanYAMLError returns the parser's message without any value from the
// document: the YAML parser quotes a mapping used as a key in full (a
// flow mapping such as "{token: …}: x" would put a token in the error),
// the YAML-to-JSON step quotes unsupported keys and values, type errors
// quote scalars between backticks, and anchor names come in single quotes.
// Positions, types and single quoted characters are kept.
func cleanYAMLError(err error) string {
	msg := strings.TrimPrefix(err.Error(), "error converting YAML to JSON: ")
	for _, marker := range []string{"invalid map key", "unsupported map key"} {
		if i := strings.Index(msg, marker); i >= 0 {
			msg = msg[:i] + marker + " (a mapping, sequence or other value that cannot be a key)"
		}
	}
	msg = dropQuoted(msg, '`', 0)
	msg = dropQuoted(msg, '"', 0)
	return dropQuoted(msg, '\'', utf8.UTFMax)
}

// dropQuoted replaces the text between each pair of q with "…", unless it
// is at most keep bytes long.
func dropQuoted(s string, q byte, keep int) string {
	var b strings.Builder
	for {
		i := strings.IndexByte(s, q)
		if i < 0 {
			break
		}
		j := strings.IndexByte(s[i+1:], q)
		if j < 0 {
			if len(s)-i-1 > keep {
				s = s[:i+1] + "…"
			}
			break
		}
		b.WriteString(s[:i+1])
		if quoted := s[i+1 : i+1+j]; len(quoted) <= keep {
			b.WriteString(quoted)
		} else {
			b.WriteString("…")
		}
		b.WriteByte(q)
		s = s[i+1+j+1:]
	}
	b.WriteString(s)
	return b.String()
}

// checkAliases decodes data with alias expansion and measures the result,
// so that a small document cannot expand into gigabytes when converted.
func checkAliases(data []byte) error {
	var v any
	if err := yamlv2.Unmarshal(data, &v); err != nil {
		if strings.Contains(err.Error(), "excessive aliasing") {
			return ErrAliasBomb
		}
		return fmt.Errorf("%w: %s", ErrSyntax, cleanYAMLError(err))
	}
	budget := maxExpanded
	if !measure(v, &budget) {
		return ErrAliasBomb
	}
	return nil
}

// measure subtracts v's expanded size from budget, stopping early once it
// is spent. It reports whether v fits.
func measure(v any, budget *int) bool {
	*budget -= 8
	if *budget < 0 {
		return false
	}
	switch v := v.(type) {
	case string:
		*budget -= len(v)
	case []any:
		for _, e := range v {
			if !measure(e, budget) {
				return false
			}
		}
	case map[any]any:
		for k, e := range v {
			if !measure(k, budget) || !measure(e, budget) {
				return false
			}
		}
	}
	return *budget >= 0
}

// ReadFile reads and parses one kubeconfig file. The path is made absolute
// so that relative paths inside resolve against its directory. Errors are
// *Error; a missing file wraps fs.ErrNotExist.
func ReadFile(path string) (*File, error) {
	abs, err := filepath.Abs(path)
	if err != nil {
		return nil, fieldErr(path, "", err)
	}
	fh, err := os.Open(abs)
	if err != nil {
		return nil, fieldErr(abs, "", unwrapPathError(err))
	}
	defer fh.Close()
	data, err := io.ReadAll(io.LimitReader(fh, MaxFileSize+1))
	if err != nil {
		return nil, fieldErr(abs, "", unwrapPathError(err))
	}
	return Parse(data, abs)
}

// unwrapPathError drops the path from an *fs.PathError (Error names the file
// already) but keeps the operation.
func unwrapPathError(err error) error {
	var pe *os.PathError
	if errors.As(err, &pe) {
		return fmt.Errorf("%s: %w", pe.Op, pe.Err)
	}
	return err
}

// ReadFiles reads the files in order and merges them as kubectl merges a
// KUBECONFIG list: for each cluster, user and context name, the first file
// that defines it wins (entries are taken whole, not merged field by
// field); current-context comes from the first file that sets it. Empty
// and repeated paths are skipped, and so are files that do not exist; if
// none exists the error wraps ErrNoConfig. Any other read or parse error
// fails the whole load.
func ReadFiles(paths ...string) (*File, error) {
	merged := &File{Clusters: map[string]*Cluster{}, Users: map[string]*User{}, Contexts: map[string]*Context{}}
	seen := map[string]bool{}
	var missing []string
	for _, p := range paths {
		if p == "" {
			continue
		}
		abs, err := filepath.Abs(p)
		if err != nil || seen[abs] {
			continue
		}
		seen[abs] = true
		f, err := ReadFile(abs)
		if errors.Is(err, os.ErrNotExist) {
			missing = append(missing, abs)
			continue
		}
		if err != nil {
			return nil, err
		}
		merged.merge(f)
	}
	if len(merged.files) == 0 {
		return nil, &Error{File: strings.Join(missing, string(filepath.ListSeparator)), Err: ErrNoConfig}
	}
	return merged, nil
}

// merge adds src's entries that f lacks, and its current-context if f has
// none.
func (f *File) merge(src *File) {
	for k, v := range src.Clusters {
		if _, ok := f.Clusters[k]; !ok {
			f.Clusters[k] = v
		}
	}
	for k, v := range src.Users {
		if _, ok := f.Users[k]; !ok {
			f.Users[k] = v
		}
	}
	for k, v := range src.Contexts {
		if _, ok := f.Contexts[k]; !ok {
			f.Contexts[k] = v
		}
	}
	if f.CurrentContext == "" && src.CurrentContext != "" {
		f.CurrentContext, f.currentFrom = src.CurrentContext, src.currentFrom
	}
	f.files = append(f.files, src.files...)
}
