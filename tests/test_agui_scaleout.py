"""An AG-UI agent on the scale-out stack (PostgreSQL, Redis, a `worker`): a worker
killed mid-run is replaced, the run is sent again under the same run id (at-least-once, so the
agent can recognise it), and the answer reaches the agent exactly once."""

import json

import psycopg
import pytest

from tests.support.agui_support import BROKEN_SERVER, AguiServer, agents_file
from tests.support.live_server import LiveServer, wait_for
from tests.test_scaleout import (
    Person,
    PostgresDatabase,
    Worker,
    clear_redis_prefix,
    prepare,
    require_services,
    scaleout_env,
    settle_url,
    wait_for_turn_done,
)

pytestmark = pytest.mark.timeout(300)


@pytest.fixture
def agent(tmp_path):
    started = AguiServer(BROKEN_SERVER, tmp_path / "runs.log")
    yield started
    started.stop()


@pytest.fixture
def scenario() -> str:
    return "hang-once"


@pytest.fixture
def extra_env() -> dict:
    return {}


@pytest.fixture
def stack(tmp_path, agent, scenario, extra_env):
    require_services()
    database = PostgresDatabase()
    path = agents_file(tmp_path, agent.url(scenario))
    env = scaleout_env(database, tmp_path, AGUI_AGENTS_FILE=str(path), **extra_env)
    (tmp_path / "web").mkdir()
    server = LiveServer(tmp_path / "web", env)
    workers: list[Worker] = []
    try:
        prepare(server)
        server.start()
        workers.append(Worker(server.env, tmp_path / "worker-1.log"))
        yield server, workers, database, tmp_path
    finally:
        for process in [server, *workers]:
            process.stop()
        database.drop()
        clear_redis_prefix(env["REDIS_PREFIX"])


def test_a_run_cut_by_a_killed_worker_is_sent_again_and_answered_once(stack, agent):
    server, workers, database, workdir = stack
    person = Person(server)
    conversation = person.start_conversation(server, "agui-test")
    with person.open_tab(server, conversation) as tab:
        person.post(server, f"/c/{conversation}/send", {"text": "paint it"})
        wait_for(lambda: agent.runs("hang-once"), message="the run was not sent")
        workers[0].kill()  # mid-POST: the agent has the run, the playground has no result
        workers.append(Worker(server.env, workdir / "worker-2.log"))
        question = tab.wait_for("Which colour?", timeout=60)
        answer = {"action": "accept", "answer.colour": "green"}
        assert person.post(server, settle_url(question), answer).status_code == 200
        tab.wait_for("Thanks.")

    wait_for_turn_done(database, conversation)
    runs = [run["runId"] for run in agent.runs("hang-once")]
    assert runs[0] == runs[1] and runs[0].endswith("-0")  # sent again under the same id
    assert runs[2:] == [runs[0].removesuffix("0") + "1"]
    results = [m for m in agent.runs("hang-once")[2]["messages"] if m["role"] == "tool"]
    assert [json.loads(m["content"]) for m in results] == [
        {"action": "accept", "content": {"colour": "green"}}
    ]


# A wire write waits for the lock as long as the test holds it (not the default 8 s).
@pytest.mark.parametrize(
    ("scenario", "extra_env"), [("state", {"DATABASE_STATEMENT_TIMEOUT": "300"})]
)
def test_a_run_is_not_held_up_by_its_wire_log(stack):
    server, _, database, _ = stack
    person = Person(server)
    conversation = person.start_conversation(server, "agui-test")
    with psycopg.connect(database.url) as holding:
        # Every write to the Wire panel's table waits while this lock is held.
        holding.execute("LOCK TABLE playground_wiremessage IN ACCESS EXCLUSIVE MODE")
        with person.open_tab(server, conversation) as tab:
            person.post(server, f"/c/{conversation}/send", {"text": "count"})
            tab.wait_for("Count is 1.", timeout=60)
        wait_for_turn_done(database, conversation)
        waiting = holding.execute(
            "SELECT count(*) FROM pg_locks WHERE relation = 'playground_wiremessage'::regclass "
            "AND NOT granted"
        ).fetchone()[0]
        assert waiting >= 1  # the wire's write was still waiting when the run had finished
