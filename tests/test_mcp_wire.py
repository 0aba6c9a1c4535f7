"""Our MCP wire mapping is what the official SDK's own types accept (spec 2025-11-25)."""

import mcp_types
import pytest

from elicitation.contract import accept, cancel, decline, parse_request, respond
from elicitation.mcp_wire import degraded_error, elicit_result, elicitation_create
from tests.support.golden import reference_examples


@pytest.mark.parametrize("example", reference_examples().values(), ids=lambda e: e["name"])
def test_the_request_is_an_sdk_elicit_request(example):
    wire = elicitation_create(example["message"], example["requestedSchema"], request_id=7)

    envelope = mcp_types.JSONRPCRequest.model_validate(wire)
    request = mcp_types.ElicitRequest.model_validate(
        {"method": envelope.method, "params": envelope.params}
    )
    assert envelope.id == 7
    assert isinstance(request.params, mcp_types.ElicitRequestFormParams)
    assert request.params.message == example["message"]
    assert request.params.requested_schema == example["requestedSchema"]


def test_the_request_round_trips_through_our_contract():
    schema = {"type": "object", "properties": {"name": {"type": "string"}}, "required": ["name"]}
    params = elicitation_create("Your name?", schema)["params"]

    assert parse_request(params).fields[0].name == "name"


def test_an_accept_keeps_its_content_and_drops_our_own_notes():
    envelope = accept({"name": "Ada", "age": 36, "tags": ["a"]}, "Thanks", redacted=["name"])

    result = elicit_result(envelope)

    assert result == {"action": "accept", "content": {"name": "Ada", "age": 36, "tags": ["a"]}}
    parsed = mcp_types.ElicitResult.model_validate(result)
    assert parsed.content == {"name": "Ada", "age": 36, "tags": ["a"]}


@pytest.mark.parametrize(
    ("envelope", "action"),
    [(decline("Not now"), "decline"), (cancel(), "cancel"), ({"action": "accept"}, "accept")],
)
def test_decline_cancel_and_a_url_accept_carry_no_content(envelope, action):
    result = elicit_result(envelope)

    assert result == {"action": action}
    assert mcp_types.ElicitResult.model_validate(result).content is None


def test_a_prose_reply_has_no_mcp_form():
    with pytest.raises(ValueError, match="respond"):
        elicit_result(respond("I'd rather say it in words"))


def test_a_degraded_payload_answers_invalid_params_with_the_reason():
    error = degraded_error('property "api_key" asks for a secret', request_id="r-1")

    parsed = mcp_types.JSONRPCError.model_validate(error)
    assert parsed.id == "r-1"
    assert parsed.error.code == mcp_types.INVALID_PARAMS == -32602
    assert parsed.error.message == (
        'elicitation: unsupported payload \N{EM DASH} property "api_key" asks for a secret'
    )
