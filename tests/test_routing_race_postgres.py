"""Two assignees answer the same routed question at the same moment, on PostgreSQL (where two
requests really run at once): one answer wins, the other is told it came second."""

import threading

import httpx
import pytest

from tests.support.api_support import ASK
from tests.support.live_server import LiveClient, LiveServer
from tests.test_api_long_poll import make_key
from tests.test_scaleout import PostgresDatabase, require_services, scaleout_env

QUESTIONS = 5
CHOICE = {"bob": "staging", "dana": "production"}  # who won shows in the envelope
USERS = {"alice": "alice-password-1", "bob": "bob-password-1", "dana": "dana-password-1"}
GROUP = """
from django.contrib.auth.models import Group, User
Group.objects.create(name="release-managers").user_set.add(*User.objects.all())
"""


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    require_services()
    workdir = tmp_path_factory.mktemp("routing-race")
    database = PostgresDatabase()
    server = LiveServer(workdir, env=scaleout_env(database, workdir))
    try:
        server.prepare(USERS)
        server.manage("shell", "-c", GROUP)
        server.start()
        yield server
    finally:
        server.stop()
        database.drop()


def answer_at_once(people: dict[str, LiveClient], part_id: int) -> dict[str, int]:
    """Post each person's answer to the question at the same moment; return their statuses."""
    barrier, statuses = threading.Barrier(len(people)), {}

    def answer(name: str) -> None:
        barrier.wait()
        form = {"action": "accept", "answer.env": CHOICE[name]}
        statuses[name] = people[name].post(f"/parts/{part_id}/settle", form)[0]

    threads = [threading.Thread(target=answer, args=(name,)) for name in people]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    return statuses


def test_two_assignees_at_once_make_one_winner_each_time(server):
    headers = {"Authorization": f"Bearer {make_key(server)}"}
    with httpx.Client(base_url=server.url + "/api/v1", headers=headers, timeout=30) as api:
        opened = api.post("/conversations", json={"agentName": "Deploy bot"}).json()
        asks = f"/conversations/{opened['id']}/requests"
        routed = {**ASK, "assignees": ["group:release-managers"]}
        ids = [api.post(asks, json=routed).json()["id"] for _ in range(QUESTIONS)]
        people = {name: LiveClient(server, name, USERS[name]) for name in ("bob", "dana")}
        for part_id in ids:
            statuses = answer_at_once(people, part_id)
            assert sorted(statuses.values()) == [200, 409], statuses
            winner = next(name for name, status in statuses.items() if status == 200)
            envelope = api.get(f"/requests/{part_id}").json()["envelope"]
            assert envelope == {"action": "accept", "content": {"env": CHOICE[winner]}}
