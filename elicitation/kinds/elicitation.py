"""The `elicitation` kind: a `request_input` question shown as a form."""

from elicitation.kinds.base import InteractionKind, form_context, parse_request, read_form_answer

KIND = InteractionKind(
    name="elicitation",
    tool_name="request_input",
    template="elicitation/kinds/elicitation.html",
    parse=parse_request,
    read_answer=read_form_answer,
    context=form_context,
)
