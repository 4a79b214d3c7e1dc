"""Real models: OpenAI (Chat Completions and Responses), OpenAI-compatible
servers (Ollama, vLLM, any other), Anthropic, Amazon Bedrock, Google Gemini
(the Gemini API and Vertex AI), and a fallback over several. The providers run in the Go runtime (HTTP, retries with
backoff, streaming), so no request ever blocks the event loop.

``create_agent(model="openai:gpt-4.1")`` takes a model string; the model
classes take the options a string cannot say::

    OllamaModel("llama3.2")  # http://localhost:11434/v1 or OLLAMA_BASE_URL
    AnthropicModel("claude-sonnet-4-5", max_tokens=8192)
    BedrockModel("anthropic.claude-sonnet-4-5-20250929-v1:0", region="us-east-1")
    GoogleModel("gemini-2.5-flash", include_thoughts=True)
    FallbackModel("openai:gpt-4.1", "anthropic:claude-sonnet-4-5")

API keys and base URLs default to the usual environment variables
(``OPENAI_API_KEY``, ``OPENAI_BASE_URL``, ``ANTHROPIC_API_KEY``,
``ANTHROPIC_BASE_URL``, ``GOOGLE_API_KEY`` or ``GEMINI_API_KEY``,
``GOOGLE_GEMINI_BASE_URL``; Bedrock's the AWS chain: ``AWS_REGION``,
``AWS_ACCESS_KEY_ID``..., ``AWS_PROFILE``, ``AWS_ENDPOINT_URL_BEDROCK_RUNTIME``),
read when the model is built. A missing key is not
an error until the first request, which then fails with a ``ModelError``
naming the variable.
"""

from __future__ import annotations

import os
import weakref
from collections.abc import Iterator, Mapping, Sequence
from typing import Any, ClassVar

from starweaver import _capi
from starweaver.errors import instance_of_loaded

__all__ = [
    "KNOWN_PREFIXES",
    "AnthropicModel",
    "BedrockModel",
    "FallbackModel",
    "GoogleModel",
    "GoogleVertexModel",
    "OllamaModel",
    "OpenAICompatibleModel",
    "OpenAIModel",
    "OpenAIResponsesModel",
    "ProviderModel",
    "VLLMModel",
    "infer_model",
    "is_model",
    "model_objects",
]


class ProviderModel:
    """A model served by a provider over HTTP; see the subclasses."""

    kind: ClassVar[str]
    key_variable: ClassVar[str]
    base_url_variable: ClassVar[str]

    def __init__(
        self,
        name: str,
        *,
        base_url: str | None = None,
        api_key: str | None = None,
        headers: Mapping[str, str] | None = None,
        max_retries: int | None = None,
        timeout: float | None = None,
        connect_timeout: float | None = None,
        first_byte_timeout: float | None = None,
        idle_timeout: float | None = None,
        max_retry_after: float | None = None,
        stream: bool = False,
        provider_name: str | None = None,
    ) -> None:
        if not isinstance(name, str) or not name:
            raise ValueError("a model name is required, e.g. OpenAIModel('gpt-4.1')")
        if timeout is not None and (not isinstance(timeout, (int, float)) or isinstance(timeout, bool)):
            raise TypeError(f"timeout must be seconds as a number, got {type(timeout).__name__}")
        bounds = {
            "connect_timeout": connect_timeout,
            "first_byte_timeout": first_byte_timeout,
            "idle_timeout": idle_timeout,
            "max_retry_after": max_retry_after,
        }
        for label, value in bounds.items():
            if value is None:
                continue
            if not isinstance(value, (int, float)) or isinstance(value, bool):
                raise TypeError(f"{label} must be seconds as a number, got {type(value).__name__}")
            if not value > 0 or value == float("inf"):
                raise ValueError(f"{label} must be a positive number of seconds, got {value!r}")
        self.name = name
        self.base_url = base_url or os.environ.get(self.base_url_variable) or None
        provider: dict[str, Any] = {"model": name, "stream": bool(stream)}
        key = api_key if api_key is not None else os.environ.get(self.key_variable, "")
        if key:
            provider["api_key"] = key
        if self.base_url:
            provider["base_url"] = self.base_url
        if headers:
            provider["headers"] = {str(k): str(v) for k, v in headers.items()}
        if max_retries is not None:
            provider["max_retries"] = max_retries
        if timeout is not None:
            provider["timeout_ms"] = max(1, round(timeout * 1000))
        for label, value in bounds.items():
            if value is not None:
                provider[f"{label}_ms"] = max(1, round(value * 1000))
        if provider_name:
            provider["provider_name"] = provider_name
        provider.update(self._extra())
        self._handle = _capi.model_new({"kind": self.kind, "provider": provider})
        weakref.finalize(self, _capi.release, self._handle)

    def _extra(self) -> dict[str, Any]:
        return {}

    def _native_handle(self) -> int:
        return self._handle

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self.name!r})"


class OpenAIModel(ProviderModel):
    """An OpenAI Chat Completions model, or any OpenAI-compatible server
    (vLLM, llama.cpp, Ollama, LiteLLM) through ``base_url``; a server of your
    own needs no API key.

    Arguments:
        name: The model, e.g. ``"gpt-4.1"``.
        base_url: The API root (``OPENAI_BASE_URL`` by default, else OpenAI's).
        api_key: The key (``OPENAI_API_KEY`` by default).
        headers: Extra HTTP headers of every request.
        max_retries: Retries of 408, 409, 429, 5xx and failed connections,
            with exponential backoff honouring ``Retry-After`` up to
            ``max_retry_after`` (2 by default).
        timeout: Seconds one request may take, its retries included (no
            bound by default besides the ones below).
        connect_timeout: Seconds to establish a connection (10 by default).
        first_byte_timeout: Seconds an attempt may wait for the response
            headers (600 by default; a response that is not streamed has
            them only once it is whole). Not retried.
        idle_timeout: Seconds a streamed response may go without an event
            (300 by default); keep-alive comments and pings do not count.
        max_retry_after: The longest ``Retry-After`` waited out, in seconds
            (60 by default); a server asking for longer fails the request at
            once with a ``ModelError`` whose ``status_code`` is 429.
        stream: Receive responses streamed (assembled into one message).
        provider_name: What responses report as their provider.
    """

    kind = "openai"
    key_variable = "OPENAI_API_KEY"
    base_url_variable = "OPENAI_BASE_URL"
    #: The server's profile: what it does differently from OpenAI (see
    #: the subclasses); None is OpenAI itself.
    profile: ClassVar[str | None] = None

    def _extra(self) -> dict[str, Any]:
        return {} if self.profile is None else {"profile": self.profile}


class OllamaModel(OpenAIModel):
    """A model served by Ollama's OpenAI-compatible API; the model string is
    ``"ollama:llama3.2"``.

    The server is ``base_url``, else ``OLLAMA_BASE_URL``, else
    ``http://localhost:11434/v1``; a bare host (``"gpu-box:11434"``, as
    Ollama's own clients take ``OLLAMA_HOST``) gets ``http://`` and ``/v1``.
    No key is needed (``OLLAMA_API_KEY`` is sent if set, never
    ``OPENAI_API_KEY``). Tools and structured output go without OpenAI's
    strict mode and without ``parallel_tool_calls``, which Ollama does not
    take; tool-call arguments sent as objects and replies without usage are
    read as they come. Options as for ``OpenAIModel``.
    """

    profile = "ollama"
    key_variable = "OLLAMA_API_KEY"
    base_url_variable = "OLLAMA_BASE_URL"


class VLLMModel(OpenAIModel):
    """A model served by vLLM's OpenAI-compatible server; the model string is
    ``"vllm:<name>"``. The server is ``base_url`` or ``VLLM_BASE_URL`` (one
    is required: building the model fails with a ``ValueError`` naming the
    variable); the key is ``VLLM_API_KEY`` if the server was started with
    ``--api-key``. Tools and structured output go without OpenAI's strict
    mode. Options as for ``OpenAIModel``.
    """

    profile = "vllm"
    key_variable = "VLLM_API_KEY"
    base_url_variable = "VLLM_BASE_URL"


class OpenAICompatibleModel(OpenAIModel):
    """A model of any server speaking OpenAI's Chat Completions (LiteLLM,
    llama.cpp, LM Studio, a gateway); the model string is
    ``"openai-compatible:<name>"``. The server is ``base_url`` or
    ``OPENAI_BASE_URL`` (one is required), the key ``api_key`` or
    ``OPENAI_API_KEY``, if the server wants one. Options as for
    ``OpenAIModel``.
    """

    profile = "openai-compatible"


class OpenAIResponsesModel(OpenAIModel):
    """An OpenAI model through the Responses API (reasoning items are kept in
    history and sent back); options as for ``OpenAIModel``."""

    kind = "openai-responses"


class AnthropicModel(ProviderModel):
    """An Anthropic Messages API model.

    Arguments beyond ``OpenAIModel``'s:
        max_tokens: The response token limit used when the settings set none
            (Anthropic requires one).
        thinking_budget: Enables extended thinking with this token budget;
            thinking blocks are kept in history and sent back.
    """

    kind = "anthropic"
    key_variable = "ANTHROPIC_API_KEY"
    base_url_variable = "ANTHROPIC_BASE_URL"

    def __init__(
        self,
        name: str,
        *,
        max_tokens: int | None = None,
        thinking_budget: int | None = None,
        **options: Any,
    ) -> None:
        for label, value in (("max_tokens", max_tokens), ("thinking_budget", thinking_budget)):
            if value is not None and (not isinstance(value, int) or isinstance(value, bool) or value < 1):
                raise ValueError(f"{label} must be a positive int, got {value!r}")
        self._max_tokens = max_tokens
        self._thinking_budget = thinking_budget
        super().__init__(name, **options)

    def _extra(self) -> dict[str, Any]:
        extra: dict[str, Any] = {}
        if self._max_tokens is not None:
            extra["max_tokens"] = self._max_tokens
        if self._thinking_budget is not None:
            extra["thinking_budget"] = self._thinking_budget
        return extra


class BedrockModel(ProviderModel):
    """An Amazon Bedrock model through the Converse and ConverseStream APIs.

    Credentials, region and endpoint come from the standard AWS chain unless
    given here: the arguments, else ``AWS_ACCESS_KEY_ID`` /
    ``AWS_SECRET_ACCESS_KEY`` / ``AWS_SESSION_TOKEN``, ``AWS_REGION`` (or
    ``AWS_DEFAULT_REGION``), ``AWS_PROFILE`` and
    ``AWS_ENDPOINT_URL_BEDROCK_RUNTIME`` (or ``AWS_ENDPOINT_URL``), read when
    the model is built; then the shared config files, SSO and instance roles.
    No API key is needed: requests are signed (SigV4). A Bedrock API key
    (``api_key=`` or ``AWS_BEARER_TOKEN_BEDROCK``) is sent as a bearer token
    instead.

    Arguments beyond ``OpenAIModel``'s (``base_url`` is ``endpoint_url``):
        name: The model id or inference profile, e.g.
            ``"anthropic.claude-sonnet-4-5-20250929-v1:0"``.
        region: The AWS region, e.g. ``"us-east-1"``.
        endpoint_url: Another endpoint (a proxy, a gateway, a VPC endpoint).
        profile: The shared-config profile to read.
        aws_access_key_id, aws_secret_access_key, aws_session_token: Static
            credentials (the secret and the token never appear in errors).
        max_tokens: The response token limit used when the settings set none
            (the model's own default otherwise).
    """

    kind = "bedrock"
    key_variable = "AWS_BEARER_TOKEN_BEDROCK"
    base_url_variable = "AWS_ENDPOINT_URL_BEDROCK_RUNTIME"

    def __init__(
        self,
        name: str,
        *,
        region: str | None = None,
        endpoint_url: str | None = None,
        profile: str | None = None,
        aws_access_key_id: str | None = None,
        aws_secret_access_key: str | None = None,
        aws_session_token: str | None = None,
        max_tokens: int | None = None,
        **options: Any,
    ) -> None:
        if max_tokens is not None and (
            not isinstance(max_tokens, int) or isinstance(max_tokens, bool) or max_tokens < 1
        ):
            raise ValueError(f"max_tokens must be a positive int, got {max_tokens!r}")
        if "base_url" in options:
            raise TypeError("BedrockModel takes endpoint_url=, not base_url=")
        env = os.environ
        if aws_access_key_id is None and aws_secret_access_key is None and profile is None:
            aws_access_key_id = env.get("AWS_ACCESS_KEY_ID") or None
            aws_secret_access_key = env.get("AWS_SECRET_ACCESS_KEY") or None
            aws_session_token = aws_session_token or env.get("AWS_SESSION_TOKEN") or None
        if (aws_access_key_id is None) != (aws_secret_access_key is None):
            raise ValueError("aws_access_key_id and aws_secret_access_key go together")
        self.region = region or env.get("AWS_REGION") or env.get("AWS_DEFAULT_REGION") or None
        self._aws: dict[str, Any] = {
            "region": self.region,
            "aws_profile": profile or env.get("AWS_PROFILE") or None,
            "aws_access_key_id": aws_access_key_id,
            "aws_secret_access_key": aws_secret_access_key,
            "aws_session_token": aws_session_token if aws_access_key_id else None,
            "max_tokens": max_tokens,
        }
        endpoint = endpoint_url or env.get(self.base_url_variable) or env.get("AWS_ENDPOINT_URL") or None
        super().__init__(name, base_url=endpoint, **options)

    def _extra(self) -> dict[str, Any]:
        return {k: v for k, v in self._aws.items() if v is not None}


class GoogleModel(ProviderModel):
    """A Google Gemini model through the Gemini API.

    The key defaults to ``GOOGLE_API_KEY``, then ``GEMINI_API_KEY``; the base
    URL to ``GOOGLE_GEMINI_BASE_URL`` (a proxy or gateway), else Google's.

    Arguments beyond ``OpenAIModel``'s:
        thinking_budget: The thinking budget in tokens (0 turns thinking off
            on the models that allow it; the model's default when unset).
        include_thoughts: Ask for the thought summaries, kept in history as
            thinking parts; their signatures are sent back to Gemini.
    """

    kind = "google"
    key_variable = "GOOGLE_API_KEY"
    fallback_key_variable: ClassVar[str] = "GEMINI_API_KEY"
    base_url_variable = "GOOGLE_GEMINI_BASE_URL"

    def __init__(
        self,
        name: str,
        *,
        thinking_budget: int | None = None,
        include_thoughts: bool = False,
        **options: Any,
    ) -> None:
        if thinking_budget is not None and (
            not isinstance(thinking_budget, int) or isinstance(thinking_budget, bool) or thinking_budget < 0
        ):
            raise ValueError(f"thinking_budget must be an int >= 0, got {thinking_budget!r}")
        self._thinking_budget = thinking_budget
        self._include_thoughts = bool(include_thoughts)
        if options.get("api_key") is None:
            options["api_key"] = self._env_key()
        super().__init__(name, **options)

    def _env_key(self) -> str:
        return os.environ.get(self.key_variable) or os.environ.get(self.fallback_key_variable) or ""

    def _extra(self) -> dict[str, Any]:
        extra: dict[str, Any] = {}
        if self._thinking_budget is not None:
            extra["thinking_budget"] = self._thinking_budget
        if self._include_thoughts:
            extra["include_thoughts"] = True
        return extra


class GoogleVertexModel(GoogleModel):
    """A Google Gemini model through Vertex AI.

    The project and location default to ``GOOGLE_CLOUD_PROJECT`` and
    ``GOOGLE_CLOUD_LOCATION`` (else ``"global"``), and the requests are
    authorised by the application default credentials; an ``api_key``
    instead selects Vertex AI express mode. The base URL defaults to
    ``GOOGLE_VERTEX_BASE_URL``.

    Arguments beyond ``GoogleModel``'s:
        project: The Google Cloud project.
        location: The region, e.g. ``"us-central1"``.
    """

    kind = "google-vertex"
    base_url_variable = "GOOGLE_VERTEX_BASE_URL"

    def __init__(
        self,
        name: str,
        *,
        project: str | None = None,
        location: str | None = None,
        **options: Any,
    ) -> None:
        self._project = project
        self._location = location
        if options.get("api_key") is None and (project or location or os.environ.get("GOOGLE_CLOUD_PROJECT")):
            options["api_key"] = ""  # a project, not a key from the environment, names the endpoint
        super().__init__(name, **options)

    def _extra(self) -> dict[str, Any]:
        extra = super()._extra()
        if self._project:
            extra["project"] = self._project
        if self._location:
            extra["location"] = self._location
        return extra


KNOWN_PREFIXES: dict[str, type[ProviderModel]] = {
    "openai": OpenAIModel,
    "openai-chat": OpenAIModel,
    "openai-responses": OpenAIResponsesModel,
    "anthropic": AnthropicModel,
    "bedrock": BedrockModel,
    "google": GoogleModel,
    "google-gla": GoogleModel,
    "gemini": GoogleModel,
    "google-vertex": GoogleVertexModel,
    "ollama": OllamaModel,
    "vllm": VLLMModel,
    "openai-compatible": OpenAICompatibleModel,
}
"""The provider prefixes of model strings (``"openai:gpt-4.1"``)."""


def infer_model(spec: str) -> ProviderModel:
    """The model a ``"provider:name"`` string names.

    Raises:
        ValueError: the string has no known provider prefix.
    """
    prefix, sep, name = spec.partition(":")
    cls = KNOWN_PREFIXES.get(prefix)
    if not sep or cls is None or not name:
        known = ", ".join(f"'{p}:...'" for p in KNOWN_PREFIXES)
        raise ValueError(f"unknown model {spec!r}: use one of {known}, or a model object")
    return cls(name)


class FallbackModel:
    """Asks its models in order: when one fails with a failure of the kinds
    ``fallback_on`` lists, the next one is asked the same request; any other
    failure (a 400, a 401) ends the run at once.

    Arguments:
        *models: Model objects or model strings (``"openai:gpt-4.1"``), the
            primary first.
        fallback_on: The failures passed on: ``"server_error"`` (5xx),
            ``"rate_limit"`` (429), ``"timeout"`` (a connect, first-byte or
            idle timeout, a 408, the request's own deadline),
            ``"connection"`` (unreachable, or dropped before the response
            was complete), and HTTP statuses as ints (``404``). All four
            kinds by default.

    The response says which model answered (``model_name``, ``provider``)
    and lists the failed attempts before it; each is also a
    ``model_fallback`` event (its ``attempt``: model, provider,
    status_code, code, error, sent) and a failed child span of the chat
    span. A failed attempt that reached its server counts as a request in
    the usage (with no tokens). When every model fails, the run raises a
    ``ModelError`` (code ``"fallback_failed"``) naming each failure. A model
    that fails after part of its response streamed is not replaced: what
    went out cannot be taken back.
    """

    def __init__(self, *models: Any, fallback_on: Sequence[str | int] | None = None) -> None:
        if not models:
            raise ValueError("FallbackModel needs at least one model")
        resolved: list[Any] = []
        for m in models:
            m = infer_model(m) if isinstance(m, str) else m
            if not is_model(m):
                raise TypeError(f"FallbackModel takes model objects or model strings, got {type(m).__name__}")
            resolved.append(m)
        spec: dict[str, Any] = {"kind": "fallback", "models": [m._native_handle() for m in resolved]}
        if fallback_on is not None:
            if isinstance(fallback_on, str):
                raise TypeError("fallback_on must be a sequence of kinds, e.g. ['server_error', 429]")
            kinds: list[str] = []
            for k in fallback_on:
                if isinstance(k, bool) or not isinstance(k, (str, int)):
                    raise TypeError(f"fallback_on items are kind names or HTTP statuses, got {type(k).__name__}")
                kinds.append(str(k))
            spec["fallback_on"] = kinds
        #: The models, in the order they are asked.
        self.models: tuple[Any, ...] = tuple(resolved)
        self._handle = _capi.model_new(spec)
        weakref.finalize(self, _capi.release, self._handle)

    def _native_handle(self) -> int:
        return self._handle

    def __repr__(self) -> str:
        return f"FallbackModel({', '.join(repr(m) for m in self.models)})"


def model_objects(model: Any) -> Iterator[tuple[int, Any]]:
    """Each model object a model is made of, with its handle: the model,
    and a fallback's models (a function model among them answers through
    its agent's catalogue)."""
    yield model._native_handle(), model
    if isinstance(model, FallbackModel):
        for inner in model.models:
            yield from model_objects(inner)


def is_model(value: object) -> bool:
    """Whether ``value`` is a model object an agent takes: a provider model,
    or a test model of ``starweaver.testing`` (checked by name: no instance
    exists before ``starweaver._testmodels`` is imported, and importing it
    to check would cost every agent its load time)."""
    return (
        isinstance(value, (ProviderModel, FallbackModel))
        or instance_of_loaded(value, "starweaver._testmodels", "TestModel")
        or instance_of_loaded(value, "starweaver._testmodels", "FunctionModel")
    )
