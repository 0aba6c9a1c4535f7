"""The error an AG-UI agent's turn ends with, raised both before a run (`playground.agui.agent`: the
declared agent cannot be used) and during one (`playground.agui.turns`); its own module, so neither
of
the two imports the other for it."""

from playground.runs.runtime import ExplainedFault


class AguiRunFailed(ExplainedFault):
    """A run of the AG-UI agent failed; the message names the problem."""
