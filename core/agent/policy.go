package agent

import "fmt"

// String returns the policy's name as hosts spell it: "skip" or "fail".
func (p UnavailablePolicy) String() string {
	switch p {
	case SkipUnavailable:
		return "skip"
	case FailOnUnavailable:
		return "fail"
	}
	return fmt.Sprintf("UnavailablePolicy(%d)", int(p))
}

// MarshalText encodes the policy as its name (see String).
func (p UnavailablePolicy) MarshalText() ([]byte, error) {
	switch p {
	case SkipUnavailable, FailOnUnavailable:
		return []byte(p.String()), nil
	}
	return nil, fmt.Errorf("%w: unknown unavailable-tools policy %d", ErrConfig, int(p))
}

// UnmarshalText decodes "skip" or "fail"; empty text means the default,
// [SkipUnavailable]. Any other text is an error wrapping [ErrConfig], and
// leaves p unchanged.
func (p *UnavailablePolicy) UnmarshalText(text []byte) error {
	switch string(text) {
	case "", "skip":
		*p = SkipUnavailable
	case "fail":
		*p = FailOnUnavailable
	default:
		return fmt.Errorf("%w: unavailable_tools must be \"skip\" or \"fail\", got %q", ErrConfig, text)
	}
	return nil
}
