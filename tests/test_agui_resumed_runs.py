"""A run that resumes an interrupt may end the call the interrupt suspended: read from a run
Mastra's AG-UI adapter recorded (its resumed tool's TOOL_CALL_RESULT opens the stream), the
result is that tool step's end; a call an interrupt is about waits on it, not on us."""

import json

import pytest

from playground.agui.protocol import BadStream, RunReader

RESUMED_RUN = [  # @ag-ui/mastra 1.1.2 and @mastra/core 1.71.0, resuming book_hotel
    {"type": "RUN_STARTED", "threadId": "1", "runId": "7-1"},
    {
        "type": "TOOL_CALL_RESULT",
        "toolCallId": "call_1_0",
        "content": '{"booked":"3 nights in Porto"}',
        "messageId": "bae0a02b-49d1-458e-9e89-058667e0d9f1",
        "role": "tool",
    },
    {"type": "TEXT_MESSAGE_CHUNK", "role": "assistant", "messageId": "a5e4", "delta": "Booked"},
    {"type": "TEXT_MESSAGE_CHUNK", "role": "assistant", "messageId": "a5e4", "delta": " it."},
    {"type": "RUN_FINISHED", "threadId": "1", "runId": "7-1", "usage": [{"inputTokens": 24}]},
]
BOOK_HOTEL = {"name": "book_hotel", "arguments": '{"trip": "a weekend away"}'}


def read(events: list[dict], **options) -> dict:
    reader = RunReader(state={}, max_events=100, **options)
    for event in events:
        reader.feed(json.dumps(event))
    return reader.outcome()


def test_the_result_of_the_suspended_call_ends_its_step():
    run = read(RESUMED_RUN, resumed={"call_1_0": BOOK_HOTEL})
    assert (run["error"], run["text"], run["calls"]) == ("", "Booked it.", [])
    [step] = run["steps"]
    assert (step["name"], step["arguments"], step["outcome"]) == (
        "tool book_hotel",
        {"trip": "a weekend away"},
        '{"booked":"3 nights in Porto"}',
    )
    assert step["started"] is None and step["finished"] is not None  # started in the run before
    [result, _] = run["messages"]
    assert (result["role"], result["toolCallId"]) == ("tool", "call_1_0")


def test_the_result_of_a_call_no_interrupt_suspended_is_refused():
    with pytest.raises(BadStream, match="TOOL_CALL_RESULT for 'call_1_0', a call this run did"):
        read(RESUMED_RUN, resumed={"call_9_9": BOOK_HOTEL})


def test_a_call_an_interrupt_is_about_waits_on_it():
    interrupt = {"id": "i1", "reason": "tool_call", "toolCallId": "c1"}
    run = read(
        [
            {"type": "RUN_STARTED", "threadId": "1", "runId": "7-0"},
            {"type": "TOOL_CALL_START", "toolCallId": "c1", "toolCallName": "drop_table"},
            {"type": "TOOL_CALL_END", "toolCallId": "c1"},
            {
                "type": "RUN_FINISHED",
                "threadId": "1",
                "runId": "7-0",
                "outcome": {"type": "interrupt", "interrupts": [interrupt]},
            },
        ]
    )
    assert (run["error"], run["calls"]) == ("", [])
    assert [i["toolCallId"] for i in run["interrupts"]] == ["c1"]
