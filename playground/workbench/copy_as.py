"""The payload as code: a pydantic model for MCP servers and a TypeScript object literal.

The pydantic model is written from the normalized request, so it asks what this playground
shows: an MCP server passes it to `ctx.elicit(message=..., schema=Model)`, and the SDK turns
it into the same fields (a test executes the code and parses the schema it produces).
"""

import json
import keyword
import re

from elicitation.contract import ElicitationRequest, Field

_IDENTIFIER = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
_PYTHON_TYPES = {"string": "str", "integer": "int", "number": "float", "boolean": "bool"}
_FORMATS = ("date", "date-time", "email", "uri")  # the formats MCP's StringSchema knows


def as_pydantic(request: ElicitationRequest) -> str:
    """Return a pydantic model for `request` and the `ctx.elicit` call that asks it."""
    attributes = [f"    {_attribute(field)}" for field in request.fields]
    config = {}
    if request.title:
        config["title"] = request.title
    # Pydantic makes a field with a default optional: a required one with a default says so.
    if any(field.required and field.default is not None for field in request.fields):
        config["json_schema_extra"] = {
            "required": [field.name for field in request.fields if field.required]
        }
    if config:
        arguments = ", ".join(f"{key}={value!r}" for key, value in config.items())
        attributes.insert(0, f"    model_config = ConfigDict({arguments})")
    names = ["BaseModel", "ConfigDict", "Field"] if config else ["BaseModel", "Field"]
    lines = ["from typing import Literal", ""] if "Literal[" in "".join(attributes) else []
    lines += [f"from pydantic import {', '.join(names)}", "", "", "class Answer(BaseModel):"]
    lines += attributes or ["    pass"]
    lines += [
        "",
        "",
        "# In a tool of an MCP server (mcp.server.mcpserver), with its Context as ctx:",
        f"# result = await ctx.elicit(message={request.message!r}, schema=Answer)",
    ]
    return "\n".join(lines) + "\n"


def _attribute(field: Field) -> str:
    arguments = {"title": field.label}
    if field.name != _attribute_name(field.name):
        arguments["alias"] = field.name
    if field.default is not None:
        arguments["default"] = field.default
    elif not field.required:
        arguments["default"] = None
    if field.description:
        arguments["description"] = field.description
    for attribute, name in (
        ("minimum", "ge"),
        ("maximum", "le"),
        ("exclusive_minimum", "gt"),
        ("exclusive_maximum", "lt"),
        ("multiple_of", "multiple_of"),
        ("min_length", "min_length"),
        ("max_length", "max_length"),
        ("pattern", "pattern"),
        ("min_items", "min_length"),
        ("max_items", "max_length"),
    ):
        if getattr(field, attribute) is not None:
            arguments[name] = getattr(field, attribute)
    extra = _schema_extra(field)
    if extra:
        arguments["json_schema_extra"] = extra
    type_ = _python_type(field)
    if "default" in arguments and arguments["default"] is None:
        type_ += " | None"
    code = ", ".join(f"{key}={value!r}" for key, value in arguments.items())
    return f"{_attribute_name(field.name)}: {type_} = Field({code})"


def _python_type(field: Field) -> str:
    values = [option.value for option in field.options or ()]
    labelled = _labelled(field)
    if field.type == "array":
        return "list[str]" if labelled else f"list[Literal[{_values(values)}]]"
    if field.options is not None and not labelled:
        return f"Literal[{_values(values)}]"
    return _PYTHON_TYPES[field.type]


def _schema_extra(field: Field) -> dict:
    """Return what pydantic's types cannot say: option titles, formats, widgets, placeholders."""
    extra: dict = {}
    titled = [{"const": option.value, "title": option.label} for option in field.options or ()]
    if _labelled(field):
        if field.type == "array":
            extra["items"] = {"anyOf": titled}
        else:
            extra["oneOf"] = titled
    if field.format in _FORMATS:
        extra["format"] = field.format
    ui = {"widget": field.widget, "placeholder": field.placeholder}
    if field.format == "multiline" and not field.widget:
        ui["widget"] = "textarea"  # MCP knows no "multiline" format; the widget says the same
    ui = {key: value for key, value in ui.items() if value}
    if ui:
        extra["x-ui"] = ui
    return extra


def _labelled(field: Field) -> bool:
    """Return whether any option has a title of its own (beyond its value, for numbers)."""
    return any(option.label != str(option.value) for option in field.options or ())


def _attribute_name(name: str) -> str:
    if _IDENTIFIER.fullmatch(name) and not keyword.iskeyword(name) and not name.startswith("_"):
        return name
    cleaned = re.sub(r"\W", "_", name).lstrip("_") or "field"
    return cleaned + "_" if keyword.iskeyword(cleaned) else cleaned


def _values(values: list[str]) -> str:
    return ", ".join(repr(value) for value in values)


def as_typescript(payload: dict) -> str:
    """Return the payload as a TypeScript object literal for an MCP server's `elicitInput`."""
    literal = _typescript(payload, 0)
    return (
        f"const request = {literal} as const;\n\n"
        "// In an MCP server (@modelcontextprotocol/sdk):\n"
        "// const result = await server.server.elicitInput(request);\n"
    )


def _typescript(value: object, level: int) -> str:
    pad, inner = "  " * level, "  " * (level + 1)
    if isinstance(value, dict) and value:
        entries = [
            f"{inner}{_key(key)}: {_typescript(item, level + 1)}," for key, item in value.items()
        ]
        return "{\n" + "\n".join(entries) + f"\n{pad}}}"
    if isinstance(value, list) and value and any(isinstance(item, dict | list) for item in value):
        entries = [f"{inner}{_typescript(item, level + 1)}," for item in value]
        return "[\n" + "\n".join(entries) + f"\n{pad}]"
    return json.dumps(value, ensure_ascii=False)


def _key(key: str) -> str:
    return key if _IDENTIFIER.fullmatch(key) else json.dumps(key, ensure_ascii=False)
