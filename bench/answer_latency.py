"""answer_latency: from Submit clicked in a browser to the run holding the answer.

Chromium (Playwright) shows a conversation of the bench agent with its questions waiting. A
click on a form's Submit is stamped in the page (a listener that sees the click before htmx
does), and the run stamps when `ctx.elicit` returns (the bench agent's reply says when).
Between the two: the POST, validation, the settlement, queueing, waking a runner, loading and
replaying the turn up to the answer.

The floor, in the same run and the same browser: a bare page of the same questions as forms
of the same fields, posted by htmx as the chat's are, to the answer floor
(bench/answer_floor.py: validated, settled and its turn moved in one transaction, the chip
pushed to the conversation's open tab, a waiter reading it back), timed from the click to the
waiter having it.

Two ways, each a fixed number of answers per round (200; --quick 50) for ours and for the
floor: one conversation at a time (a person answering question after question) and 50 people
at once, each in a conversation and a browser of their own (one person's 50 tabs would each
redraw the inbox count at every answer). Three rounds, alternating which of the two goes
first; each figure is the median of the rounds'. Target: median <= 1.3x and p99 <= 2x the
floor, both ways.
"""

import asyncio
import contextlib
import re
import statistics

from playwright.async_api import BrowserContext, async_playwright

from bench.client import Person, floor_waiters, read_back, summary, wait_for_pending
from bench.runner import bench_main
from tests.browser import chromium

AT_ONCE = 50
PER_CONVERSATION = 25  # questions a conversation asks, one conversation at a time
ROUNDS = 3
QUESTION_LABEL = re.compile(r"Question (\S+):")
IN_HAND = re.compile(r"Reply (\S+): staging\. Answer in hand at ([\d.]+)\.")
# The page's clock, on the wall clock's scale (the servers stamp with time.time()).
STAMP_CLICKS = """() => document.addEventListener('click', (event) => {
  if (event.target.closest('button[value=accept]')) {
    window.benchClicked = (performance.timeOrigin + performance.now()) / 1000;
  }
}, true)"""


async def measure(stack, answers: int, ways=("one", "many")) -> dict:
    async with (
        async_playwright() as playwright,
        floor_waiters(stack) as woken,
        contextlib.AsyncExitStack() as people,
    ):
        browser = await playwright.chromium.launch(
            executable_path=chromium.executable(), args=chromium.FLAGS
        )
        # 50 people, each with a browser of their own (one conversation at a time: the first).
        signed_in = [Person.of_their_own(stack, f"answerer-{n}") for n in range(AT_ONCE)]
        series = Series(stack, woken)
        for person in await asyncio.gather(*map(people.enter_async_context, signed_in)):
            series.people.append((person, await _browser_of(browser, person)))
        await series.run("one", conversations=1, each=3)  # warm-up, not counted
        figures: dict = {}
        at_once = {"one": answers // PER_CONVERSATION, "many": AT_ONCE}
        for way, conversations in ((way, at_once[way]) for way in ways):
            rounds = [
                await series.run(way, conversations, answers // conversations, floor_first=n % 2)
                for n in range(ROUNDS)
            ]
            figures |= _medians(way, rounds)
            print(f"  {way}: {figures[f'{way}_rounds']} ms (ours vs floor, by round)", flush=True)
        await browser.close()
    met = all(
        figures[f"{way}_ratio_median"] <= 1.3 and figures[f"{way}_ratio_p99"] <= 2 for way in ways
    )
    return {
        "answers_per_round": answers,
        **figures,
        "target": "median <= 1.3x and p99 <= 2x the floor, one conversation and 50 at once",
        "met": met,
    }


class Series:
    """Ask, then answer in the browser, ours and the floor's; return both latencies (s)."""

    def __init__(self, stack, woken):
        self.stack, self.woken = stack, woken
        self.people: list[tuple[Person, BrowserContext]] = []

    async def run(self, way: str, conversations: int, each: int, floor_first: int = 0) -> dict:
        # One person answering conversation after conversation, or one person each, at once.
        people = self.people[:1] * conversations if way == "one" else self.people[:conversations]
        ours = [await person.start_conversation() for person, _ in people]
        floor = [await person.start_conversation() for person, _ in people]
        asking = zip(people, ours, floor, strict=True)
        await asyncio.gather(*(p.ask([o, f], each, wait=False) for (p, _), o, f in asking))
        await asyncio.to_thread(wait_for_pending, ours + floor, 2 * conversations * each)
        at_once = 1 if way == "one" else conversations
        latencies = {}
        for name in ("floor", "ours") if floor_first else ("ours", "floor"):
            chosen = floor if name == "floor" else ours
            clicked: dict[str, float] = {}
            async with contextlib.AsyncExitStack() as tabs:
                if name == "floor":  # the chip's push reaches an open tab, as ours does
                    opening = zip(people, chosen, strict=True)
                    await asyncio.gather(
                        *(tabs.enter_async_context(p.tab(c)) for (p, _), c in opening)
                    )
                for start in range(0, conversations, at_once):
                    batch = slice(start, start + at_once)
                    clicked |= await self._answer(people[batch], chosen[batch], each, name)
            in_hand = await (self._floor_times(chosen) if name == "floor" else _in_hand(chosen))
            latencies[name] = [in_hand[label] - clicked[label] for label in clicked]
        return latencies

    async def _answer(self, people, conversations: list[int], each: int, name: str) -> dict:
        """Open a page per conversation, all before any click; then answer every question."""
        # One after the other: fifty pages loading at once would swamp two cores.
        opening = zip(people, conversations, strict=True)
        pages = [await self._open(context, c, name) for (_, context), c in opening]
        answering = zip(pages, conversations, strict=True)
        clicked = await asyncio.gather(*(_answer_page(p, c, each, name) for p, c in answering))
        await asyncio.gather(*(page.close() for page in pages))
        return {label: stamp for one in clicked for label, stamp in one.items()}

    async def _open(self, context: BrowserContext, conversation: int, name: str):
        page = await context.new_page()
        page.set_default_timeout(60_000)
        if name == "floor":
            await page.goto(f"{self.stack.url}/bench/answer-floor/page/{conversation}")
        else:
            await page.goto(f"{self.stack.url}/c/{conversation}/")
            # The consumer's resync on connect has been applied: pushes reach this page.
            await page.wait_for_selector("body[data-socket=live]", state="attached")
        await page.evaluate(STAMP_CLICKS)
        return page

    async def _floor_times(self, conversations: list[int]) -> dict[str, float]:
        """Return when the floor's waiters had each answer, by question label (in scale-out,
        one may still be reading its answer back as the page sees its chip)."""
        from elicitation.models import Part

        parts = Part.objects.filter(conversation__in=conversations).values_list("pk", "payload")
        labels = {
            pk: QUESTION_LABEL.search(payload["message"]).group(1) async for pk, payload in parts
        }
        woken = await read_back(self.people[0][0], self.woken, list(labels))
        return {label: woken[pk] for pk, label in labels.items()}


async def _browser_of(browser, person: Person) -> BrowserContext:
    """Return a browser context signed in as `person` (their session cookie)."""
    context = await browser.new_context()
    cookies = [
        {"name": name, "value": value, "url": person.stack.url}
        for name, value in person.client.cookies.items()
    ]
    await context.add_cookies(cookies)
    return context


async def _answer_page(page, conversation: int, each: int, name: str) -> dict[str, float]:
    """Answer a page's questions in order, each once the last one's answer is in hand (ours:
    its reply shows; the floor: its form is gone); return when each Submit was clicked."""
    clicked = {}
    for number in range(each):
        label = f"{conversation}-{number}"
        if name == "floor":
            form = page.locator("form", has_text=f"Question {label}:")
        else:
            article = page.locator("article.part--pending", has_text=f"Question {label}:")
            form = article.locator("form[data-part-form]")
        await form.locator("input[value=staging]").check()
        await form.locator("button[value=accept]").click()
        if name == "floor":
            await form.wait_for(state="detached")
        else:
            await page.get_by_text(f"Reply {label}: staging.").wait_for()
        clicked[label] = await page.evaluate("() => window.benchClicked")
    return clicked


async def _in_hand(conversations: list[int]) -> dict[str, float]:
    from playground.runs.models import Message

    replies = Message.objects.filter(turn__conversation__in=conversations, text__contains="in hand")
    found = [IN_HAND.search(text) async for text in replies.values_list("text", flat=True)]
    return {match.group(1): float(match.group(2)) for match in found}


def _medians(way: str, rounds: list[dict]) -> dict:
    """The medians of the rounds' medians and p99s (ms), and their ratios to the floor's."""
    per_round = [
        {name: summary([s * 1000 for s in values]) for name, values in one.items()}
        for one in rounds
    ]

    def median_of(name: str, key: str) -> float:
        return statistics.median(r[name][key] for r in per_round)

    figures = {
        f"{way}_median_ms": median_of("ours", "median"),
        f"{way}_p99_ms": median_of("ours", "p99"),
        f"{way}_floor_median_ms": median_of("floor", "median"),
        f"{way}_floor_p99_ms": median_of("floor", "p99"),
        f"{way}_rounds": " / ".join(
            f"{r['ours']['median']:.1f} vs {r['floor']['median']:.1f}" for r in per_round
        ),
    }
    figures[f"{way}_ratio_median"] = figures[f"{way}_median_ms"] / figures[f"{way}_floor_median_ms"]
    figures[f"{way}_ratio_p99"] = figures[f"{way}_p99_ms"] / figures[f"{way}_floor_p99_ms"]
    return figures


def run(stack, quick: bool, **options) -> dict:
    return asyncio.run(measure(stack, answers=50 if quick else 200))


if __name__ == "__main__":
    bench_main("answer_latency", run)
