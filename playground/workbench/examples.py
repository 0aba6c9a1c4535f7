"""The examples menu: every reference payload in the repository, each MCP enum form, every kind.

The reference payloads are the golden request files with a `source`; the two below are the
workbench's own, one field per shape, so every control can be tried.
"""

import json
from dataclasses import dataclass

from elicitation.contract import humanize
from elicitation.references import reference_examples

EVERY_FIELD_KIND = {
    "message": "One field of every kind this playground shows",
    "requestedSchema": {
        "type": "object",
        "title": "Every field kind",
        "properties": {
            "name": {"type": "string", "title": "Text", "minLength": 2, "maxLength": 40},
            "email": {"type": "string", "format": "email", "title": "Email"},
            "website": {"type": "string", "format": "uri", "title": "Web address"},
            "start": {"type": "string", "format": "date", "title": "Date"},
            "meeting": {"type": "string", "format": "date-time", "title": "Date and time"},
            "notes": {"type": "string", "format": "multiline", "title": "Long text"},
            "config": {
                "type": "string",
                "title": "Code",
                "x-ui": {"widget": "code", "placeholder": "key: value"},
            },
            "ticket": {"type": "string", "title": "Ticket", "pattern": "^[A-Z]+-[0-9]+$"},
            "count": {"type": "integer", "title": "Whole number", "minimum": 1, "maximum": 10},
            "ratio": {"type": "number", "title": "Number", "exclusiveMinimum": 0, "maximum": 1},
            "step": {"type": "number", "title": "Step of 0.25", "multipleOf": 0.25},
            "agree": {"type": "boolean", "title": "Yes or no", "default": False},
            "size": {"type": "string", "title": "One of a few", "enum": ["S", "M", "L"]},
            "replicas": {"type": "integer", "title": "One of a few numbers", "enum": [1, 3, 5]},
            "country": {
                "type": "string",
                "title": "One of many",
                "enum": ["DE", "FR", "IT", "ES", "NL", "PL", "SE"],
            },
            "days": {
                "type": "array",
                "title": "Several",
                "items": {"type": "string", "enum": ["Mon", "Tue", "Wed", "Thu", "Fri"]},
                "minItems": 1,
            },
        },
        "required": ["name", "email"],
    },
}

MCP_ENUM_FORMS = {
    "message": "The five enum forms of MCP 2025-11-25",
    "requestedSchema": {
        "type": "object",
        "properties": {
            "untitled": {"type": "string", "title": "Untitled single", "enum": ["red", "green"]},
            "titled": {
                "type": "string",
                "title": "Titled single",
                "oneOf": [{"const": "#f00", "title": "Red"}, {"const": "#0f0", "title": "Green"}],
            },
            "legacy": {
                "type": "string",
                "title": "Legacy titled (enumNames)",
                "enum": ["#f00", "#0f0"],
                "enumNames": ["Red", "Green"],
            },
            "untitled_many": {
                "type": "array",
                "title": "Untitled multiple",
                "items": {"type": "string", "enum": ["red", "green", "blue"]},
                "maxItems": 2,
            },
            "titled_many": {
                "type": "array",
                "title": "Titled multiple",
                "items": {
                    "anyOf": [
                        {"const": "#f00", "title": "Red"},
                        {"const": "#0f0", "title": "Green"},
                        {"const": "#00f", "title": "Blue"},
                    ]
                },
            },
        },
    },
}


@dataclass(frozen=True)
class Example:
    name: str
    label: str
    payload: dict

    @property
    def text(self) -> str:
        """Return the payload as the editor shows it."""
        return json.dumps(self.payload, indent=2, ensure_ascii=False)


def examples() -> dict[str, Example]:
    """Return the examples menu by name, the workbench's own first."""
    menu = {
        "every-field-kind": Example("every-field-kind", "Every field kind", EVERY_FIELD_KIND),
        "mcp-enum-forms": Example("mcp-enum-forms", "Each MCP enum form", MCP_ENUM_FORMS),
    }
    for name, reference in reference_examples().items():
        payload = {"message": reference["message"], "requestedSchema": reference["requestedSchema"]}
        label = f"{humanize(name)} ({reference['source']})"
        menu[name] = Example(name, label, payload)
    return menu
