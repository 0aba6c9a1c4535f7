"""A LangGraph graph that asks through `interrupt()`, served with `ag-ui-langgraph`'s own agent.

Run as `python agui_langgraph_server.py PORT LOG`: every request body is appended to LOG. The
graph's one node interrupts with a question and a response schema; resumed (the run's
`resume` entry), it replies through a scripted chat model, so the reply streams as AG-UI text.
The endpoint is the adapter's own (`add_langgraph_fastapi_endpoint`).
"""

import json
import sys

import uvicorn
from ag_ui_langgraph import LangGraphAgent, add_langgraph_fastapi_endpoint
from fastapi import FastAPI, Request
from langchain_core.language_models.fake_chat_models import GenericFakeChatModel
from langchain_core.messages import AIMessage
from langgraph.checkpoint.memory import InMemorySaver
from langgraph.graph import START, MessagesState, StateGraph
from langgraph.types import interrupt

COLOUR = {
    "type": "object",
    "properties": {"colour": {"type": "string", "enum": ["red", "green"]}},
    "required": ["colour"],
}


def paint(state: MessagesState) -> dict:
    answer = interrupt({"message": "Which colour for the walls?", "responseSchema": COLOUR})
    model = GenericFakeChatModel(messages=iter([AIMessage(f"Painted them {answer['colour']}.")]))
    return {"messages": [model.invoke(state["messages"])]}


def build(log: str) -> FastAPI:
    graph = StateGraph(MessagesState)
    graph.add_node("paint", paint)
    graph.add_edge(START, "paint")
    agent = LangGraphAgent(
        name="painter",
        graph=graph.compile(checkpointer=InMemorySaver()),
        emit_interrupt_outcome=True,  # AG-UI 1.0: RUN_FINISHED with the interrupts
    )
    app = FastAPI()

    @app.middleware("http")
    async def log_runs(request: Request, call_next):
        if request.method == "POST":
            body = await request.body()
            write_log(log, json.loads(body))
        return await call_next(request)

    add_langgraph_fastapi_endpoint(app, agent, "/paint")
    return app


def write_log(log: str, body: dict) -> None:
    with open(log, "a") as file:
        file.write(json.dumps({"path": "paint", "body": body}) + "\n")


if __name__ == "__main__":
    port, log = int(sys.argv[1]), sys.argv[2]
    uvicorn.run(build(log), host="127.0.0.1", port=port, log_level="warning")
