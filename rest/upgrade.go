package rest

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
)

// ErrNotUpgraded is wrapped by the error of Upgrade when the server answered
// with a success status other than 101 Switching Protocols: it does not
// speak the protocol asked for on that path.
var ErrNotUpgraded = errors.New("rest: the server did not switch protocols")

// Upgrade sends the request as an HTTP/1.1 upgrade (its headers, set with
// SetHeader, name the protocol: "Connection: Upgrade", "Upgrade: websocket"
// …) through the client's own transport chain — the same credentials, TLS,
// proxy, impersonation and user agent as every other request — and returns
// the upgraded connection with the headers of the 101 answer. The request
// is sent on a connection of its own (HTTP/2 cannot carry an upgrade).
//
// Errors: a non-2xx answer is an *apierrors.StatusError (a 403 carries the
// server's cause); another 2xx is ErrNotUpgraded; no answer at all is a
// *TransportError. The caller owns the connection and must close it;
// cancelling ctx after Upgrade returns does not close it.
func (r *Request) Upgrade(ctx context.Context) (io.ReadWriteCloser, http.Header, error) {
	resp, err := r.send(ctx, false)
	if err != nil {
		return nil, nil, err
	}
	r.c.handleWarnings(resp.Header, r.secrets)
	if resp.StatusCode != http.StatusSwitchingProtocols {
		if !success(resp.StatusCode) {
			return nil, nil, r.errorFromResponse(resp)
		}
		drain(resp.Body)
		return nil, nil, fmt.Errorf("%w: %s %s %s answered %d", ErrNotUpgraded, r.verb, r.resource, r.name, resp.StatusCode)
	}
	// Unwrap what send put around the transport's body (which, for a 101,
	// is the connection itself).
	body := resp.Body
	for {
		switch b := body.(type) {
		case *cancelOnClose:
			body = b.ReadCloser
			continue
		case *attemptBody:
			body = b.ReadCloser
			continue
		}
		break
	}
	rwc, ok := body.(io.ReadWriteCloser)
	if !ok {
		_ = resp.Body.Close()
		return nil, nil, fmt.Errorf("%w: the transport gave no writable connection", ErrNotUpgraded)
	}
	return &upgraded{ReadWriteCloser: rwc, done: resp.Body}, resp.Header, nil
}

// upgraded is an upgraded connection whose Close also releases what the
// request held (its header-timeout context).
type upgraded struct {
	io.ReadWriteCloser
	done io.Closer
}

func (u *upgraded) Close() error {
	err := u.ReadWriteCloser.Close()
	_ = u.done.Close()
	return err
}
