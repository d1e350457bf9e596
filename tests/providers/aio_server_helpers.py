"""An aiohttp app on loopback in a thread of its own, for the tests whose servers the CLI calls
(``test_secrets_run.py``, ``test_secrets_forms.py``)."""

from __future__ import annotations

import asyncio
import threading

from aiohttp import web


class AioServer:
    """An aiohttp app on 127.0.0.1 in its own thread (the CLI runs its own event loop)."""

    def __init__(self, routes: list[web.RouteDef]) -> None:
        self._routes = routes
        self._loop = asyncio.new_event_loop()
        self._ready = threading.Event()
        self.url = ""
        self._thread = threading.Thread(target=self._run, daemon=True)

    def _run(self) -> None:
        asyncio.set_event_loop(self._loop)
        app = web.Application()
        app.add_routes(self._routes)
        self._runner = web.AppRunner(app)
        self._loop.run_until_complete(self._runner.setup())
        site = web.TCPSite(self._runner, "127.0.0.1", 0)
        self._loop.run_until_complete(site.start())
        port = site._server.sockets[0].getsockname()[1]  # type: ignore[union-attr]
        self.url = f"http://127.0.0.1:{port}"
        self._ready.set()
        self._loop.run_forever()
        self._loop.run_until_complete(self._runner.cleanup())

    def __enter__(self) -> AioServer:
        self._thread.start()
        self._ready.wait(10)
        return self

    def __exit__(self, *exc: object) -> None:
        self._loop.call_soon_threadsafe(self._loop.stop)
        self._thread.join(10)
