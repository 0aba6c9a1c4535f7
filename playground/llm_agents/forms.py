"""The form a person fills in to make or edit an LLM agent: a configured model, never an
address."""

from django import forms

from playground.llm_agents import providers, registered_toolsets
from playground.mcp_bridge import servers

# What the form sets in an agent's config; an edit keeps every other key (a wizard-made
# agent's platform and trigger), and the lists of a field the form does not show.
EDITED = ("provider", "model", "instructions", "temperature")
LISTS = ("mcp_servers", "toolsets")


class LlmAgentForm(forms.Form):
    name = forms.CharField(max_length=80, help_text="What the agent is called in the chat.")
    model = forms.ChoiceField(help_text="The models whoever runs this playground configured.")
    instructions = forms.CharField(
        required=False,
        max_length=8000,
        widget=forms.Textarea(attrs={"rows": 5}),
        help_text="What the agent is for and how it should behave (the system instructions).",
    )
    temperature = forms.FloatField(
        required=False,
        min_value=0,
        max_value=2,
        help_text="0 for focused answers, up to 2 for varied ones. Empty: the model's default.",
    )

    mcp_servers = forms.MultipleChoiceField(
        required=False,
        label="MCP servers",
        widget=forms.CheckboxSelectMultiple,
        help_text="Their tools are offered to the model; tools that change things ask you first.",
    )
    toolsets = forms.MultipleChoiceField(
        required=False,
        label="Toolsets",
        widget=forms.CheckboxSelectMultiple,
        help_text="Tools this playground adds; tools that change things ask you first.",
    )

    def __init__(self, *args, user, **kwargs):
        super().__init__(*args, **kwargs)
        self.fields["model"].choices = providers.choices()
        usable = [server for server in servers.load().values() if server.allows(user)]
        if usable:
            self.fields["mcp_servers"].choices = [(s.name, s.display_name) for s in usable]
        else:
            del self.fields["mcp_servers"]
        if registered := registered_toolsets.choices():
            self.fields["toolsets"].choices = registered
        else:
            del self.fields["toolsets"]

    @staticmethod
    def initial_from(agent) -> dict:
        """Return the form's values for an agent as it is configured."""
        config = agent.config
        return {
            "name": agent.name,
            "model": f"{config.get('provider', '')}/{config.get('model', '')}",
            "instructions": config.get("instructions", ""),
            "temperature": config.get("temperature"),
            "mcp_servers": config.get("mcp_servers", []),
            "toolsets": config.get("toolsets", []),
        }

    def config(self, keep: dict | None = None) -> dict:
        """Return the agent's configuration: provider and model by name, never a URL or key;
        `keep` is the configuration being edited (what the form does not set stays)."""
        provider, model = self.cleaned_data["model"].split("/", 1)
        shown = [*EDITED, *(many for many in LISTS if many in self.fields)]
        config = {key: value for key, value in (keep or {}).items() if key not in shown}
        config |= {"provider": provider, "model": model}
        config["instructions"] = self.cleaned_data["instructions"]
        for many in LISTS:
            if self.cleaned_data.get(many):
                config[many] = self.cleaned_data[many]
        if self.cleaned_data["temperature"] is not None:
            config["temperature"] = self.cleaned_data["temperature"]
        return config
