from __future__ import annotations

from pathlib import Path

import pytest

from tutorgraph.errors import ConfigurationError
from tutorgraph.settings import load_settings


def test_defaults_are_offline_sqlite_in_the_data_dir(tmp_path: Path) -> None:
    settings = load_settings()
    assert settings.llm.engine == "offline"
    assert settings.sqlalchemy_url == f"sqlite:///{tmp_path / 'data' / 'tutorgraph.db'}"
    assert settings.checkpointer_url.endswith("data/checkpoints.db")
    assert not settings.search.enabled


def test_yaml_file_then_environment_override(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    yaml_file = tmp_path / "settings.yaml"
    yaml_file.write_text(
        "llm:\n  engine: openai\n  base_url: http://localhost:11434/v1\n  model: llama3\n"
        "  temperature: 0.1\nlimits:\n  max_message_chars: 500\n"
    )
    monkeypatch.setenv("TUTORGRAPH_SETTINGS_FILE", str(yaml_file))
    monkeypatch.setenv("TUTORGRAPH_LLM_MODEL", "qwen2.5")
    monkeypatch.setenv("TUTORGRAPH_LLM_API_KEY", "sk-from-env")
    settings = load_settings()
    assert settings.llm.engine == "openai"
    assert settings.llm.base_url == "http://localhost:11434/v1"
    assert settings.llm.model == "qwen2.5"  # environment wins over the file
    assert settings.llm.temperature == 0.1
    assert settings.llm.api_key is not None
    assert settings.llm.api_key.get_secret_value() == "sk-from-env"
    assert settings.limits.max_message_chars == 500


def test_dotenv_supplies_secrets(tmp_path: Path) -> None:
    (tmp_path / ".env").write_text("TUTORGRAPH_JWT_SECRET=a-secret-from-dotenv-file-0123456789\n")
    secret = load_settings().jwt_secret
    assert secret is not None
    assert secret.get_secret_value() == "a-secret-from-dotenv-file-0123456789"


def test_bad_value_fails_with_one_line_naming_the_setting(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("TUTORGRAPH_LLM_TEMPERATURE", "7")
    with pytest.raises(ConfigurationError) as info:
        load_settings()
    assert "llm.temperature" in info.value.message
    assert "\n" not in info.value.message


def test_jwt_secret_required_outside_development(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("TUTORGRAPH_ENVIRONMENT", "production")
    with pytest.raises(ConfigurationError, match="TUTORGRAPH_JWT_SECRET"):
        load_settings()
    monkeypatch.setenv("TUTORGRAPH_JWT_SECRET", "a-production-secret-0123456789-abcdef")
    assert load_settings().environment == "production"
    monkeypatch.setenv("TUTORGRAPH_ENVIRONMENT", "development")
    monkeypatch.delenv("TUTORGRAPH_JWT_SECRET")
    assert load_settings().jwt_secret is None  # development makes one in the data dir


def test_secret_values_never_appear_in_errors(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("TUTORGRAPH_JWT_SECRET", "short")
    with pytest.raises(ConfigurationError) as info:
        load_settings()
    assert "short" not in info.value.message.replace("at least", "")
    assert "jwt_secret" in info.value.message


def test_postgres_urls_use_psycopg(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("TUTORGRAPH_DATABASE_URL", "postgres://u@localhost/db")
    settings = load_settings()
    assert settings.sqlalchemy_url == "postgresql+psycopg://u@localhost/db"
    assert settings.checkpointer_url == settings.sqlalchemy_url
