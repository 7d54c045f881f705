"""CI installs bubblewrap and sets TUTORGRAPH_REQUIRE_SANDBOX: there, a missing sandbox is a
failure, not a quiet skip of every sandbox test."""

from __future__ import annotations

import os

import pytest

from tutorgraph.sandbox import sandbox_available


@pytest.mark.skipif(
    not os.environ.get("TUTORGRAPH_REQUIRE_SANDBOX"), reason="TUTORGRAPH_REQUIRE_SANDBOX unset"
)
def test_the_sandbox_is_there_when_required() -> None:
    assert sandbox_available(), "bubblewrap is missing or may not create namespaces"
