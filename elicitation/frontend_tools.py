"""The tools a client offers an agent to ask the person through, in the contract's own words.

`request_input` asks a typed question (a form); `request_approval` asks for approval before an
irreversible action (the approval card). Their descriptions and argument schemas are handed to
models as they are: an LLM agent's tool, an AG-UI agent's frontend tools.
"""

REQUEST_INPUT = "request_input"
REQUEST_APPROVAL = "request_approval"

REQUEST_INPUT_DESCRIPTION = """\
Ask the person a question and wait for their answer, shown to them as a form.
Use it when you need a decision or details only the person can give.

`requestedSchema` must be a FLAT JSON object schema: {"type": "object", "properties": {...},
"required": [...]}. Each property is one of:
- {"type": "string"} with optional "title", "description", "default", "minLength",
  "maxLength", "pattern", "format" (date, date-time, email, uri or multiline);
- {"type": "number"} or {"type": "integer"} with optional "minimum", "maximum";
- {"type": "boolean"};
- a single choice: {"type": "string", "enum": [...]} or
  {"type": "string", "oneOf": [{"const": "a", "title": "A"}, ...]};
- a multiple choice: {"type": "array", "items": {"enum": [...]}, "minItems": 1};
- a file: {"type": "string", "format": "data-url", "x-ui": {"accept": ["image/*"],
  "maxSize": 5000000}} (several: {"type": "array", "items": {"type": "string",
  "format": "data-url"}, "x-ui": {"maxFiles": 3}}). The answer names each file
  ({"file": "<id>", "name", "size", "type", "sha256"}), never its bytes.
Not allowed: nested objects, arrays of anything but string options, more than a few dozen
options, and fields for passwords, tokens, API keys or other secrets (never ask for those).

The result is the person's answer: {"action": "accept", "content": {...}}, or
{"action": "decline"} or {"action": "cancel"} (respect these: do not ask again at once).
If the result starts with "elicitation: unsupported payload", the schema was not valid:
fix what it says and call request_input again."""

REQUEST_INPUT_PARAMETERS = {
    "type": "object",
    "properties": {
        "message": {"type": "string", "description": "The question, as the person reads it."},
        "requestedSchema": {
            "type": "object",
            "description": "A flat JSON object schema of the answer's fields.",
        },
    },
    "required": ["message", "requestedSchema"],
}

REQUEST_APPROVAL_DESCRIPTION = """\
Ask the person to approve an action before you take it, shown to them as an approval card.
Use it before anything irreversible or costly: deleting, sending, paying, deploying.

`message` says what you are about to do ("Delete the staging database?"); `details` are the
facts the person needs to decide, as short name/value strings ({"Database": "staging"}).

The result is {"approved": true} when the person approved, else {"approved": false}.
Only act after an approval; if the result starts with "elicitation: unsupported payload", fix
what it says and call request_approval again."""

REQUEST_APPROVAL_PARAMETERS = {
    "type": "object",
    "properties": {
        "message": {"type": "string", "description": "What you are about to do."},
        "details": {
            "type": "object",
            "description": "The facts the person needs to decide, as name/value strings.",
            "additionalProperties": {"type": "string"},
        },
    },
    "required": ["message"],
}
