"""A person using the playground over HTTP and websockets, as the page does (asyncio)."""

import asyncio
import re
import statistics
import time
from contextlib import asynccontextmanager

import httpx
from websockets.asyncio.client import connect

from bench.stack import PASSWORD, USERNAME, Stack, wait_until

WAIT_SECONDS = 60  # a push that takes longer than this is a failure, not a figure
PENDING_PART = re.compile(r'<article id="part-(\d+)"[^>]*data-state="pending"')
FLOOR_ANSWER = {"answer.environment": "staging", "answer.version": "v1"}


class Person:
    def __init__(self, stack: Stack, client: httpx.AsyncClient):
        self.stack = stack
        self.client = client

    @classmethod
    @asynccontextmanager
    async def logged_in(cls, stack: Stack):
        limits = httpx.Limits(max_connections=100, max_keepalive_connections=100)
        async with httpx.AsyncClient(base_url=stack.url, limits=limits, timeout=60) as client:
            page = await client.get("/accounts/login/")
            token = re.search(r'name="csrfmiddlewaretoken" value="([^"]+)"', page.text).group(1)
            login = {"username": USERNAME, "password": PASSWORD, "csrfmiddlewaretoken": token}
            assert (await client.post("/accounts/login/", data=login)).status_code == 302
            yield cls(stack, client)

    @classmethod
    @asynccontextmanager
    async def of_their_own(cls, stack: Stack, username: str):
        """Another person, made here and signed in without a password (no hashing to wait
        for): a conversation of theirs is nobody else's, and so are its inbox pushes."""
        cookies = await asyncio.to_thread(_signed_in, username)
        async with httpx.AsyncClient(base_url=stack.url, cookies=cookies, timeout=60) as client:
            await client.get("/")  # sets the CSRF cookie
            yield cls(stack, client)

    async def post(self, path: str, data: dict | None = None) -> httpx.Response:
        headers = {"X-CSRFToken": self.client.cookies["csrftoken"], "HX-Request": "true"}
        response = await self.client.post(path, data=data, headers=headers)
        assert response.status_code < 400, f"POST {path}: {response.status_code}"
        return response

    async def start_conversation(self, slug: str = "bench-ask") -> int:
        headers = {"X-CSRFToken": self.client.cookies["csrftoken"]}
        response = await self.client.post(f"/agents/{slug}/new", headers=headers)
        return int(re.search(r"/c/(\d+)/", response.headers["location"]).group(1))

    async def ask(self, conversations: list[int], each: int, *, wait: bool = True) -> None:
        """Send `each` messages to every conversation of the bench agent, which asks one
        question per message ("Question {conversation}-{n}: ..."); return once all wait."""
        for number in range(each):
            await asyncio.gather(
                *(self.post(f"/c/{c}/send", {"text": f"{c}-{number}"}) for c in conversations)
            )
        if wait:
            await asyncio.to_thread(wait_for_pending, conversations, len(conversations) * each)

    @asynccontextmanager
    async def tab(self, conversation_id: int):
        cookie = "; ".join(f"{name}={value}" for name, value in self.client.cookies.items())
        url = self.stack.url.replace("http", "ws") + f"/ws/c/{conversation_id}/"
        async with connect(
            url, origin=self.stack.url, additional_headers={"Cookie": cookie}, max_size=None
        ) as socket:
            tab = Tab(socket)
            reader = asyncio.create_task(tab.read())
            try:
                yield tab
            finally:
                reader.cancel()


class Tab:
    """An open conversation's websocket; `wait_for` returns a fragment and when it arrived."""

    def __init__(self, socket):
        self.socket = socket
        self.received: list[tuple[float, str]] = []
        self.changed = asyncio.Condition()

    async def read(self) -> None:
        async for message in self.socket:
            async with self.changed:
                self.received.append((time.time(), message))
                self.changed.notify_all()

    async def wait_for(self, pattern: re.Pattern | str) -> tuple[float, str]:
        """Return (arrival time, fragment) of the first fragment not yet taken that matches,
        and take it."""
        pattern = re.compile(pattern) if isinstance(pattern, str) else pattern

        def first_match():
            for index, (arrived, message) in enumerate(self.received):
                if pattern.search(message):
                    del self.received[index]
                    return arrived, message
            return None

        async with asyncio.timeout(WAIT_SECONDS), self.changed:
            return await self.changed.wait_for(first_match)


def _signed_in(username: str) -> dict[str, str]:
    from django.contrib.auth.models import User
    from django.test import Client

    client = Client()
    client.force_login(User.objects.create_user(username))
    return {name: morsel.value for name, morsel in client.cookies.items()}


def wait_for_pending(conversations: list[int], count: int) -> None:
    from elicitation.models import Part

    waiting = Part.objects.filter(state=Part.State.PENDING, conversation__in=conversations)
    wait_until(lambda: waiting.count() >= count, 600, f"{count} questions were not all asked")


async def open_echo(person: Person):
    """Open `/ws/bench/echo/`: the bare `group_send` baseline that pushes are read against."""
    url = person.stack.url.replace("http", "ws") + "/ws/bench/echo/"
    return await connect(url, origin=person.stack.url, max_size=None)


async def echo_seconds(socket, size: int) -> float:
    """Return how long a bare `group_send` of `size` bytes took from send to arrival."""
    await socket.send(str(size))
    message = await socket.recv()
    return time.time() - float(message.split(" ", 1)[0])


def percentile(values: list[float], share: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(share * (len(ordered) - 1)))]


def summary(values: list[float]) -> dict:
    return {"median": statistics.median(values), "p99": percentile(values, 0.99)}


@asynccontextmanager
async def floor_waiters(stack: Stack):
    """Yield a coroutine function returning {part id: when its waiter had it}, of the answer
    floor's waiters (bench/answer_floor.py) wherever the stack has them: embedded, the web
    process's; in scale-out, this process's, LISTENing for the floor's NOTIFYs."""
    if stack.kind == "embedded":

        async def there(person: Person) -> dict[int, float]:
            times = (await person.client.get("/bench/answer-floor/times")).json()
            return {int(pk): stamp for pk, stamp in times.items()}

        yield there
        return
    import psycopg

    from bench.answer_floor import CHANNEL, read_back, wait
    from playground.jobs import listen

    params = listen.connection_params()
    async with await psycopg.AsyncConnection.connect(autocommit=True, **params) as listener:
        await listener.execute(f"LISTEN {CHANNEL}")
        waiting: set[asyncio.Task] = set()

        async def woken() -> None:
            async for note in listener.notifies():
                turn_id, part_id = map(int, note.payload.split())
                waiting.add(task := asyncio.create_task(wait(turn_id, part_id)))
                task.add_done_callback(waiting.discard)

        async def here(person: Person) -> dict[int, float]:
            return {pk: stamp for pk, (stamp, _) in read_back.items()}

        waking = asyncio.create_task(woken())
        try:
            yield here
        finally:
            waking.cancel()
            await asyncio.gather(waking, *waiting, return_exceptions=True)


async def answer_floor_seconds(person: Person, woken, count: int) -> list[float]:
    """Return the answer floor's latencies, one answer at a time, each from its POST to its
    waiter having it (`woken`: of `floor_waiters`): a bench conversation's `count` questions,
    each answered once the last one's chip showed and its waiter had it."""
    conversation = await person.start_conversation()
    await person.ask([conversation], count)
    sent: dict[int, float] = {}
    async with person.tab(conversation) as tab:
        _, resync = await tab.wait_for(".")
        for part_id in map(int, PENDING_PART.findall(resync)):
            sent[part_id] = time.time()
            await person.post(f"/bench/answer-floor/{part_id}", FLOOR_ANSWER)
            await tab.wait_for(rf'<article id="part-{part_id}"[^>]*data-state="submitted"')
            await read_back(person, woken, [part_id])
    read = await read_back(person, woken, list(sent))
    return [read[pk] - stamp for pk, stamp in sent.items()]


async def read_back(person: Person, woken, part_ids: list[int]) -> dict[int, float]:
    """Wait until the floor's waiters have read every one of `part_ids` back; return when each
    had it."""
    for _ in range(WAIT_SECONDS * 100):
        read = await woken(person)
        if all(pk in read for pk in part_ids):
            return read
        await asyncio.sleep(0.01)
    raise AssertionError(f"the answer floor's waiters did not read {part_ids} back")
