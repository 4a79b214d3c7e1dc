package tool_test

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/starweaver-go/starweaver/core/tool"
)

func TestCheckMaxRetriesAndTimeout(t *testing.T) {
	for _, n := range []int{0, 1, 7} {
		if err := tool.CheckMaxRetries(n); err != nil {
			t.Errorf("CheckMaxRetries(%d) = %v", n, err)
		}
	}
	err := tool.CheckMaxRetries(-1)
	if !errors.Is(err, tool.ErrInvalidOption) || !strings.Contains(err.Error(), "max_retries must not be negative, got -1") {
		t.Errorf("CheckMaxRetries(-1) = %v", err)
	}
	if err := tool.CheckTimeout(time.Millisecond); err != nil {
		t.Errorf("CheckTimeout(1ms) = %v", err)
	}
	for d, want := range map[time.Duration]string{0: "got 0", -2 * time.Second: "got -2000"} {
		err := tool.CheckTimeout(d)
		if !errors.Is(err, tool.ErrInvalidOption) || !strings.Contains(err.Error(), "timeout_ms must be positive, "+want) {
			t.Errorf("CheckTimeout(%v) = %v", d, err)
		}
	}
}

func TestConfigSettersRecordMetadata(t *testing.T) {
	var cfg tool.Config
	md := map[string]any{}
	if err := cfg.SetMaxRetries(md, 2); err != nil {
		t.Fatal(err)
	}
	if err := cfg.SetTimeout(md, 1500*time.Millisecond); err != nil {
		t.Fatal(err)
	}
	if *cfg.MaxRetries != 2 || cfg.Timeout != 1500*time.Millisecond || md[tool.MetaMaxRetries] != 2 || md[tool.MetaTimeoutMS] != int64(1500) {
		t.Fatalf("cfg = %+v, metadata = %v", cfg, md)
	}
	if cfg.SetMaxRetries(md, -1) == nil || cfg.SetTimeout(md, 0) == nil {
		t.Fatal("out-of-range values were accepted")
	}
	if *cfg.MaxRetries != 2 || cfg.Timeout != 1500*time.Millisecond || md[tool.MetaMaxRetries] != 2 || md[tool.MetaTimeoutMS] != int64(1500) {
		t.Fatalf("a refused value changed the config: cfg = %+v, metadata = %v", cfg, md)
	}
}

func TestFunctionRefusesOutOfRangeOptions(t *testing.T) {
	cases := map[string]*tool.Function{
		"max_retries must not be negative": tool.New("f", "", nil, echoHandler).WithMaxRetries(-1),
		"timeout_ms must be positive":      tool.New("f", "", nil, echoHandler).WithTimeout(0),
	}
	for want, f := range cases {
		if err := f.Err(); !errors.Is(err, tool.ErrInvalidOption) || !strings.Contains(err.Error(), want) {
			t.Errorf("Err = %v, want %q", err, want)
		}
		if _, ok := f.Definition().Metadata[tool.MetaMaxRetries]; ok {
			t.Errorf("refused max_retries reached the metadata")
		}
		var r tool.Registry
		if err := r.Add(f); !errors.Is(err, tool.ErrInvalidOption) || !strings.Contains(err.Error(), `tool "f"`) {
			t.Errorf("Add = %v", err)
		}
	}
}
