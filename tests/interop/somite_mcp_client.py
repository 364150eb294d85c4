"""An independent MCP client for `somite mcp somite`: the official Python SDK.

Why this exists: Somite's own MCP tests drive the server with rmcp, the SDK
the server is written with, so both ends could share a misreading of the
specification. This script is the interoperability check the tracker asks
for: a client nobody on the team wrote (`mcp` from PyPI, pinned in
requirements.txt next to it) connects over stdio, initializes with protocol
2025-11-25, lists the tools, checks every input and output schema as JSON
Schema (Draft 2020-12) with only formats the validator knows, calls tools and validates each result's
structuredContent against the tool's declared outputSchema.

Usage (crates/somite/tests/mcp_interop.rs runs it):

    python somite_mcp_client.py SOMITE_BINARY RUNTIME_URL

The capability is read from SOMITE_MCP_CAPABILITY in this process's
environment and handed to the server through its environment only, never
argv. On success one JSON summary line is printed to stdout and the exit
status is 0; any failure prints a message to stderr and exits non-zero.
"""

from __future__ import annotations

import asyncio
import json
import os
import sys
from importlib.metadata import version
from typing import Any

import jsonschema
from mcp import ClientSession, StdioServerParameters
from mcp.client.stdio import stdio_client

CAPABILITY_ENV = "SOMITE_MCP_CAPABILITY"
PROTOCOL_VERSION = "2025-11-25"
CALL_TIMEOUT_S = 60


class InteropFailure(Exception):
    """A check failed; the message says which and why."""


def check(condition: bool, message: str) -> None:
    if not condition:
        raise InteropFailure(message)


def validate(instance: Any, schema: dict[str, Any], what: str) -> None:
    errors = sorted(
        jsonschema.Draft202012Validator(schema).iter_errors(instance),
        key=lambda e: list(e.absolute_path),
    )
    if errors:
        details = "; ".join(
            f"at /{'/'.join(map(str, e.absolute_path))}: {e.message}" for e in errors[:5]
        )
        raise InteropFailure(f"{what} does not match its outputSchema: {details}")


def formats(schema: Any) -> list[str]:
    """Every `format` value anywhere in a schema."""
    if isinstance(schema, dict):
        found = [schema["format"]] if isinstance(schema.get("format"), str) else []
        return found + [f for value in schema.values() for f in formats(value)]
    if isinstance(schema, list):
        return [f for item in schema for f in formats(item)]
    return []


async def run(binary: str, url: str, capability: str) -> dict[str, Any]:
    known_formats = set(jsonschema.Draft202012Validator.FORMAT_CHECKER.checkers)
    # A non-None env replaces the child's whole environment: give it only a
    # PATH and the capability.
    server = StdioServerParameters(
        command=binary,
        args=["mcp", "somite", "--server-url", url],
        env={"PATH": "/usr/bin:/bin", CAPABILITY_ENV: capability},
    )
    async with stdio_client(server) as (read, write):
        async with ClientSession(read, write) as session:
            init = await asyncio.wait_for(session.initialize(), CALL_TIMEOUT_S)
            check(
                init.protocolVersion == PROTOCOL_VERSION,
                f"negotiated protocol {init.protocolVersion!r}, expected {PROTOCOL_VERSION!r}",
            )
            check(bool(init.capabilities.tools), "the server does not advertise tools")

            tools = {}
            cursor = None
            while True:
                page = await session.list_tools(cursor=cursor) if cursor else await session.list_tools()
                for tool in page.tools:
                    tools[tool.name] = tool
                cursor = page.nextCursor
                if not cursor:
                    break
            check(bool(tools), "tools/list returned no tools")
            for name, tool in tools.items():
                for kind, schema in (("inputSchema", tool.inputSchema), ("outputSchema", tool.outputSchema)):
                    check(schema is not None, f"{name} has no {kind}")
                    try:
                        jsonschema.Draft202012Validator.check_schema(schema)
                    except jsonschema.SchemaError as e:
                        raise InteropFailure(f"{name}'s {kind} is not valid JSON Schema 2020-12: {e.message}")
                    # Strict clients (Ajv in the TypeScript SDK) warn about
                    # and ignore a format they do not know, e.g. schemars'
                    # "uint64": every format must be one the validator knows.
                    unknown = sorted(set(formats(schema)) - known_formats)
                    check(not unknown, f"{name}'s {kind} uses unknown formats {unknown}")

            async def call(name: str, arguments: dict[str, Any], expect_error: bool) -> dict[str, Any]:
                check(name in tools, f"{name} is not advertised")
                tool = tools[name]
                validate(arguments, tool.inputSchema, f"the arguments for {name} (inputSchema)")
                # The SDK itself also validates successful structuredContent
                # against the outputSchema; failures are checked here.
                result = await asyncio.wait_for(session.call_tool(name, arguments), CALL_TIMEOUT_S)
                check(
                    bool(result.isError) == expect_error,
                    f"{name}: isError={result.isError}, expected {expect_error}: {result.content}",
                )
                content = result.structuredContent
                check(isinstance(content, dict), f"{name} returned no structuredContent")
                check(
                    any(c.type == "text" for c in result.content),
                    f"{name} returned no text content",
                )
                validate(content, tool.outputSchema, f"{name}'s structuredContent")
                return content

            workflow = await call("somite.workflow.get", {}, expect_error=False)
            base = workflow["state_revision"]
            search = await call(
                "somite.catalog.search", {"query": "align reads", "limit": 5}, expect_error=False
            )
            check(bool(search["matches"]), f"no catalog matches for 'align reads': {search}")
            applied = await call(
                "somite.graph.apply_transaction",
                {
                    "base_state_revision": base,
                    "idempotency_key": "python-interop-0001",
                    "summary": "Set the title from the Python SDK",
                    "operations": [{"op": "set_title", "title": "Interop"}],
                },
                expect_error=False,
            )
            check(applied["replayed"] is False, f"a fresh edit replayed: {applied}")
            stale = await call(
                "somite.graph.apply_transaction",
                {
                    "base_state_revision": base,
                    "idempotency_key": "python-interop-0002",
                    "summary": "A late edit on a stale revision",
                    "operations": [{"op": "set_title", "title": "Late"}],
                },
                expect_error=True,
            )
            for field in ("code", "message", "recovery"):
                check(isinstance(stale.get(field), str), f"the failure has no string {field}: {stale}")
            check(stale["code"] == "stale_revision", f"expected stale_revision: {stale}")

            # The source workflow's typed edit and promotion answer their
            # refusals in the shape their outputSchema declares (the canvas
            # holds no source node to edit).
            source_codes = {}
            for name, arguments in (
                (
                    "somite.source_workflow.edit",
                    {
                        "node_id": "no-such-node",
                        "base_state_revision": applied["state_revision"],
                        "idempotency_key": "python-interop-0003",
                        "edits": [{"op": "unset_param", "param": "outdir"}],
                    },
                ),
                (
                    "somite.source_workflow.promote",
                    {
                        "node_id": "no-such-node",
                        "base_state_revision": applied["state_revision"],
                        "idempotency_key": "python-interop-0004",
                        "invocations": ["NFCORE_DEMO:DEMO:FASTQC"],
                    },
                ),
            ):
                refused = await call(name, arguments, expect_error=True)
                source_codes[name] = refused["code"]

            return {
                "ok": True,
                "sdk": f"mcp {version('mcp')}",
                "jsonschema": version("jsonschema"),
                "protocol_version": init.protocolVersion,
                "server": init.serverInfo.name,
                "tools": sorted(tools),
                "schemas_checked": 2 * len(tools),
                "state_revision": base,
                "search_matches": [m["id"] for m in search["matches"]],
                "applied_state_revision": applied["state_revision"],
                "failure_code": stale["code"],
                "source_failure_codes": source_codes,
            }


def leaves(error: BaseException) -> list[BaseException]:
    """The SDK runs in anyio task groups, which wrap failures in groups."""
    if isinstance(error, BaseExceptionGroup):
        return [leaf for inner in error.exceptions for leaf in leaves(inner)]
    return [error]


def main() -> int:
    if len(sys.argv) != 3:
        print("usage: somite_mcp_client.py SOMITE_BINARY RUNTIME_URL", file=sys.stderr)
        return 2
    capability = os.environ.get(CAPABILITY_ENV)
    if not capability:
        print(f"interop: {CAPABILITY_ENV} is not set in the environment", file=sys.stderr)
        return 2
    try:
        summary = asyncio.run(run(sys.argv[1], sys.argv[2], capability))
    except Exception as error:  # noqa: BLE001 - any SDK or transport error is a failure
        for leaf in leaves(error):
            if isinstance(leaf, InteropFailure):
                print(f"interop: FAILED: {leaf}", file=sys.stderr)
            else:
                print(f"interop: FAILED with {type(leaf).__name__}: {leaf!r}", file=sys.stderr)
        return 1
    print(json.dumps(summary, sort_keys=True))
    return 0


if __name__ == "__main__":
    sys.exit(main())
