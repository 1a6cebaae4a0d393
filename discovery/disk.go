package discovery

import (
	"encoding/json"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"

	"github.com/kubego/kubego/rest"
)

// diskCache keeps one snapshot file per server under a directory.
type diskCache struct {
	path string
}

var unsafeChars = regexp.MustCompile(`[^A-Za-z0-9._-]`)

func newDiskCache(dir string, rc *rest.Client) *diskCache {
	host := "unknown"
	if u, err := rc.Get().AbsPath("/").URL(); err == nil {
		host = u.Host + u.Path
	}
	return &diskCache{path: filepath.Join(dir, unsafeChars.ReplaceAllString(host, "_"), "discovery.json")}
}

// cacheFile is the on-disk format; Version allows changing it later.
type cacheFile struct {
	Version  int       `json:"version"`
	Snapshot *Snapshot `json:"snapshot"`
}

const cacheFormat = 1

var errBadCache = errors.New("discovery: cache file has an unknown format")

func (d *diskCache) read() (*Snapshot, error) {
	data, err := os.ReadFile(d.path)
	if err != nil {
		return nil, err
	}
	var f cacheFile
	if err := json.Unmarshal(data, &f); err != nil {
		return nil, err
	}
	if f.Version != cacheFormat || f.Snapshot == nil {
		return nil, errBadCache
	}
	return f.Snapshot, nil
}

func (d *diskCache) write(s *Snapshot) error {
	data, err := json.Marshal(cacheFile{Version: cacheFormat, Snapshot: s})
	if err != nil {
		return err
	}
	dir := filepath.Dir(d.path)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return err
	}
	tmp, err := os.CreateTemp(dir, "discovery-*.tmp")
	if err != nil {
		return err
	}
	defer os.Remove(tmp.Name())
	if _, err := tmp.Write(data); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Close(); err != nil {
		return err
	}
	return os.Rename(tmp.Name(), d.path)
}

func (d *diskCache) remove() error { return os.Remove(d.path) }

func isNotExist(err error) bool { return errors.Is(err, fs.ErrNotExist) }
