package bridge

import (
	"errors"
	"testing"
)

func TestDecodeRestoreOptions(t *testing.T) {
	for in, want := range map[string]int{"": 0, `{}`: 0, `{"allow_unsigned":false}`: 0, `{"allow_unsigned":true}`: 1} {
		opts, err := decodeRestoreOptions([]byte(in))
		if err != nil || len(opts) != want {
			t.Errorf("%q: %d options, err %v; want %d", in, len(opts), err, want)
		}
	}
	for _, in := range []string{`{"allow_unsigend":true}`, `{"allow_unsigned":"yes"}`, `[`} {
		var ae *abiError
		if _, err := decodeRestoreOptions([]byte(in)); !errors.As(err, &ae) || ae.Type != "invalid_spec" {
			t.Errorf("%q: err = %v, want invalid_spec", in, err)
		}
	}
}
