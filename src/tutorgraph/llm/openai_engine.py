"""The engine for any OpenAI-compatible chat-completions server, via the official `openai` SDK."""

from __future__ import annotations

import logging
import uuid
from collections.abc import AsyncGenerator, AsyncIterator, Sequence
from contextlib import aclosing
from typing import Any, cast
from urllib.parse import urlsplit

import openai
from openai.types.chat import ChatCompletionMessageParam
from openai.types.chat.completion_create_params import ResponseFormat
from pydantic import ValidationError

from tutorgraph.errors import ConfigurationError, ProviderError, StructuredOutputError
from tutorgraph.llm._calllog import CallLog
from tutorgraph.llm._errors import SDK_ERRORS, ResponseFormatUnsupported, translate_error
from tutorgraph.llm._errors import describe_sdk_error as _describe
from tutorgraph.llm._json_reply import (
    describe_errors,
    json_schema_format,
    parse_reply,
    repair_messages,
    with_schema_instructions,
)
from tutorgraph.llm._retry import RetryPolicy, call_with_retry
from tutorgraph.llm._stream import ChunkAssembler
from tutorgraph.llm._wire import to_wire_messages, to_wire_tools
from tutorgraph.llm.types import (
    Finish,
    FinishReason,
    Message,
    SchemaT,
    StreamEvent,
    TextDelta,
    ToolCall,
    ToolCallEvent,
    ToolSpec,
)
from tutorgraph.settings import LLMSettings

log = logging.getLogger("tutorgraph.llm")

NO_KEY = "not-needed"  # local servers ignore the key, but the SDK insists on sending one
_KEYED_HOSTS = ("api.openai.com",)


class OpenAIEngine:
    """Structured output, streaming and tool calls against `settings.base_url`."""

    name = "openai"
    supports_tools = True
    can_stream = True

    def __init__(self, settings: LLMSettings, *, client: openai.AsyncOpenAI | None = None) -> None:
        self.settings = settings
        self._policy = RetryPolicy.from_settings(settings)
        self._owns_client = client is None
        self._client = client if client is not None else _make_client(settings)
        self._json_schema_supported = True

    async def aclose(self) -> None:
        """Close the HTTP client if this engine created it."""
        if self._owns_client:
            await self._client.close()

    async def __aenter__(self) -> OpenAIEngine:
        return self

    async def __aexit__(self, *exc_info: object) -> None:
        await self.aclose()

    async def structured(
        self,
        schema: type[SchemaT],
        messages: Sequence[Message],
        *,
        agent: str,
        inputs: Any = None,
    ) -> SchemaT:
        messages, response_format, reply = await self._first_reply(schema, messages, agent=agent)
        try:
            return parse_reply(schema, reply)
        except ValidationError as exc:
            first_error = exc
        log.info(
            "llm reply for agent=%s did not validate against %s; asking once for a repair",
            agent,
            schema.__name__,
            extra={"agent": agent, "schema": schema.__name__},
        )
        repair = repair_messages(messages, schema, reply, first_error)
        reply = await self._complete(repair, response_format, agent=agent, schema=schema.__name__)
        try:
            return parse_reply(schema, reply)
        except ValidationError as exc:
            raise StructuredOutputError(
                f"the model's reply for agent {agent!r} did not match {schema.__name__} after one "
                f"repair attempt: {describe_errors(exc)}"
            ) from exc

    async def _first_reply(
        self, schema: type[SchemaT], messages: Sequence[Message], *, agent: str
    ) -> tuple[Sequence[Message], ResponseFormat, str]:
        """Ask with `json_schema`, or with `json_object` and the schema in the prompt once the
        server has refused `json_schema`."""
        if self._json_schema_supported:
            response_format: ResponseFormat = json_schema_format(schema)
            try:
                reply = await self._complete(
                    messages, response_format, agent=agent, schema=schema.__name__
                )
            except ResponseFormatUnsupported:
                self._json_schema_supported = False
                log.info(
                    "model server at %s refused response_format json_schema; "
                    "using json_object with the schema in the prompt from now on",
                    self.settings.base_url,
                )
            else:
                return messages, response_format, reply
        messages = with_schema_instructions(messages, schema)
        # Servers with grammar-constrained decoding (llama.cpp, vLLM) read a `schema` here;
        # others ignore the extra key and follow the instructions in the prompt.
        response_format = cast(
            ResponseFormat, {"type": "json_object", "schema": schema.model_json_schema()}
        )
        reply = await self._complete(messages, response_format, agent=agent, schema=schema.__name__)
        return messages, response_format, reply

    async def _complete(
        self,
        messages: Sequence[Message],
        response_format: ResponseFormat,
        *,
        agent: str,
        schema: str,
    ) -> str:
        record = CallLog(agent=agent, schema=schema, model=self.settings.model)
        wire = to_wire_messages(messages)

        async def attempt() -> str:
            completion = await self._client.chat.completions.create(
                model=self.settings.model,
                messages=wire,
                response_format=response_format,
                temperature=self.settings.temperature,
                max_tokens=self.settings.max_tokens,
            )
            record.add_usage(completion.usage)
            if not completion.choices:
                return ""
            return completion.choices[0].message.content or ""

        return await call_with_retry(
            attempt, policy=self._policy, record=record, translate=self._translate
        )

    async def stream_chat(
        self,
        messages: Sequence[Message],
        *,
        agent: str,
        tools: Sequence[ToolSpec] = (),
        inputs: Any = None,
    ) -> AsyncIterator[StreamEvent]:
        record = CallLog(agent=agent, schema=None, model=self.settings.model)
        wire = to_wire_messages(messages)
        while True:
            yielded = False
            try:
                async with aclosing(self._stream_once(wire, tools, record)) as events:
                    async for event in events:
                        yielded = True
                        yield event
            except GeneratorExit:  # the caller stopped reading; the call itself went fine
                record.ok()
                raise
            except SDK_ERRORS as exc:
                # After the first event the caller has shown text: a retry would repeat it.
                if not yielded and self._policy.should_retry(exc, record.attempt):
                    await self._policy.wait(exc, record)
                    continue
                record.error(_describe(exc))
                raise self._translate(exc, record.attempt) from exc
            record.ok()
            return

    async def _stream_once(
        self,
        wire: list[ChatCompletionMessageParam],
        tools: Sequence[ToolSpec],
        record: CallLog,
    ) -> AsyncGenerator[StreamEvent, None]:
        stream = await self._client.chat.completions.create(
            model=self.settings.model,
            messages=wire,
            stream=True,
            stream_options={"include_usage": True},
            tools=to_wire_tools(tools) if tools else openai.omit,
            # Explicit: some servers ignore tools unless a tool_choice is sent.
            tool_choice="auto" if tools else openai.omit,
            temperature=self.settings.temperature,
            max_tokens=self.settings.max_tokens,
        )
        assembler = ChunkAssembler()
        chunks = 0
        try:
            async with stream:
                async for chunk in stream:
                    chunks += 1
                    for event in assembler.feed(chunk):
                        yield event
        except openai.APIConnectionError:
            if chunks or not tools:
                raise
        if chunks == 0 and tools:
            # llama.cpp's server cannot stream an automatic tool choice: it closes the stream
            # (or the connection) before a chunk. Ask again without streaming, emit as events.
            log.info(
                "empty stream with tools from %s; asking without streaming", self.settings.base_url
            )
            async for event in self._complete_with_tools(wire, tools, record):
                yield event
            return
        record.prompt_tokens = assembler.usage.prompt_tokens
        record.completion_tokens = assembler.usage.completion_tokens
        for event in assembler.finish():
            yield event

    async def _complete_with_tools(
        self,
        wire: list[ChatCompletionMessageParam],
        tools: Sequence[ToolSpec],
        record: CallLog,
    ) -> AsyncGenerator[StreamEvent, None]:
        for attempt in (1, 2):
            try:
                completion = await self._client.chat.completions.create(
                    model=self.settings.model,
                    messages=wire,
                    tools=to_wire_tools(tools),
                    tool_choice="auto",
                    temperature=self.settings.temperature,
                    max_tokens=self.settings.max_tokens,
                )
                break
            except openai.APIConnectionError:
                if attempt == 2:  # the first may reuse the connection the stream broke
                    raise
        record.add_usage(completion.usage)
        if not completion.choices:
            yield Finish(reason="stop")
            return
        choice = completion.choices[0]
        if choice.message.content:
            yield TextDelta(delta=choice.message.content)
        calls = [c for c in choice.message.tool_calls or () if c.type == "function"]
        for call in calls:
            yield ToolCallEvent(
                call=ToolCall(
                    id=call.id or f"call_{uuid.uuid4().hex[:24]}",
                    name=call.function.name.rstrip(":"),
                    arguments=call.function.arguments or "{}",
                )
            )
        yield Finish(reason="tool_calls" if calls else _finish_reason(choice.finish_reason))

    def _translate(self, exc: Exception, attempts: int) -> ProviderError:
        return translate_error(exc, settings=self.settings, attempts=attempts)


def _finish_reason(reason: str | None) -> FinishReason:
    return "length" if reason == "length" else "stop"


def _make_client(settings: LLMSettings) -> openai.AsyncOpenAI:
    return openai.AsyncOpenAI(
        api_key=_api_key(settings),
        base_url=settings.base_url,
        timeout=settings.timeout_seconds,
        max_retries=0,
    )


def make_sync_client(settings: LLMSettings) -> openai.OpenAI:
    """A blocking client, for callers already on a worker thread (search indexing)."""
    return openai.OpenAI(
        api_key=_api_key(settings),
        base_url=settings.base_url,
        timeout=settings.timeout_seconds,
        max_retries=settings.max_attempts - 1,
    )


def _api_key(settings: LLMSettings) -> str:
    key = settings.api_key.get_secret_value() if settings.api_key is not None else ""
    host = urlsplit(settings.base_url).hostname or ""
    if not key and host in _KEYED_HOSTS:
        raise ConfigurationError(
            f"llm.api_key: {settings.base_url} needs an API key: set TUTORGRAPH_LLM_API_KEY "
            "(or point TUTORGRAPH_LLM_BASE_URL at a local server)"
        )
    return key or NO_KEY
