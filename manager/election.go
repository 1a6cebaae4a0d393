package manager

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"os"

	"github.com/kubego/kubego/leaderelection"
	"github.com/kubego/kubego/leaderelection/promleader"
)

// setupElection builds the elector of Options.LeaderElection: it fills in
// the identity, metrics and logger, and chains the Manager's callbacks
// (which start the leader-only runnables) before the user's.
func (m *Manager) setupElection(cfg leaderelection.Config) error {
	if cfg.Identity == "" {
		host, _ := os.Hostname()
		var b [4]byte
		_, _ = rand.Read(b[:])
		cfg.Identity = host + "_" + hex.EncodeToString(b[:])
	}
	lm, err := promleader.New(promleader.Options{Registerer: m.registry})
	if err != nil {
		return fmt.Errorf("leader election metrics: %w", err)
	}
	cfg.Metrics = lm
	if cfg.Logger == nil {
		cfg.Logger = m.log
	}
	user := cfg.Callbacks
	cfg.Callbacks.OnStartedLeading = func(ctx context.Context) {
		m.leading.Store(true)
		m.electedOnce.Do(func() { close(m.elected) })
		if user.OnStartedLeading != nil {
			go user.OnStartedLeading(ctx)
		}
		m.runLeaderRunnables(ctx)
	}
	cfg.Callbacks.OnStoppedLeading = func() {
		m.leading.Store(false)
		if user.OnStoppedLeading != nil {
			user.OnStoppedLeading()
		}
	}
	e, err := leaderelection.New(leaderelection.NewStore(m.client), cfg)
	if err != nil {
		return err
	}
	m.elector = e
	return nil
}
