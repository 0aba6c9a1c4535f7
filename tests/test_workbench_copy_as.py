"""Copy as: the pydantic model, executed, makes an MCP server ask the same form; TypeScript."""

from dataclasses import asdict

import pytest
from mcp.server.elicitation import render_elicitation_schema

from elicitation.contract import ElicitationRequest, Field, parse_request
from elicitation.widgets import control_for
from playground.workbench.copy_as import as_pydantic, as_typescript
from playground.workbench.examples import examples

EXAMPLES = examples()


def what_a_person_gets(field: Field) -> dict:
    """Return a field as the form shows and checks it (format and widget become the control:
    MCP has no "multiline" format, so the model says it with the textarea widget)."""
    shown = asdict(field) | {"control": control_for(field)}
    for spelling in ("title", "format", "widget"):
        shown.pop(spelling)
    return shown


def asked_by_mcp_server(code: str, message: str) -> ElicitationRequest:
    """Execute the generated code; parse the schema the MCP SDK would send for its model."""
    namespace: dict = {}
    exec(compile(code, "<copied pydantic model>", "exec"), namespace)
    schema = render_elicitation_schema(namespace["Answer"])  # what ctx.elicit sends
    request = parse_request({"message": message, "requestedSchema": schema})
    assert isinstance(request, ElicitationRequest), request
    return request


@pytest.mark.parametrize("name", sorted(EXAMPLES))
def test_the_pydantic_model_makes_the_same_form(name):
    request = parse_request(EXAMPLES[name].payload)
    again = asked_by_mcp_server(as_pydantic(request), request.message)
    assert [what_a_person_gets(f) for f in again.fields] == [
        what_a_person_gets(f) for f in request.fields
    ]


def test_names_that_are_not_python_identifiers_keep_their_json_names():
    schema = {
        "type": "object",
        "properties": {
            "user-name": {"type": "string", "title": "User"},
            "class": {"type": "string", "title": "Class", "default": "A"},
            "address.line2": {"type": "string", "title": "Line 2"},
        },
        "required": ["user-name", "class"],
    }
    request = parse_request({"message": "Who?", "requestedSchema": schema})
    code = as_pydantic(request)
    assert "user_name: str = Field(title='User', alias='user-name')" in code
    again = asked_by_mcp_server(code, "Who?")
    assert [(f.name, f.required, f.default) for f in again.fields] == [
        ("user-name", True, None),
        ("class", True, "A"),  # required although it has a default
        ("address.line2", False, None),
    ]


def test_the_model_says_how_to_ask_it():
    code = as_pydantic(parse_request(EXAMPLES["contact_form"].payload))
    assert (
        "# result = await ctx.elicit(message='Please provide your contact information', "
        "schema=Answer)" in code
    )


def test_the_typescript_literal_spells_the_payload():
    size = {"type": "string", "enum": ["S", "M"], "x-ui": {"placeholder": "pick"}}
    payload = {
        "message": "Size?",
        "requestedSchema": {"type": "object", "properties": {"size": size}},
    }
    assert as_typescript(payload) == (
        "const request = {\n"
        '  message: "Size?",\n'
        "  requestedSchema: {\n"
        '    type: "object",\n'
        "    properties: {\n"
        "      size: {\n"
        '        type: "string",\n'
        '        enum: ["S", "M"],\n'
        '        "x-ui": {\n'
        '          placeholder: "pick",\n'
        "        },\n"
        "      },\n"
        "    },\n"
        "  },\n"
        "} as const;\n\n"
        "// In an MCP server (@modelcontextprotocol/sdk):\n"
        "// const result = await server.server.elicitInput(request);\n"
    )
