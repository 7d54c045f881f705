"""One Settings object: `settings.yaml` for non-secrets, `TUTORGRAPH_*` environment and `.env` for
secrets. Built by `load_settings()` and injected; nothing else reads the environment."""

from __future__ import annotations

import ipaddress
import os
from pathlib import Path
from typing import Annotated, Literal

from pydantic import (
    BaseModel,
    Field,
    SecretStr,
    ValidationError,
    field_validator,
    model_validator,
)
from pydantic_settings import (
    BaseSettings,
    NoDecode,
    PydanticBaseSettingsSource,
    SettingsConfigDict,
    YamlConfigSettingsSource,
)

from tutorgraph.errors import ConfigurationError

SETTINGS_FILE_ENV = "TUTORGRAPH_SETTINGS_FILE"
# Signing secrets once written in this repository: public, so never accepted.
PUBLISHED_JWT_SECRETS = frozenset({"change-me-this-secret-is-for-development-only"})

Environment = Literal["development", "test", "production"]


class LLMSettings(BaseModel):
    """Which model engine answers, and how the OpenAI-compatible one is reached."""

    engine: Literal["offline", "openai"] = "offline"
    base_url: str = "https://api.openai.com/v1"
    api_key: SecretStr | None = None
    model: str = "gpt-4o-mini"
    temperature: float = Field(default=0.3, ge=0.0, le=2.0)
    max_tokens: int = Field(default=2048, gt=0, le=200_000)
    timeout_seconds: float = Field(default=60.0, gt=0)
    max_attempts: int = Field(default=3, ge=1, le=10)
    backoff_seconds: float = Field(default=0.5, ge=0)
    fallback_to_offline: bool = True
    # An embeddings model on the same server (engine openai): hybrid BM25 + vector search of the
    # courses, and the interview's question dedup by embeddings. None: BM25 and word overlap.
    embeddings_model: str | None = None


class SearchSettings(BaseModel):
    """The tutor's web search: off by default (the tool is then stripped from the tool list)."""

    provider: Literal["none", "openai", "searxng"] = "none"
    base_url: str | None = None
    api_key: SecretStr | None = None
    model: str = "sonar"
    max_results: int = Field(default=5, ge=1, le=5)

    @property
    def enabled(self) -> bool:
        return self.provider != "none" and bool(self.base_url)


class LimitSettings(BaseModel):
    """Usage limits that protect the server."""

    # Failed logins count in a sliding window (at most an hour: older attempts are pruned).
    login_failure_window_minutes: int = Field(default=15, ge=1, le=60)
    login_failures_per_account_per_ip: int = Field(default=10, ge=1)
    login_failures_per_ip: int = Field(default=100, ge=1)
    registrations_per_hour_per_ip: int = Field(default=20, ge=1)
    max_body_bytes: int = Field(default=1024 * 1024, ge=1024)
    max_upload_bytes: int = Field(default=20 * 1024 * 1024, ge=1024)
    max_message_chars: int = Field(default=8000, ge=100)
    max_answer_chars: int = Field(default=10000, ge=100)
    websocket_auth_seconds: float = Field(default=5.0, gt=0, le=60)
    # Interview code runs and upload reader processes at once in one server process (0: the
    # CPU count), one at a time per learner; beyond either the request gets 429.
    sandbox_runs: int = Field(default=0, ge=0, le=256)
    extraction_processes: int = Field(default=0, ge=0, le=256)
    extraction_memory_mb: int = Field(default=1024, ge=256, le=16384)  # per reader process
    # A cgroup v2 directory with memory and pids in its cgroup.subtree_control, where the server
    # may make a child per code run: the run's memory is then capped as a whole. Unusable or
    # "": fewer processes per run and a lower address-space limit each (sandbox.py).
    sandbox_cgroup: str = "/sys/fs/cgroup/tutorgraph-sandbox"
    lti_logins_per_minute_per_ip: int = Field(default=30, ge=1)


class RubricWeights(BaseModel):
    """The spec's rubric weights (correctness 0.6, completeness 0.2, clarity 0.2); they sum to 1."""

    correctness: float = Field(default=0.6, ge=0.0, le=1.0)
    completeness: float = Field(default=0.2, ge=0.0, le=1.0)
    clarity: float = Field(default=0.2, ge=0.0, le=1.0)

    @model_validator(mode="after")
    def _sum_to_one(self) -> RubricWeights:
        total = self.correctness + self.completeness + self.clarity
        if abs(total - 1.0) > 1e-6:
            raise ValueError(f"grading.rubric_weights must sum to 1 (they sum to {total:g})")
        return self


class GradingSettings(BaseModel):
    """How a model judge's verdict is formed: rubric weights and the median over repeated runs."""

    rubric_weights: RubricWeights = RubricWeights()
    # The spec's mitigation for LLM variance: ask the judge this many times, keep the median.
    # The offline judge is deterministic and is asked once whatever this says.
    judge_runs: int = Field(default=3, ge=1, le=9)


class MasterySettings(BaseModel):
    """Knowledge tracing: which BKT model the refit fits, and how often it runs on its own."""

    # auto: BKT with forgetting unless held-out platform answers show standard BKT predicts
    # better (see learner_model/refit.py); bkt / bkt_forgetting: always that model.
    model: Literal["auto", "bkt", "bkt_forgetting"] = "auto"
    # The server refits when answers arrived since the last fit and it is this old (0: never;
    # `tutorgraph mastery fit` and the Teach page run it on demand).
    refit_every_hours: float = Field(default=24.0, ge=0)
    min_observations: int = Field(default=20, ge=1)


class XapiSettings(BaseModel):
    """xAPI statements (answered, mastered, completed) to a Learning Record Store. Statements
    are always queued; they are sent while `endpoint` is set (the LRS's base, e.g.
    `https://lrs.example.org/xapi`), with HTTP basic auth (`TUTORGRAPH_XAPI_PASSWORD`)."""

    endpoint: str | None = None
    username: str | None = None
    password: SecretStr | None = None
    # The IRI base of this platform's activities and accounts (its public address).
    base_url: str = "http://127.0.0.1:8000"
    include_responses: bool = True  # send the learner's answer text as `result.response`
    flush_seconds: float = Field(default=15.0, gt=0)

    @property
    def enabled(self) -> bool:
        return bool(self.endpoint)


class LtiPlatform(BaseModel):
    """An LMS registered to launch tutorgraph with LTI 1.3 (what its admin gives you)."""

    issuer: str
    client_id: str
    auth_login_url: str  # the platform's OIDC authorization endpoint
    auth_token_url: str  # its OAuth2 token endpoint (grade passback)
    key_set_url: str  # its JWKS
    deployment_ids: list[str] = Field(min_length=1)
    course: str  # the slug of the course a launch from this platform opens


class LtiSettings(BaseModel):
    """LTI 1.3: register each LMS here; give it /lti/login, /lti/launch and /lti/jwks."""

    platforms: list[LtiPlatform] = Field(default_factory=list)
    flush_seconds: float = Field(default=30.0, gt=0)

    @property
    def enabled(self) -> bool:
        return bool(self.platforms)


class TracingSettings(BaseModel):
    """Traces of graph runs and model calls, off by default: LangSmith when an API key is set,
    else OpenTelemetry spans to the console or an OTLP/HTTP collector."""

    exporter: Literal["none", "console", "otlp"] = "none"
    otlp_endpoint: str = "http://127.0.0.1:4318/v1/traces"
    service_name: str = "tutorgraph"
    langsmith_api_key: SecretStr | None = None
    langsmith_project: str = "tutorgraph"
    langsmith_endpoint: str | None = None


class JobSettings(BaseModel):
    """Where long work (course builds) runs. `auto`: a PostgreSQL job queue (procrastinate) when
    the database is PostgreSQL, the serving process itself on SQLite. With the queue, each
    `tutorgraph serve` process also runs a worker unless `embedded_worker` is false; add
    `tutorgraph worker` processes (on any machine that reaches the database) for more."""

    backend: Literal["auto", "in_process", "queue"] = "auto"
    embedded_worker: bool = True
    concurrency: int = Field(default=2, ge=1, le=64)


class InterviewSettings(BaseModel):
    """The mock interviewer: its question budget, resume limits and the code sandbox's limits
    (its question dedup uses `llm.embeddings_model` when set)."""

    max_questions: int = Field(default=14, ge=3, le=40)
    max_resume_bytes: int = Field(default=2 * 1024 * 1024, ge=1024)
    max_resume_chars: int = Field(default=50_000, ge=500)
    sandbox_cpu_seconds: int = Field(default=5, ge=1, le=60)
    sandbox_wall_seconds: float = Field(default=10.0, ge=1.0, le=120.0)
    sandbox_memory_mb: int = Field(default=512, ge=64, le=4096)  # one run, all its processes


class Settings(BaseSettings):
    """Every knob of tutorgraph. Nested values use one `_` after the section in the environment:
    `TUTORGRAPH_LLM_API_KEY`, `TUTORGRAPH_LLM_BASE_URL`, `TUTORGRAPH_SEARCH_PROVIDER`..."""

    model_config = SettingsConfigDict(
        env_prefix="TUTORGRAPH_",
        env_nested_delimiter="_",
        env_nested_max_split=1,
        env_file=".env",
        extra="ignore",
    )

    environment: Environment = "development"
    data_dir: Path = Path("data")
    content_dir: Path = Path("content")
    database_url: str | None = None
    checkpoint_url: str | None = None
    # None: development signs with a random secret kept in `data_dir/jwt_secret`.
    jwt_secret: SecretStr | None = None
    access_token_minutes: int = Field(default=60 * 24, ge=1)
    # None: derived from the environment (Secure cookies and HSTS in production).
    secure_cookies: bool | None = None
    # None: /docs and /openapi.json are served in development only.
    api_docs: bool | None = None
    # Origins (`https://host[:port]`) besides the server's own that may open the WebSocket.
    allowed_origins: list[str] = Field(default_factory=list)
    # Reverse proxies (IP addresses or networks) whose X-Forwarded-For and X-Forwarded-Proto
    # are believed. None by default: the client address is the connection's own, so a client
    # cannot name itself another address (and step past the login limits) with a header.
    # In the environment: TUTORGRAPH_TRUSTED_PROXIES=127.0.0.1,10.0.0.0/8
    trusted_proxies: Annotated[list[str], NoDecode] = Field(default_factory=list)
    log_level: Literal["DEBUG", "INFO", "WARNING", "ERROR"] = "INFO"
    llm: LLMSettings = LLMSettings()
    search: SearchSettings = SearchSettings()
    limits: LimitSettings = LimitSettings()
    grading: GradingSettings = GradingSettings()
    mastery: MasterySettings = MasterySettings()
    xapi: XapiSettings = XapiSettings()
    lti: LtiSettings = LtiSettings()
    jobs: JobSettings = JobSettings()
    tracing: TracingSettings = TracingSettings()
    interview: InterviewSettings = InterviewSettings()

    @classmethod
    def settings_customise_sources(
        cls,
        settings_cls: type[BaseSettings],
        init_settings: PydanticBaseSettingsSource,
        env_settings: PydanticBaseSettingsSource,
        dotenv_settings: PydanticBaseSettingsSource,
        file_secret_settings: PydanticBaseSettingsSource,
    ) -> tuple[PydanticBaseSettingsSource, ...]:
        yaml_file = Path(os.environ.get(SETTINGS_FILE_ENV, "settings.yaml"))
        yaml_source = YamlConfigSettingsSource(settings_cls, yaml_file=yaml_file)
        return (init_settings, env_settings, dotenv_settings, yaml_source)

    @field_validator("trusted_proxies", mode="before")
    @classmethod
    def _proxy_list(cls, value: object) -> object:
        if isinstance(value, str):  # the environment's comma-separated form
            return [item.strip() for item in value.split(",") if item.strip()]
        return value

    @field_validator("trusted_proxies")
    @classmethod
    def _proxy_addresses(cls, value: list[str]) -> list[str]:
        for entry in value:
            try:
                ipaddress.ip_network(entry, strict=False)
            except ValueError:
                raise ValueError(
                    f"{entry!r} is not an IP address or network (e.g. 127.0.0.1, 10.0.0.0/8)"
                ) from None
        return value

    @model_validator(mode="after")
    def _refuse_insecure_defaults(self) -> Settings:
        if self.jwt_secret is None:
            if self.environment != "development":
                raise ValueError(
                    "jwt_secret: required when environment is not development; "
                    "set TUTORGRAPH_JWT_SECRET"
                )
            return self
        if self.jwt_secret.get_secret_value() in PUBLISHED_JWT_SECRETS:
            raise ValueError("jwt_secret: this secret is published in the source; make a new one")
        if len(self.jwt_secret.get_secret_value()) < 32:
            raise ValueError("jwt_secret: must be at least 32 characters (HS256 needs 256 bits)")
        return self

    @property
    def cookies_secure(self) -> bool:
        """Whether cookies carry `Secure` (and responses HSTS): on in production unless set."""
        if self.secure_cookies is not None:
            return self.secure_cookies
        return self.environment == "production"

    @property
    def api_docs_public(self) -> bool:
        """Whether /docs and /openapi.json are served: in development unless set."""
        if self.api_docs is not None:
            return self.api_docs
        return self.environment == "development"

    @property
    def sqlalchemy_url(self) -> str:
        """The application database URL; a SQLite file in the data dir unless configured."""
        if self.database_url:
            return normalize_database_url(self.database_url)
        return f"sqlite:///{(self.data_dir / 'tutorgraph.db').resolve()}"

    @property
    def checkpointer_url(self) -> str:
        """Where LangGraph checkpoints live: beside the rows on PostgreSQL, a file otherwise."""
        if self.checkpoint_url:
            return self.checkpoint_url
        url = self.sqlalchemy_url
        if url.startswith("postgresql"):
            return url
        return f"sqlite:///{(self.data_dir / 'checkpoints.db').resolve()}"

    @property
    def uses_job_queue(self) -> bool:
        """Whether course builds go through the PostgreSQL job queue."""
        if self.jobs.backend == "auto":
            return self.sqlalchemy_url.startswith("postgresql")
        return self.jobs.backend == "queue"

    @property
    def index_dir(self) -> Path:
        return self.data_dir / "index"


def normalize_database_url(url: str) -> str:
    """Accept `postgres://` and `postgresql://` and use the psycopg 3 driver for both."""
    for prefix in ("postgres://", "postgresql://"):
        if url.startswith(prefix):
            return "postgresql+psycopg://" + url[len(prefix) :]
    return url


def load_settings(**overrides: object) -> Settings:
    """Build settings, turning a validation failure into one readable line naming the setting."""
    try:
        return Settings(**overrides)  # type: ignore[arg-type]
    except ValidationError as exc:
        raise ConfigurationError(describe_validation_error(exc)) from exc


def describe_validation_error(exc: ValidationError) -> str:
    parts = []
    for error in exc.errors():
        where = ".".join(str(p) for p in error["loc"]) or "settings"
        message = error["msg"].removeprefix("Value error, ")
        secret = any(word in where for word in ("secret", "key", "password"))
        if message.startswith(f"{where}:") or not error["loc"]:
            parts.append(message)
        elif secret:
            parts.append(f"{where}: {message}")
        else:
            parts.append(f"{where}: {message} (got {error.get('input')!r})")
    return "invalid setting " + "; ".join(parts)
