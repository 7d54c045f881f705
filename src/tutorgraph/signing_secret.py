"""The one secret that signs access tokens and CSRF tokens.

A configured `jwt_secret` wins. Otherwise (development only: settings refuse a missing secret
elsewhere) the first process to start writes a random secret to `data_dir/jwt_secret` (mode 0600)
and every later process on that data dir reads the same one, so a server reachable from the
network never signs with a value anyone can read in the source."""

from __future__ import annotations

import logging
import os
import secrets
from pathlib import Path

from tutorgraph.errors import ConfigurationError
from tutorgraph.settings import Settings

log = logging.getLogger(__name__)
SECRET_FILE = "jwt_secret"
_cache: dict[Path, str] = {}


def signing_secret(settings: Settings) -> str:
    """The effective signing secret for these settings."""
    if settings.jwt_secret is not None:
        return settings.jwt_secret.get_secret_value()
    path = (settings.data_dir / SECRET_FILE).resolve()
    if path not in _cache:
        _cache[path] = _read_or_create(path)
    return _cache[path]


def _read_or_create(path: Path) -> str:
    if not path.exists():
        _create(path)
    secret = path.read_text(encoding="ascii").strip()
    if len(secret) < 32:
        raise ConfigurationError(
            f"jwt_secret: {path} holds fewer than 32 characters; delete it to make a new one"
        )
    return secret


def _create(path: Path) -> None:
    if create_private_file(path, (secrets.token_urlsafe(48) + "\n").encode("ascii")):
        log.info("generated a signing secret in %s", path)


def create_private_file(path: Path, content: bytes) -> bool:
    """Write a complete private (0600) file under a private name, then link it into place:
    `link` fails if another process got there first, so concurrent starters all end up reading
    one file. True when this process wrote it."""
    path.parent.mkdir(parents=True, exist_ok=True)
    staging = path.with_name(f".{path.name}.{os.getpid()}.{secrets.token_hex(4)}")
    fd = os.open(staging, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    try:
        os.fchmod(fd, 0o600)  # whatever the umask
        os.write(fd, content)
        os.fsync(fd)
    finally:
        os.close(fd)
    try:
        os.link(staging, path)
        return True
    except FileExistsError:
        return False  # another process won the race; use its file
    finally:
        staging.unlink()
