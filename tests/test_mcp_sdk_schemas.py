"""Schemas an MCP server built with the official SDK sends are honoured end to end.

The server side is the SDK's own: a pydantic model rendered by `render_elicitation_schema`
(what `ctx.elicit(schema=Model)` sends) and validated again by the same model on return.
Our side is the whole form path: the rendered form, the person's raw form values, the
envelope, and the MCP `ElicitResult` built from it.
"""

from typing import Literal

import mcp_types
import pytest
from mcp.server.elicitation import render_elicitation_schema
from pydantic import BaseModel, Field, ValidationError

from elicitation.contract import ElicitationRequest, parse_request
from elicitation.kinds.base import Answer, Refusal, read_form_answer
from elicitation.mcp_wire import elicit_result
from elicitation.rendering import render_part_html
from tests.test_form_mapping import _part


class Order(BaseModel):
    price: float = Field(gt=0, lt=1000, multiple_of=0.01, description="In euros")
    quantity: int = Field(ge=1, le=10, multiple_of=2)
    stars: Literal[1, 2, 3]
    speed: Literal[0.5, 1.5] = 0.5
    ratio: float = Field(default=0.5, ge=0, le=1, multiple_of=0.1)
    note: str | None = None


def order_part():
    schema = render_elicitation_schema(Order)
    request = parse_request({"message": "Place the order?", "requestedSchema": schema})
    assert isinstance(request, ElicitationRequest), request
    return _part(request)


def answer(form: dict[str, str]) -> dict | Refusal:
    fields = {name: [value] for name, value in form.items()}
    return read_form_answer(order_part(), Answer("accept", fields))


def server_reads(envelope: dict) -> Order:
    """Return what the server's `ctx.elicit` hands its tool, as the SDK does it."""
    result = mcp_types.ElicitResult.model_validate(elicit_result(envelope))
    return Order.model_validate(result.content)


VALID = {"price": "19.99", "quantity": "4", "stars": "3", "speed": "1.5", "ratio": "0.3"}


def test_the_sdk_schema_parses_without_warnings():
    request = parse_request(
        {"message": "Place the order?", "requestedSchema": render_elicitation_schema(Order)}
    )

    assert request.warnings == ()
    price = request.fields[0]
    assert (price.exclusive_minimum, price.exclusive_maximum, price.multiple_of) == (0, 1000, 0.01)


def test_a_filled_form_reaches_the_server_as_its_own_model():
    order = server_reads(answer(VALID))

    assert order == Order(price=19.99, quantity=4, stars=3, speed=1.5, ratio=0.3)
    assert type(order.stars) is int


def test_the_form_shows_the_limits_and_offers_the_numbers():
    html = render_part_html(order_part())

    assert 'step="0.01" min="0.01" max="999.99"' in html
    assert "Enter more than 0 and less than 1000. Use at most 2 decimal places." in html
    assert 'step="2" min="2" max="10"' in html
    assert "Enter 1 to 10. Enter a multiple of 2." in html
    assert 'type="radio" id="part-7-stars-2" name="answer.stars" value="3"' in html
    assert 'value="1.5"' in html


@pytest.mark.parametrize(
    ("field", "typed", "message"),
    [
        ("price", "0", "Enter more than 0."),
        ("price", "1000", "Enter less than 1000."),
        ("price", "19.999", "Use at most 2 decimal places."),
        ("quantity", "3", "Enter a multiple of 2."),
        ("ratio", "0.35", "Use at most 1 decimal place."),
        ("stars", "4", "Choose one of the listed options."),
    ],
)
def test_what_the_server_would_refuse_is_refused_here_first(field, typed, message):
    refusal = answer(VALID | {field: typed})

    assert refusal == Refusal(422, {field: message})
    with pytest.raises(ValidationError):
        Order.model_validate({"price": 19.99, "quantity": 4, "stars": 3} | {field: float(typed)})
