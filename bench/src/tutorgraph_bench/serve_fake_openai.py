"""`python -m tutorgraph_bench.serve_fake_openai --port N`: the fake OpenAI-compatible server in
a process of its own, answering every request with one default reply (for `bench tutor`)."""

from __future__ import annotations

import argparse
from collections.abc import Sequence

import uvicorn

from tutorgraph_bench.fake_openai import FakeOpenAIServer


def main(argv: Sequence[str] | None = None) -> None:
    """Serve the fake with a default reply until interrupted (used by `tutorgraph bench tutor`)."""
    parser = argparse.ArgumentParser(description=main.__doc__)
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--port", type=int, required=True)
    parser.add_argument("--first-token-delay", type=float, default=0.0)
    parser.add_argument("--token-interval", type=float, default=0.0)
    parser.add_argument("--reply", default="This is the fake model's answer.")
    args = parser.parse_args(argv)
    server = FakeOpenAIServer()
    server.configure(
        first_token_delay=args.first_token_delay,
        token_interval=args.token_interval,
        default_reply=args.reply,
        record_requests=False,
    )
    uvicorn.run(
        server.app(),
        host=args.host,
        port=args.port,
        http="h11",
        ws="none",
        lifespan="off",
        log_level="warning",
        access_log=False,
        backlog=4096,
    )


if __name__ == "__main__":
    main()
