package rest

// CloseIdleConnections closes the connections of the client's pool that
// carry no request now; connections in use (a watch, a request in flight)
// are left alone and close when their stream ends and they idle out. The
// pool is shared with every client built from a Config of equal transport
// settings (see Client), whatever its host: their idle connections are
// closed too, and they open new ones when next needed. Call it when the
// API server the client talked to is gone for good (a cluster removed from
// a program), so that no connection to it stays open until the idle
// timeout.
func (c *Client) CloseIdleConnections() {
	if c == nil {
		return
	}
	c.transport.CloseIdleConnections()
}
