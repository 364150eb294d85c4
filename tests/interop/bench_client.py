"""Times MCP tool calls with the official Python SDK, for `scripts/bench`.

Why this exists: issue 23 measures what an agent pays for one
`somite.workflow.get` against an anchor nobody on the team wrote — the
official TypeScript reference server's `echo` tool
(`@modelcontextprotocol/server-everything`) — with the same client in the
same run. Timing `echo` and Somite's reads with one client in one process,
interleaved call by call, cancels most of the client's and the machine's
own cost and drift out of the ratio.

Usage (crates/somite/benches/mcp_python.rs runs it; it starts the runtimes
and issues their capabilities):

    python bench_client.py [--raw] SOMITE_BINARY EVERYTHING_COMMAND_JSON CALLS URL...

`--raw` makes the same calls as bare JSON-RPC lines with no SDK and no
validation: what the servers themselves cost, the client's share left out.

Each capability arrives as one line on stdin, in the order of the URLs, so
it never appears in argv. Prints one JSON line: for `echo` and for each URL
the median, p90 and min milliseconds of CALLS individually timed calls,
after warm-up calls that are not counted, and under `client` the SDK's
release. Asserts only that every call succeeds; timing is reported, never
judged here.

With the SDK, each timed call is followed by the check the SDK itself ran
on that result — its own `validate_tool_result` (2.x: the tool's compiled
outputSchema validator over `structuredContent`; 1.x, `_validate_tool_result`:
a one-shot `jsonschema.validate()`) — timed on its own and reported as
`client_check`, and the call's time less that check as `server_share`:
what the client spends judging a result is not what the server spends
producing it.

Where the time goes (issue 23's profile): nearly all of a
`somite.workflow.get` call in this client is the client's own check of
`structuredContent` against the tool's outputSchema. SDK 1.x runs a one-shot
`jsonschema.validate()` per call, which first checks the whole outputSchema
against the 2020-12 metaschema (about 100 ms for the 27 KB schema, on every
call); SDK 2.x compiles the validator once per tool (python-sdk PR 3134),
leaving the validation of the instance, about 0.4 ms per node. The same
calls as raw JSON-RPC, unvalidated, cost about echo's time at 10 nodes.
scripts/bench therefore runs this client under both SDKs.
"""

from __future__ import annotations

import asyncio
import importlib.metadata
import json
import os
import statistics
import subprocess
import sys
import time
from contextlib import AsyncExitStack

from mcp import ClientSession, StdioServerParameters
from mcp.client.stdio import stdio_client

CAPABILITY_ENV = "SOMITE_MCP_CAPABILITY"
WARM_UP = 20


async def open_session(stack: AsyncExitStack, server: StdioServerParameters) -> ClientSession:
    read, write = await stack.enter_async_context(stdio_client(server))
    session = await stack.enter_async_context(ClientSession(read, write))
    await session.initialize()
    return session


def is_error(result) -> bool:
    # SDK 1.x spells the fields in camelCase, 2.x in snake_case.
    return bool(getattr(result, "is_error", getattr(result, "isError", False)))


def structured(result) -> dict:
    return getattr(result, "structured_content", None) or result.structuredContent


async def client_check_ms(session: ClientSession, tool: str, result) -> float:
    """Times the outputSchema check the SDK ran on `result` inside `call_tool`, by calling it again."""
    check = getattr(session, "validate_tool_result", None) or session._validate_tool_result
    start = time.perf_counter()
    await check(tool, result)
    return (time.perf_counter() - start) * 1000


def summary(samples: list[float]) -> dict[str, float]:
    ordered = sorted(samples)
    return {
        "median_ms": round(statistics.median(ordered), 3),
        "p90_ms": round(ordered[(len(ordered) * 9 + 9) // 10 - 1], 3),
        "min_ms": round(ordered[0], 3),
        "calls": len(ordered),
    }


async def run(binary: str, everything: list[str], calls: int, urls: list[str], capabilities: list[str]) -> dict:
    async with AsyncExitStack() as stack:
        targets = []
        echo = await open_session(
            stack, StdioServerParameters(command=everything[0], args=everything[1:] + ["stdio"])
        )
        targets.append(("echo", echo, "echo", {"message": "hello"}))
        for url, capability in zip(urls, capabilities):
            session = await open_session(
                stack,
                StdioServerParameters(
                    command=binary,
                    args=["mcp", "somite", "--server-url", url],
                    env={"PATH": "/usr/bin:/bin", CAPABILITY_ENV: capability},
                ),
            )
            targets.append((url, session, "somite.workflow.get", {}))
        samples: dict[str, list[float]] = {name: [] for name, *_ in targets}
        checks: dict[str, list[float]] = {name: [] for name, *_ in targets}
        shares: dict[str, list[float]] = {name: [] for name, *_ in targets}
        nodes: dict[str, int] = {}
        for round_ in range(WARM_UP + calls):
            # Interleaved: each round calls every server once, so drift in
            # the machine's load falls on all of them alike.
            for name, session, tool, arguments in targets:
                start = time.perf_counter()
                result = await session.call_tool(tool, arguments)
                elapsed = (time.perf_counter() - start) * 1000
                if is_error(result):
                    raise SystemExit(f"{tool} on {name} failed: {result.content}")
                check = await client_check_ms(session, tool, result)
                if round_ >= WARM_UP:
                    samples[name].append(elapsed)
                    checks[name].append(check)
                    shares[name].append(elapsed - check)
                if tool == "somite.workflow.get":
                    nodes[name] = len(structured(result)["document"]["nodes"])
        return {
            name: {
                **summary(values),
                "client_check": summary(checks[name]),
                "server_share": summary(shares[name]),
                **({"nodes": nodes[name]} if name in nodes else {}),
            }
            for name, values in samples.items()
        }


class RawSession:
    """One server spoken to in bare newline-delimited JSON-RPC."""

    def __init__(self, argv: list[str], env: dict[str, str]) -> None:
        self.process = subprocess.Popen(
            argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, env=env
        )
        self.next_id = 0
        self.request("initialize", {
            "protocolVersion": "2025-11-25",
            "capabilities": {},
            "clientInfo": {"name": "somite-bench-raw", "version": "0"},
        })
        self.send({"jsonrpc": "2.0", "method": "notifications/initialized"})

    def send(self, message: dict) -> None:
        self.process.stdin.write((json.dumps(message) + "\n").encode())
        self.process.stdin.flush()

    def request(self, method: str, params: dict) -> dict:
        self.next_id += 1
        self.send({"jsonrpc": "2.0", "id": self.next_id, "method": method, "params": params})
        while True:
            line = self.process.stdout.readline()
            if not line:
                raise SystemExit(f"the server closed the connection during {method}")
            message = json.loads(line)
            if message.get("id") == self.next_id:
                if "error" in message:
                    raise SystemExit(f"{method} failed: {message['error']}")
                return message["result"]

    def close(self) -> None:
        self.process.stdin.close()
        self.process.wait()


def run_raw(binary: str, everything: list[str], calls: int, urls: list[str], capabilities: list[str]) -> dict:
    targets = [("echo", RawSession(everything + ["stdio"], dict(os.environ)), "echo", {"message": "hello"})]
    for url, capability in zip(urls, capabilities):
        session = RawSession(
            [binary, "mcp", "somite", "--server-url", url],
            {"PATH": "/usr/bin:/bin", CAPABILITY_ENV: capability},
        )
        targets.append((url, session, "somite.workflow.get", {}))
    samples: dict[str, list[float]] = {name: [] for name, *_ in targets}
    nodes: dict[str, int] = {}
    for round_ in range(WARM_UP + calls):
        for name, session, tool, arguments in targets:
            start = time.perf_counter()
            result = session.request("tools/call", {"name": tool, "arguments": arguments})
            elapsed = (time.perf_counter() - start) * 1000
            if result.get("isError"):
                raise SystemExit(f"{tool} on {name} failed: {result.get('content')}")
            if round_ >= WARM_UP:
                samples[name].append(elapsed)
            if tool == "somite.workflow.get":
                nodes[name] = len(result["structuredContent"]["document"]["nodes"])
    for _, session, *_ in targets:
        session.close()
    return {
        name: {**summary(values), **({"nodes": nodes[name]} if name in nodes else {})}
        for name, values in samples.items()
    }


def main() -> None:
    arguments = sys.argv[1:]
    raw = arguments[:1] == ["--raw"]
    binary, everything, calls, *urls = arguments[1:] if raw else arguments
    capabilities = [sys.stdin.readline().strip() for _ in urls]
    if raw:
        result = run_raw(binary, json.loads(everything), int(calls), urls, capabilities)
        result["client"] = "Python, raw JSON-RPC, unvalidated"
    else:
        result = asyncio.run(run(binary, json.loads(everything), int(calls), urls, capabilities))
        result["client"] = f"Python mcp {importlib.metadata.version('mcp')}"
    print(json.dumps(result))


if __name__ == "__main__":
    main()
