"""AG-UI agents as agents: any framework's agent with an AG-UI adapter (Pydantic AI, LangGraph,
CrewAI, ...), run from the chat as it is. Our frontend tools (`request_input`,
`request_approval`) and the agent's interrupts become parts like every other question; the
answer goes back as the tool result (or resume entry) of the next run.
"""
