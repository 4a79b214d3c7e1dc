package agentctx

import "maps"

// Publish publishes a context event: to the running agent when one is
// attached (Attach), else to the pending queue that the next run or
// TakeEvents drains. The payload is copied (one level).
func (c *Context) Publish(kind string, payload map[string]any) {
	ev := Event{Kind: kind, Payload: maps.Clone(payload)}
	c.mu.Lock()
	sink := c.sink
	if sink == nil {
		c.pending = append(c.pending, ev)
	}
	c.mu.Unlock()
	if sink != nil {
		sink(ev)
	}
}

// TakeEvents returns the pending events (published while no run was
// attached) and empties the queue.
func (c *Context) TakeEvents() []Event {
	c.mu.Lock()
	defer c.mu.Unlock()
	out := c.pending
	c.pending = nil
	return out
}

// Attach makes sink receive the context's events until the returned
// detach function is called: the pending events first, in order, then each
// event as it is published. The agent attaches its run's event stream for
// the run's duration. One sink at a time: Attach replaces an earlier one.
// sink is called without the context's lock held, from the publishing
// goroutine.
func (c *Context) Attach(sink func(Event)) (detach func()) {
	c.mu.Lock()
	pending := c.pending
	c.pending = nil
	c.sink = sink
	c.mu.Unlock()
	for _, ev := range pending {
		sink(ev)
	}
	return func() {
		c.mu.Lock()
		defer c.mu.Unlock()
		c.sink = nil
	}
}
