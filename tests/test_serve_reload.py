"""`make dev` (`manage.py serve --reload`): saving an agent module restarts the server with the
new code, the home page names the agent as the code now does, and a question asked before the
save is still answered, by the new code."""

import contextlib

import psutil

from tests.support.live_server import LiveClient, LiveServer, wait_for

AGENT = """
from playground.runs.agents import agent

CITY = {"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]}


@agent("dev-ask", name="Asks VERSION")
async def dev_ask(ctx, message):
    answer = await ctx.elicit("Which city?", CITY)
    await ctx.say(f"VERSION: {answer.content['city']}")
"""


def home(client: LiveClient) -> str:
    """The home page, or nothing while the server restarts."""
    try:
        return client.get("/")[1]
    except OSError:
        return ""


def test_a_saved_agent_module_is_served_anew_and_its_waiting_question_stays(tmp_path):
    modules = tmp_path / "modules"
    modules.mkdir()
    source = modules / "dev_agents.py"
    source.write_text(AGENT.replace("VERSION", "v1"))
    env = {"PYTHONPATH": str(modules), "AGENT_MODULES": "dev_agents"}
    server = LiveServer(tmp_path, env, serve_args=("--reload",))
    server.prepare({"alice": "alice-password-1"})
    server.start()
    try:
        alice = LiveClient(server, "alice", "alice-password-1")
        assert "Asks v1" in alice.get("/")[1]
        alice.post("/agents/dev-ask/new", {"text": "hello"})
        wait_for(lambda: server.query("SELECT id FROM elicitation_part WHERE state='pending'"))
        ((part,),) = server.query("SELECT id FROM elicitation_part WHERE state='pending'")

        source.write_text(AGENT.replace("VERSION", "v2"))
        wait_for(lambda: "Asks v2" in home(alice), timeout=60, message="no reload")
        alice.post(f"/parts/{part}/settle", {"action": "accept", "answer.city": "Oslo"})
        said = "SELECT text FROM playground_message WHERE role='agent'"
        wait_for(lambda: server.query(said) == [("v2: Oslo",)], timeout=60, message=server.log())
    finally:
        children = psutil.Process(server.process.pid).children(recursive=True)
        server.stop()
        for child in children:  # the reloader's server, if it outlived its parent
            with contextlib.suppress(psutil.NoSuchProcess):
                child.kill()
