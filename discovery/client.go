package discovery

import (
	"context"
	"encoding/json"
	"log/slog"
	"sync"
	"time"

	"k8s.io/apimachinery/pkg/version"

	"github.com/kubego/kubego/clock"
	"github.com/kubego/kubego/internal/defaultlog"
	"github.com/kubego/kubego/rest"
)

// DefaultTTL is how long a snapshot is used before it is fetched again,
// when Options.TTL is zero.
const DefaultTTL = 10 * time.Minute

// Options configure a Client. The zero value caches in memory for
// DefaultTTL and not on disk.
type Options struct {
	// TTL is how long a snapshot (in memory or on disk) stays valid.
	// Zero means DefaultTTL; negative means no caching at all.
	TTL time.Duration
	// CacheDir, when set, keeps snapshots on disk too, one file per server
	// (by host), so a new process starts warm. Files are written with
	// mode 0600 and replaced atomically.
	CacheDir string
	// DisableAggregated asks for legacy per-group discovery only.
	DisableAggregated bool
	// Clock tells the time for TTLs. Nil means the real clock.
	Clock clock.Clock
	// Logger receives warnings about unreadable or unwritable cache files.
	// Nil means slog.Default() (for warnings; nothing else is logged).
	Logger *slog.Logger
}

// Client answers discovery questions about one server, caching the
// answers. It is safe for concurrent use; concurrent callers that miss the
// cache share one fetch.
type Client struct {
	rest   *rest.Client
	opts   Options
	clock  clock.Clock
	logger *slog.Logger
	disk   *diskCache // nil without CacheDir

	mu       sync.Mutex
	snap     *Snapshot
	snapErr  error         // the *PartialError of snap, if any
	inflight chan struct{} // closed when the running fetch ends
}

// New returns a discovery Client talking through rc.
func New(rc *rest.Client, opts Options) *Client {
	c := &Client{rest: rc, opts: opts, clock: clock.Or(opts.Clock), logger: opts.Logger}
	c.logger = defaultlog.Or(c.logger)
	if c.opts.TTL == 0 {
		c.opts.TTL = DefaultTTL
	}
	if opts.CacheDir != "" {
		c.disk = newDiskCache(opts.CacheDir, rc)
	}
	return c
}

// ServerVersion returns the server's /version. It is not cached.
func (c *Client) ServerVersion(ctx context.Context) (*version.Info, error) {
	body, err := c.rest.Get().AbsPath("/version").Accept("application/json").DoRaw(ctx)
	if err != nil {
		return nil, err
	}
	var info version.Info
	if err := json.Unmarshal(body, &info); err != nil {
		return nil, &rest.DecodeError{ContentType: "application/json", Err: err}
	}
	return &info, nil
}

// Snapshot returns what the server serves: from memory while it is fresher
// than the TTL, else from the disk cache, else from the server. When some
// group/versions failed, it returns the usable snapshot together with a
// *PartialError; a snapshot is nil only with any other error. The snapshot
// is shared and must not be modified. A partial snapshot is kept in memory
// like a complete one, but never written to disk; Invalidate (which a
// RESTMapper miss does) retries the failed group/versions.
func (c *Client) Snapshot(ctx context.Context) (*Snapshot, error) {
	for {
		c.mu.Lock()
		if c.snap != nil && c.fresh(c.snap) {
			s, err := c.snap, c.snapErr
			c.mu.Unlock()
			return s, err
		}
		if wait := c.inflight; wait != nil {
			c.mu.Unlock()
			select {
			case <-wait:
				continue
			case <-ctx.Done():
				return nil, ctx.Err()
			}
		}
		done := make(chan struct{})
		c.inflight = done
		c.mu.Unlock()

		snap, err := c.load(ctx)

		c.mu.Lock()
		c.inflight = nil
		if snap != nil {
			c.snap, c.snapErr = snap, err
		}
		c.mu.Unlock()
		close(done)
		return snap, err
	}
}

// load reads the disk cache or the server.
func (c *Client) load(ctx context.Context) (*Snapshot, error) {
	if c.disk != nil && c.opts.TTL > 0 {
		if s, err := c.disk.read(); err == nil && c.fresh(s) {
			return s, nil
		} else if err != nil && !isNotExist(err) {
			c.logger.Warn("discovery: ignoring unreadable cache file", "err", err)
		}
	}
	snap, err := c.fetch(ctx)
	if snap != nil && err == nil && c.disk != nil && c.opts.TTL > 0 {
		if werr := c.disk.write(snap); werr != nil {
			c.logger.Warn("discovery: cannot write cache file", "err", werr)
		}
	}
	return snap, err
}

func (c *Client) fresh(s *Snapshot) bool {
	if c.opts.TTL < 0 {
		return false
	}
	age := c.clock.Now().Sub(s.Fetched)
	return age >= 0 && age < c.opts.TTL
}

// Invalidate drops the cached snapshot, in memory and on disk, so the next
// Snapshot asks the server. A fetch already running is not affected.
func (c *Client) Invalidate() {
	c.mu.Lock()
	c.snap, c.snapErr = nil, nil
	c.mu.Unlock()
	if c.disk != nil {
		if err := c.disk.remove(); err != nil && !isNotExist(err) {
			c.logger.Warn("discovery: cannot remove cache file", "err", err)
		}
	}
}
