"""`sextant mcp` over stdio spoken to in JSON-RPC lines, without an SDK: what a call costs
the server and the pipe alone. The MCP Python SDK validates every answer's structured
content against the tool's output schema, which can cost more than the call itself."""

import json
import os
import subprocess
import time


class RawMcpServer:
    def __init__(self, sextant: str, root, *options: str, env: dict | None = None, client: str = "bench"):
        self.process = subprocess.Popen(
            [sextant, "mcp", "--root", str(root), *options],
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
            env=env if env is not None else os.environ.copy(),
        )
        self.next_id = 0
        self.request("initialize", {"protocolVersion": "2025-06-18", "capabilities": {},
                                    "clientInfo": {"name": client, "version": "1"}})
        self.send({"jsonrpc": "2.0", "method": "notifications/initialized"})

    def send(self, message):
        self.process.stdin.write((json.dumps(message) + "\n").encode())
        self.process.stdin.flush()

    def request(self, method, params):
        """The result of one request; notifications and other answers are skipped."""
        self.next_id += 1
        self.send({"jsonrpc": "2.0", "id": self.next_id, "method": method, "params": params})
        while True:
            message = json.loads(self.process.stdout.readline())
            if message.get("id") == self.next_id:
                return message["result"]

    def tool(self, name, arguments):
        """A tool's result, which must not be an error."""
        result = self.request("tools/call", {"name": name, "arguments": arguments})
        assert not result.get("isError"), result
        return result

    def wait_until_ready(self):
        while not self.tool("workspace_status", {})["structuredContent"]["ready"]:
            time.sleep(0.2)

    def close(self):
        self.process.kill()
        self.process.wait()
