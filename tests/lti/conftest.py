"""The LMS the LTI tests launch from: a fake platform on a real loopback socket."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from tests.fakes.live_server import LiveServer
from tests.fakes.lti_platform import Platform


@pytest.fixture
def platform() -> Iterator[Platform]:
    lms = Platform()
    with LiveServer(lms.app(), name="test LMS") as server:
        lms.base = server.url
        yield lms
