package bedrock

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"os"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/config"
	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/aws/aws-sdk-go-v2/service/bedrockruntime"
	"github.com/aws/smithy-go/auth/bearer"

	"github.com/starweaver-go/starweaver/core/model"
)

// EnvEndpointURL is the environment variable the AWS SDK reads for
// Bedrock Runtime's endpoint (AWS_ENDPOINT_URL applies to every service
// and is read too); Config.EndpointURL wins over both.
const EnvEndpointURL = "AWS_ENDPOINT_URL_BEDROCK_RUNTIME"

// EnvAPIKey is the environment variable holding a Bedrock API key (a
// bearer token used instead of SigV4), read by the SDK; Config.APIKey wins
// over it.
const EnvAPIKey = "AWS_BEARER_TOKEN_BEDROCK"

// DefaultMaxRetries is how many times a failed request is retried when
// Config.MaxRetries is nil.
const DefaultMaxRetries = 2

// ErrMissingRegion is returned by every request of a model built by
// [NewFromConfig] when no region is configured anywhere (Config.Region,
// AWS_REGION, AWS_DEFAULT_REGION, the profile). errors.Is(err,
// model.ErrModel) holds too.
var ErrMissingRegion = errors.New("bedrock: no AWS region: set AWS_REGION or pass a region (Go: Config.Region)")

// Config describes how [NewFromConfig] reaches Bedrock. The zero Config
// uses the standard AWS chain for everything: the region from AWS_REGION
// or the profile, credentials from the environment, the shared files,
// SSO, a web identity or the instance role, and the endpoint from
// AWS_ENDPOINT_URL_BEDROCK_RUNTIME or AWS_ENDPOINT_URL.
type Config struct {
	// Region is the AWS region ("us-east-1"); "" uses the chain's.
	Region string
	// Profile is the shared-config profile to read; "" uses AWS_PROFILE,
	// then "default".
	Profile string
	// EndpointURL replaces the endpoint (a proxy, a gateway, a VPC
	// endpoint); "" uses AWS_ENDPOINT_URL_BEDROCK_RUNTIME, then
	// AWS_ENDPOINT_URL, then the region's Bedrock Runtime endpoint.
	EndpointURL string
	// APIKey is a Bedrock API key: requests carry it as a bearer token
	// instead of a SigV4 signature. "" uses AWS_BEARER_TOKEN_BEDROCK when
	// set, else the credentials.
	APIKey string
	// AccessKeyID, SecretAccessKey and SessionToken are static
	// credentials replacing the chain's (the first two go together).
	AccessKeyID     string
	SecretAccessKey string
	SessionToken    string
	// Headers are added to every request (and signed with it).
	Headers map[string]string
	// MaxRetries bounds the retries of one request (connection failures,
	// 408, 409, 429 and 5xx under model.HTTPPolicy's rules); nil means
	// DefaultMaxRetries, 0 disables them, negative is an error.
	MaxRetries *int
	// Timeout bounds one request, its retries included; 0 means no bound
	// beyond the context (and Settings.TimeoutMS); negative is an error.
	Timeout time.Duration
	// HTTPClient replaces the SDK's default HTTP client.
	HTTPClient *http.Client
}

func (c *Config) isZero() bool {
	return c.APIKey == "" && c.Region == "" && c.Profile == "" && c.EndpointURL == "" && c.AccessKeyID == "" && c.SecretAccessKey == "" &&
		c.SessionToken == "" && c.Headers == nil && c.MaxRetries == nil && c.Timeout == 0 && c.HTTPClient == nil
}

// NewFromConfig builds a Model for the Bedrock model id name (for example
// "anthropic.claude-sonnet-4-5-20250929-v1:0" or an inference profile id)
// over a client configured by o.Config and the standard AWS chain
// (config.LoadDefaultConfig). The shared config files are read now;
// credentials are resolved at the first request, never here. The SDK's
// own retries are off: the model's HTTPPolicy retries. An empty name, an
// invalid setting or an unreadable shared config is an error; a missing
// region is not: every request returns ErrMissingRegion instead.
func NewFromConfig(name string, o Options) (*Model, error) {
	if err := o.check(name, true); err != nil {
		return nil, err
	}
	cfg := o.Config
	load := []func(*config.LoadOptions) error{
		config.WithRetryer(func() aws.Retryer { return aws.NopRetryer{} }),
	}
	if cfg.Region != "" {
		load = append(load, config.WithRegion(cfg.Region))
	}
	if cfg.Profile != "" {
		load = append(load, config.WithSharedConfigProfile(cfg.Profile))
	}
	if cfg.AccessKeyID != "" {
		load = append(load, config.WithCredentialsProvider(
			credentials.NewStaticCredentialsProvider(cfg.AccessKeyID, cfg.SecretAccessKey, cfg.SessionToken)))
	}
	awsCfg, err := config.LoadDefaultConfig(context.Background(), load...)
	if err != nil {
		return nil, fmt.Errorf("bedrock: loading the AWS configuration: %w", err)
	}
	client := bedrockruntime.NewFromConfig(awsCfg, func(bo *bedrockruntime.Options) {
		if cfg.HTTPClient != nil {
			// Set here, not in LoadDefaultConfig, which would try to add
			// AWS_CA_BUNDLE's roots to it: the caller's client is theirs.
			bo.HTTPClient = cfg.HTTPClient
		}
		if cfg.EndpointURL != "" {
			bo.BaseEndpoint = aws.String(cfg.EndpointURL)
		}
		if cfg.APIKey != "" {
			bo.BearerAuthTokenProvider = bearer.TokenProviderFunc(func(context.Context) (bearer.Token, error) {
				return bearer.Token{Value: cfg.APIKey}, nil
			})
			bo.AuthSchemePreference = []string{"httpBearerAuth"}
		}
	})
	retries := DefaultMaxRetries
	if cfg.MaxRetries != nil {
		retries = *cfg.MaxRetries
	}
	secrets := append([]string{cfg.SecretAccessKey, cfg.SessionToken, cfg.APIKey, os.Getenv(EnvAPIKey)}, model.CredentialHeaderValues(cfg.Headers)...)
	m := newModel(client, name, o, retries, secrets...)
	m.creds = awsCfg.Credentials
	m.headers = cfg.Headers
	m.timeout = cfg.Timeout
	if awsCfg.Region == "" {
		m.initErr = fmt.Errorf("%w: %w", model.ErrModel, ErrMissingRegion)
	}
	return m, nil
}
