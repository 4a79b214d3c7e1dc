package agentctx

import (
	"fmt"
	"slices"
)

// Task is one entry of the context's task list, which task tools keep.
type Task struct {
	ID     string `json:"id"`
	Title  string `json:"title"`
	Status string `json:"status"`
}

// Task statuses.
const (
	TaskPending    = "pending"
	TaskInProgress = "in_progress"
	TaskDone       = "done"
)

// Tasks returns a copy of the task list.
func (c *Context) Tasks() []Task {
	c.mu.Lock()
	defer c.mu.Unlock()
	return slices.Clone(c.tasks)
}

// AddTask appends a pending task and returns it.
func (c *Context) AddTask(title string) Task {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.nextTask++
	t := Task{ID: fmt.Sprintf("task_%d", c.nextTask), Title: title, Status: TaskPending}
	c.tasks = append(c.tasks, t)
	return t
}

// SetTaskStatus changes a task's status; it reports whether the task
// exists.
func (c *Context) SetTaskStatus(id, status string) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	for i := range c.tasks {
		if c.tasks[i].ID == id {
			c.tasks[i].Status = status
			return true
		}
	}
	return false
}
