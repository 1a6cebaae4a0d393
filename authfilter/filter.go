package authfilter

import (
	"context"
	"crypto/sha256"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"time"

	authenticationv1 "k8s.io/api/authentication/v1"
	authorizationv1 "k8s.io/api/authorization/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kubego/kubego/client"
	"github.com/kubego/kubego/clock"
	"github.com/kubego/kubego/internal/defaultlog"
)

// Defaults of Options.
const (
	DefaultAllowTTL        = time.Minute
	DefaultDenyTTL         = 10 * time.Second
	DefaultMaxCacheEntries = 4096
	DefaultReviewTimeout   = 10 * time.Second
)

var (
	// ErrUnauthenticated is wrapped by Check's error when the request has
	// no bearer token or the API server does not authenticate it.
	ErrUnauthenticated = errors.New("authfilter: unauthenticated")
	// ErrForbidden is wrapped by Check's error when the API server does not
	// authorize the authenticated user for the request.
	ErrForbidden = errors.New("authfilter: forbidden")
	// ErrUnavailable is wrapped by Check's error when a review could not be
	// made; the cause is wrapped too.
	ErrUnavailable = errors.New("authfilter: review unavailable")
	// ErrInvalidOptions is wrapped by New's error for options that cannot
	// work.
	ErrInvalidOptions = errors.New("authfilter: invalid options")
)

// Options configure a Filter. Client is required; every other zero value
// picks the documented default.
type Options struct {
	// Client makes the TokenReviews and SubjectAccessReviews.
	Client *client.Client
	// Audiences are the audiences the token must be valid for; empty means
	// the API server's own.
	Audiences []string
	// AllowTTL is how long an authenticated token and an allowed request
	// are remembered; zero means DefaultAllowTTL.
	AllowTTL time.Duration
	// DenyTTL is how long a token that was not authenticated and a request
	// that was not allowed are remembered; zero means DefaultDenyTTL.
	// Failed reviews are never remembered.
	DenyTTL time.Duration
	// MaxCacheEntries bounds each of the two caches; zero means
	// DefaultMaxCacheEntries.
	MaxCacheEntries int
	// ReviewTimeout bounds each review call; zero means
	// DefaultReviewTimeout.
	ReviewTimeout time.Duration
	// Logger receives failed reviews (Warn) and decisions (Debug); nil sends
	// warnings to slog.Default().
	Logger *slog.Logger
	// Clock is the time source of the caches; nil is the wall clock.
	Clock clock.Clock
}

// Filter checks requests with the API server. Its methods are safe for
// concurrent use.
type Filter struct {
	opts    Options
	log     *slog.Logger
	clock   clock.Clock
	users   *cache[userResult]
	verdict *cache[verdict]
}

type userResult struct {
	user          authenticationv1.UserInfo
	authenticated bool
}

type verdict struct {
	allowed bool
	reason  string
}

// New checks the options.
func New(opts Options) (*Filter, error) {
	if opts.Client == nil {
		return nil, fmt.Errorf("%w: Client is required", ErrInvalidOptions)
	}
	if opts.AllowTTL < 0 || opts.DenyTTL < 0 || opts.MaxCacheEntries < 0 || opts.ReviewTimeout < 0 {
		return nil, fmt.Errorf("%w: negative AllowTTL, DenyTTL, MaxCacheEntries or ReviewTimeout", ErrInvalidOptions)
	}
	if opts.AllowTTL == 0 {
		opts.AllowTTL = DefaultAllowTTL
	}
	if opts.DenyTTL == 0 {
		opts.DenyTTL = DefaultDenyTTL
	}
	if opts.MaxCacheEntries == 0 {
		opts.MaxCacheEntries = DefaultMaxCacheEntries
	}
	if opts.ReviewTimeout == 0 {
		opts.ReviewTimeout = DefaultReviewTimeout
	}
	clk := clock.Or(opts.Clock)
	return &Filter{
		opts:    opts,
		log:     defaultlog.Or(opts.Logger),
		clock:   clk,
		users:   newCache[userResult](clk, opts.MaxCacheEntries),
		verdict: newCache[verdict](clk, opts.MaxCacheEntries),
	}, nil
}

// Wrap returns a handler that serves next only to requests Check lets
// through, and otherwise answers 401 (with a WWW-Authenticate challenge),
// 403 or 503 with a one-line plain-text message.
func (f *Filter) Wrap(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, err := f.Check(r)
		switch {
		case err == nil:
			next.ServeHTTP(w, r)
		case errors.Is(err, ErrUnauthenticated):
			w.Header().Set("WWW-Authenticate", `Bearer realm="kubernetes"`)
			http.Error(w, "Unauthorized", http.StatusUnauthorized)
		case errors.Is(err, ErrForbidden):
			http.Error(w, err.Error(), http.StatusForbidden)
		default:
			http.Error(w, "authentication or authorization is unavailable", http.StatusServiceUnavailable)
		}
	})
}

// Check authenticates the request's bearer token and authorizes its verb
// and path for the token's user. It returns the user, or an error wrapping
// ErrUnauthenticated, ErrForbidden or ErrUnavailable. The message of an
// ErrForbidden error names the user, verb and path and may be shown to the
// caller; the others carry no token.
func (f *Filter) Check(r *http.Request) (authenticationv1.UserInfo, error) {
	token, ok := bearer(r)
	if !ok {
		return authenticationv1.UserInfo{}, fmt.Errorf("%w: no bearer token", ErrUnauthenticated)
	}
	u, err := f.authenticate(r.Context(), token)
	if err != nil {
		return authenticationv1.UserInfo{}, err
	}
	verb := verbOf(r.Method)
	v, err := f.authorize(r.Context(), u, verb, r.URL.Path)
	if err != nil {
		return u, err
	}
	if !v.allowed {
		msg := fmt.Sprintf("%v: user %q cannot %s path %q", ErrForbidden, u.Username, verb, r.URL.Path)
		if v.reason != "" {
			msg += ": " + v.reason
		}
		f.log.Debug("authfilter: request denied", "user", u.Username, "verb", verb, "path", r.URL.Path)
		return u, &forbiddenError{msg: msg}
	}
	return u, nil
}

type forbiddenError struct{ msg string }

func (e *forbiddenError) Error() string { return e.msg }
func (e *forbiddenError) Unwrap() error { return ErrForbidden }

// bearer returns the token of an "Authorization: Bearer <token>" header.
func bearer(r *http.Request) (string, bool) {
	h := r.Header.Get("Authorization")
	scheme, token, ok := strings.Cut(h, " ")
	if !ok || !strings.EqualFold(scheme, "bearer") {
		return "", false
	}
	token = strings.TrimSpace(token)
	return token, token != ""
}

// verbOf maps an HTTP method to the verb of a non-resource request, as
// kube-apiserver does.
func verbOf(method string) string {
	if method == http.MethodHead {
		return "get"
	}
	return strings.ToLower(method)
}

func (f *Filter) authenticate(ctx context.Context, token string) (authenticationv1.UserInfo, error) {
	sum := sha256.Sum256([]byte(token))
	key := string(sum[:])
	if res, ok := f.users.get(key); ok {
		return res.user, unauthenticated(res)
	}
	ctx, cancel := context.WithTimeout(ctx, f.opts.ReviewTimeout)
	defer cancel()
	tr, err := client.Typed[*authenticationv1.TokenReview](f.opts.Client).Create(ctx, &authenticationv1.TokenReview{
		Spec: authenticationv1.TokenReviewSpec{Token: token, Audiences: f.opts.Audiences},
	}, metav1.CreateOptions{})
	if err != nil {
		f.log.Warn("authfilter: TokenReview failed", "err", err)
		return authenticationv1.UserInfo{}, fmt.Errorf("%w: TokenReview: %w", ErrUnavailable, err)
	}
	res := userResult{user: tr.Status.User, authenticated: tr.Status.Authenticated}
	ttl := f.opts.AllowTTL
	if !res.authenticated {
		ttl = f.opts.DenyTTL
		f.log.Debug("authfilter: token not authenticated", "error", tr.Status.Error)
	}
	f.users.put(key, res, ttl)
	return res.user, unauthenticated(res)
}

func unauthenticated(res userResult) error {
	if res.authenticated {
		return nil
	}
	return fmt.Errorf("%w: token not accepted", ErrUnauthenticated)
}

func (f *Filter) authorize(ctx context.Context, u authenticationv1.UserInfo, verb, path string) (verdict, error) {
	key := decisionKey(u, verb, path)
	if v, ok := f.verdict.get(key); ok {
		return v, nil
	}
	extra := make(map[string]authorizationv1.ExtraValue, len(u.Extra))
	for k, v := range u.Extra {
		extra[k] = authorizationv1.ExtraValue(v)
	}
	ctx, cancel := context.WithTimeout(ctx, f.opts.ReviewTimeout)
	defer cancel()
	sar, err := client.Typed[*authorizationv1.SubjectAccessReview](f.opts.Client).Create(ctx, &authorizationv1.SubjectAccessReview{
		Spec: authorizationv1.SubjectAccessReviewSpec{
			User:                  u.Username,
			UID:                   u.UID,
			Groups:                u.Groups,
			Extra:                 extra,
			NonResourceAttributes: &authorizationv1.NonResourceAttributes{Path: path, Verb: verb},
		},
	}, metav1.CreateOptions{})
	if err != nil {
		f.log.Warn("authfilter: SubjectAccessReview failed", "err", err)
		return verdict{}, fmt.Errorf("%w: SubjectAccessReview: %w", ErrUnavailable, err)
	}
	v := verdict{allowed: sar.Status.Allowed && !sar.Status.Denied, reason: sar.Status.Reason}
	ttl := f.opts.AllowTTL
	if !v.allowed {
		ttl = f.opts.DenyTTL
	}
	f.verdict.put(key, v, ttl)
	return v, nil
}

// decisionKey identifies a SubjectAccessReview: every field of the user and
// the request, each quoted so no two different inputs share a key.
func decisionKey(u authenticationv1.UserInfo, verb, path string) string {
	var b strings.Builder
	for _, s := range []string{u.Username, u.UID, verb, path} {
		b.WriteString(strconv.Quote(s))
	}
	b.WriteString(strconv.Itoa(len(u.Groups)))
	for _, g := range u.Groups {
		b.WriteString(strconv.Quote(g))
	}
	keys := make([]string, 0, len(u.Extra))
	for k := range u.Extra {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	for _, k := range keys {
		b.WriteString(strconv.Quote(k))
		b.WriteString(strconv.Itoa(len(u.Extra[k])))
		for _, v := range u.Extra[k] {
			b.WriteString(strconv.Quote(v))
		}
	}
	return b.String()
}
