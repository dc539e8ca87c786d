"""A `sextant mcp` server for a bench: started through the MCP Python SDK with its stderr
discarded, initialized, and the moment it was started, which the benches time from."""

import contextlib
import os
import time

from mcp import ClientSession, StdioServerParameters, stdio_client


@contextlib.asynccontextmanager
async def quiet_session(sextant: str, args: list[str]):
    """Yields `(session, started)`: an initialized session and `time.perf_counter()` at the
    server's start."""
    params = StdioServerParameters(command=sextant, args=args)
    started = time.perf_counter()
    with open(os.devnull, "w") as errlog:
        async with stdio_client(params, errlog=errlog) as (read, write):
            async with ClientSession(read, write) as session:
                await session.initialize()
                yield session, started
