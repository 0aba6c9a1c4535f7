"""idle_sockets: what open, idle conversation tabs cost the web process.

Opens N conversation websockets as the page does (the same handshake, login cookie and first
resync; no client pings, as browsers send none) and leaves them idle. At each N, on the same
running server: RSS, CPU over an idle window (a whole round of keepalive pings at least), the
conversation page's latency (median of 20 GETs) and push delivery (a bare `group_send` through
`/ws/bench/echo/`, median of 50). Every figure is read against N = 0 from the same run.
Target: idle CPU at the largest N within 0.5 points of N = 0 (no measurable cost), page and
push latency within 1.5x of N = 0.
"""

import asyncio
import statistics
import time

from django.conf import settings
from websockets.asyncio.client import connect

from bench.client import Person, echo_seconds, open_echo
from bench.runner import bench_main
from bench.stack import cpu_seconds

# Opening is bounded by the server (each connect checks ownership and renders a resync in its
# one database thread): more at once only hits the 5 s handshake timeout.
OPENING_AT_ONCE = 10


async def measure(stack, levels: tuple[int, ...], idle: float, window: float) -> dict:
    """`idle` seconds with no tab open, then `window` seconds at each level."""
    web = stack.processes()["web"]
    figures: dict = {"levels": list(levels), "idle_s": window}
    sockets = []
    async with Person.logged_in(stack) as person:
        idle_conversation = await person.start_conversation()
        page = f"/c/{await person.start_conversation()}/"
        echo = await open_echo(person)
        await _page_seconds(person, page)  # warm: the first loads compile templates
        for level in levels:
            sockets += await _open_tabs(person, idle_conversation, level - len(sockets))
            seconds = window if level else idle
            cpu = cpu_seconds(web)
            await asyncio.sleep(seconds)  # the idle window being measured
            figures[f"cpu_pct_{level}"] = 100 * (cpu_seconds(web) - cpu) / seconds
            figures[f"rss_mb_{level}"] = web.memory_info().rss / 2**20
            figures[f"page_ms_{level}"] = 1000 * await _page_seconds(person, page)
            figures[f"push_ms_{level}"] = 1000 * statistics.median(
                [await echo_seconds(echo, 2600) for _ in range(50)]
            )
        await echo.close()
        await asyncio.gather(*(socket.close() for socket in sockets))
    top, base = levels[-1], levels[0]
    figures["open_sockets"] = top
    names = ("cpu_pct", "rss_mb", "page_ms", "push_ms")
    at_top = {name: figures[f"{name}_{top}"] for name in names}
    at_base = {name: figures[f"{name}_{base}"] for name in at_top}
    figures["rss_kb_per_socket"] = 1024 * (at_top["rss_mb"] - at_base["rss_mb"]) / top
    figures["cpu_pct_added"] = at_top["cpu_pct"] - at_base["cpu_pct"]
    figures["page_ratio"] = at_top["page_ms"] / at_base["page_ms"]
    figures["push_ratio"] = at_top["push_ms"] / at_base["push_ms"]
    figures["target"] = "idle CPU added < 0.5 points; page and push ratio <= 1.5"
    figures["met"] = (
        figures["cpu_pct_added"] < 0.5 and max(figures["page_ratio"], figures["push_ratio"]) <= 1.5
    )
    return figures


async def _open_tabs(person: Person, conversation: int, count: int) -> list:
    """Open `count` tabs of one conversation; return their sockets once each has its resync."""
    cookie = "; ".join(f"{name}={value}" for name, value in person.client.cookies.items())
    url = person.stack.url.replace("http", "ws") + f"/ws/c/{conversation}/"
    gate = asyncio.Semaphore(OPENING_AT_ONCE)

    async def open_one():
        async with gate:
            socket = await connect(
                url,
                origin=person.stack.url,
                additional_headers={"Cookie": cookie},
                ping_interval=None,  # browsers answer pings but send none
                max_size=None,
            )
            await socket.recv()  # the resync every new tab gets
            return socket

    return await asyncio.gather(*(open_one() for _ in range(count)))


async def _page_seconds(person: Person, path: str) -> float:
    times = []
    for _ in range(20):
        started = time.perf_counter()
        response = await person.client.get(path)
        times.append(time.perf_counter() - started)
        assert response.status_code == 200, f"GET {path}: {response.status_code}"
    return statistics.median(times)


def run(stack, quick: bool, idle: float, **options) -> dict:
    levels = (0, 1000) if quick else (0, 4000)
    # Whatever --idle says, a window with tabs open takes in a whole round of keepalive pings
    # (sent on the server's pass every 10 s).
    window = max(idle, settings.WEBSOCKET_PING_SECONDS + 10)
    return asyncio.run(measure(stack, levels, idle, window))


if __name__ == "__main__":
    bench_main("idle_sockets", run)
