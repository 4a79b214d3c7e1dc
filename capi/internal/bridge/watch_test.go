package bridge

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

// recordedItem is a started item that records how it ended.
type recordedItem struct {
	mu   sync.Mutex
	data []string
	raw  [][]byte // data as received, not copied
	errs []error
}

func (it *recordedItem) appendItem(token int64) ([]byte, error) {
	return []byte(fmt.Sprintf(`{"kind":"call","token":%d}`, token)), nil
}

func (it *recordedItem) complete(data []byte, err error) {
	it.mu.Lock()
	defer it.mu.Unlock()
	it.data, it.errs = append(it.data, string(data)), append(it.errs, err)
	it.raw = append(it.raw, data)
}

func (it *recordedItem) ended() ([]string, []error) {
	it.mu.Lock()
	defer it.mu.Unlock()
	return it.data, it.errs
}

// The items started on one context share one watch, which goes once none
// of them is awaited. When the context ends, the host is told to cancel
// each item still awaited, in the order they were started, each completes
// once with the context's error, and a late completion is dropped.
func TestStartedItemsShareTheirContextWatch(t *testing.T) {
	run, err := newHostRun()
	if err != nil {
		t.Fatal(err)
	}
	defer run.closePipes()
	watched := func() int {
		run.mu.Lock()
		defer run.mu.Unlock()
		return len(run.watches.by)
	}

	// Answered: the watch goes with the last answer.
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	items := make([]*recordedItem, 3)
	for i := range items {
		items[i] = &recordedItem{}
		run.start(ctx, items[i])
	}
	if n := watched(); n != 1 {
		t.Fatalf("%d watches for one context", n)
	}
	for tok := int64(1); tok <= 3; tok++ {
		if !run.complete(tok, []byte(`{"ok":true}`)) {
			t.Fatalf("token %d not awaited", tok)
		}
	}
	if n := watched(); n != 0 {
		t.Fatalf("%d watches once every item was answered", n)
	}
	rd := &reader{fd: run.rfd}
	rd.next(t) // the three call items

	// Cancelled: one answered, the other two cancelled in order.
	ctx2, cancel2 := context.WithCancel(context.Background())
	var rest []*recordedItem
	for range 3 {
		it := &recordedItem{}
		rest = append(rest, it)
		run.start(ctx2, it)
	}
	run.complete(4, []byte(`{"ok":true}`))
	cancel2()
	var got []string
	for len(got) < 5 {
		for _, it := range rd.next(t) {
			got = append(got, string(it))
		}
	}
	want := []string{`{"kind":"call","token":4}`, `{"kind":"call","token":5}`, `{"kind":"call","token":6}`,
		`{"kind":"cancel","token":5}`, `{"kind":"cancel","token":6}`}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Fatalf("items %v, want %v", got, want)
	}
	for i, it := range rest {
		data, errs := waitEnded(t, it)
		if cancelled := errors.Is(errs[0], context.Canceled); cancelled != (i > 0) || (i == 0 && data[0] != `{"ok":true}`) {
			t.Fatalf("item %d: %q %v", i, data[0], errs[0])
		}
	}
	if run.complete(5, []byte(`{}`)) {
		t.Fatal("late completion delivered")
	}
	if n := watched(); n != 0 {
		t.Fatalf("%d watches once the context ended", n)
	}

	// Started on an ended context: cancelled at once.
	it := &recordedItem{}
	run.start(ctx2, it)
	if _, errs := waitEnded(t, it); !errors.Is(errs[0], context.Canceled) {
		t.Fatalf("item on an ended context: %v", errs[0])
	}
}

// waitEnded waits for it to complete and checks that it completed once.
func waitEnded(t *testing.T, it *recordedItem) ([]string, []error) {
	t.Helper()
	for i := 0; ; i++ {
		if _, errs := it.ended(); len(errs) > 0 || i == 10000 {
			time.Sleep(time.Millisecond) // a second completion would come now
			data, errs := it.ended()
			if len(errs) != 1 {
				t.Fatalf("completed %d times", len(errs))
			}
			return data, errs
		}
		time.Sleep(100 * time.Microsecond) // no event says it completed
	}
}

// Completion lines of any length reach their items intact, however they
// are split across reads, and an outcome a result keeps is never
// overwritten by later lines.
func TestCompletionLinesReachTheirItemsIntact(t *testing.T) {
	run, err := newHostRun()
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	defer run.closePipes()
	outcome := func(i int) string {
		n := 10 + i*7
		if i == 3 {
			n = 200 << 10 // longer than the reader's buffer
		}
		return `{"ok":true,"content":"` + strings.Repeat(string(rune('a'+i%26)), n) + `"}`
	}
	const n = 600
	items := make([]*recordedItem, n)
	var all []byte
	for i := range items {
		items[i] = &recordedItem{}
		run.start(ctx, items[i])
		all = append(all, fmt.Sprintf("[%d,%s]\n", i+1, outcome(i))...)
	}
	for len(all) > 0 { // in uneven writes, as the host's may come
		k := min(len(all), 777)
		for {
			m, err := syscall.Write(run.wfdIn, all[:k])
			if err == syscall.EAGAIN {
				time.Sleep(time.Millisecond)
				continue
			}
			if err != nil {
				t.Fatal(err)
			}
			all = all[m:]
			break
		}
	}
	for _, it := range items {
		waitEnded(t, it)
	}
	for i, it := range items { // only once every line was read
		if it.errs[0] != nil || string(it.raw[0]) != outcome(i) {
			t.Fatalf("item %d: %.40q %v", i, it.raw[0], it.errs[0])
		}
	}
}
