import io

import pytest
from asgiref import sync
from django.contrib.auth.models import User

from playground.mcp_bridge.connection import forget_learned_protocols
from playground.runs.models import Agent, Conversation
from tests.support import runtime_agents  # noqa: F401  (registers the test agents)
from tests.support.connections_support import demo  # noqa: F401  (the vault with a `demo` service)

# Handed out first (`make test` gives each xdist worker whole files, in collection order): a
# run that ends on one of these keeps one worker busy for minutes while the others sit idle.
SLOWEST_FIRST = {
    "tests/test_mcp_server.py",
    "tests/test_schedule_workers.py",
    "tests/test_crash_windows.py",
    "tests/test_mcp_live.py",
    "tests/test_answer_files_s3.py",
    "tests/test_waiting_blocks_nothing.py",
    "tests/test_repository_stands_alone.py",
    "tests/test_agui_scaleout.py",
    "tests/test_connections_oauth.py",
    "tests/test_scaleout_silent_database.py",
    "tests/test_agui_mastra.py",
    "tests/test_mcp_revoked.py",
    "tests/test_scaleout.py",
    "tests/test_scaleout_faults.py",
}


def pytest_collection_modifyitems(config, items):
    items.sort(key=lambda item: item.nodeid.split("::")[0] not in SLOWEST_FIRST)  # stable


@pytest.fixture(autouse=True)
def fast_password_hashing(settings) -> None:
    """Real hashing costs ~0.4 s per user; tests only need logins to work."""
    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]


@pytest.fixture(autouse=True)
def configured_mcp_protocols() -> None:
    """Each test starts from the servers file's protocols, not what an earlier test learned."""
    forget_learned_protocols()


@pytest.fixture
def hops(monkeypatch) -> list[str]:
    """Record every hop from the event loop to a thread (asgiref's sync_to_async calls)."""
    made: list[str] = []
    call = sync.SyncToAsync.__call__

    def counted(self, *args, **kwargs):
        made.append(getattr(self.func, "__qualname__", None) or type(self.func).__name__)
        return call(self, *args, **kwargs)

    monkeypatch.setattr(sync.SyncToAsync, "__call__", counted)
    return made


@pytest.fixture
def alice(db) -> User:
    return User.objects.create_user("alice", password="alice-password-1")


@pytest.fixture
def bob(db) -> User:
    return User.objects.create_user("bob", password="bob-password-1")


@pytest.fixture
def seeded(db) -> None:
    """The built-in agents' rows, as `make run` creates them."""
    from django.core.management import call_command

    call_command("seed", stdout=io.StringIO())


def make_conversation(owner: User, slug: str) -> Conversation:
    return Conversation.objects.create(owner=owner, agent=Agent.objects.get(slug=slug))


def make_question(turn, payload: dict, *, call_index: int = 0, actions=("accept", "cancel")):
    """Store a pending question as a run would: the payload and its normalized request."""
    from elicitation.contract import parse_request
    from elicitation.models import Part

    return Part.objects.create(
        conversation=turn.conversation,
        turn=turn,
        call_index=call_index,
        tool_call_id=f"call_{call_index}",
        render_kind="elicitation",
        payload=payload,
        normalized=parse_request(payload).to_dict(),
        allowed_actions=list(actions),
    )
