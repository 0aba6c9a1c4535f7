"""MCP servers as agents: the servers file, calling their tools from the chat, and answering
their elicitation requests through the same parts, forms and chips as every other agent.

The public API other apps use (an LLM agent's toolset, say):
`servers.load()` reads the configured servers; `calls.list_tools(server)` lists a server's tools;
`calls.call_tool(ctx, server, tool, arguments)` calls one from a turn, asking the person
whatever the server asks on the way.
"""
