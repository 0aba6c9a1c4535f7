"""layer_subscriptions: whether channels-redis's pub/sub layer slows down as calls wait on it.

A waiting API call holds two subscriptions on its process's one pub/sub connection (its
channel and its part's group, `playground/chat/part_waiting.py`). Here, in one process as in a web
process: 0 or 1,000 such waiters, and meanwhile a chat tab's steps on the layer, one after
another: a channel, its two groups, a push to the group from another connection and its
arrival, then both groups left and the channel ended. Median wall time and CPU per tab, in
rounds of none and 1,000 waiting alternately, so load on a shared machine falls on both.
Needs Redis only: `python -m bench.layer_subscriptions [--waiting 1000] [--rounds 3]`.
"""

import argparse
import asyncio
import statistics
import time
import uuid

from channels_redis.pubsub import RedisPubSubChannelLayer

from bench.stack import REDIS_URL
from playground.server.layer_channels import inbox, release

TABS = 300


async def _wait(layer, group: str, ready: asyncio.Semaphore, stop: asyncio.Event) -> None:
    """Subscribe as `wait_in_group` does and wait until told to stop."""
    channel = await layer.new_channel()
    await layer.group_add(group, channel)
    async with inbox(layer, channel):
        ready.release()
        await stop.wait()
    await layer.group_discard(group, channel)


async def _tab(layer, pusher) -> None:
    channel = await layer.new_channel()
    await layer.group_add("conversation-1", channel)
    await layer.group_add("person-1", channel)
    await pusher.group_send("conversation-1", {"type": "fragment.push", "html": "<div></div>"})
    await layer.receive(channel)
    await layer.group_discard("conversation-1", channel)
    await layer.group_discard("person-1", channel)
    await release(layer, channel)


async def _tabs(layer, pusher) -> tuple[float, float]:
    """Return the median wall time and the mean CPU time of a tab's steps, in ms."""
    times, cpu = [], time.process_time()
    for _ in range(TABS):
        started = time.perf_counter()
        await _tab(layer, pusher)
        times.append(time.perf_counter() - started)
    return 1000 * statistics.median(times), 1000 * (time.process_time() - cpu) / TABS


async def measure(waiting: int, rounds: int) -> None:
    prefix = f"bench-{uuid.uuid4().hex[:8]}"
    layer, pusher = (
        RedisPubSubChannelLayer(hosts=[{"address": REDIS_URL}], prefix=prefix) for _ in range(2)
    )
    await _tabs(layer, pusher)  # warm
    figures: dict[int, list[tuple[float, float]]] = {0: [], waiting: []}
    for _ in range(rounds):
        for level in (0, waiting):
            ready, stop = asyncio.Semaphore(0), asyncio.Event()
            waiters = [
                asyncio.create_task(_wait(layer, "part-1", ready, stop)) for _ in range(level)
            ]
            for _ in range(level):
                await ready.acquire()
            figures[level].append(await _tabs(layer, pusher))
            stop.set()
            await asyncio.gather(*waiters)
            wall, cpu = figures[level][-1]
            print(f"  {level:,} waiting: tab {wall:.2f} ms, CPU {cpu:.2f} ms", flush=True)
    none_wall, none_cpu = (statistics.median(f[i] for f in figures[0]) for i in (0, 1))
    top_wall, top_cpu = (statistics.median(f[i] for f in figures[waiting]) for i in (0, 1))
    print(f"tab on the layer with {waiting:,} waiting against none (medians of {rounds} rounds):")
    print(f"  wall {top_wall:.2f} / {none_wall:.2f} ms = {top_wall / none_wall:.2f}")
    print(f"  CPU  {top_cpu:.2f} / {none_cpu:.2f} ms = {top_cpu / none_cpu:.2f}")
    for each in (layer, pusher):
        await each.flush()


if __name__ == "__main__":
    parser = argparse.ArgumentParser(prog="python -m bench.layer_subscriptions")
    parser.add_argument("--waiting", type=int, default=1000)
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args()
    asyncio.run(measure(args.waiting, args.rounds))
