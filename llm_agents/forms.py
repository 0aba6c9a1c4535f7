"""The form a person fills in to make an LLM agent: a configured model, never an address."""

from django import forms

from llm_agents import providers
from mcp_bridge import servers


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

    def __init__(self, *args, user, **kwargs):
        super().__init__(*args, **kwargs)
        self.fields["model"].choices = providers.choices()
        usable = [server for server in servers.load().values() if server.allows(user)]
        if usable:
            self.fields["mcp_servers"].choices = [(s.name, s.display_name) for s in usable]
        else:
            del self.fields["mcp_servers"]

    def config(self) -> dict:
        """Return the agent's configuration: provider and model by name, never a URL or key."""
        provider, model = self.cleaned_data["model"].split("/", 1)
        config = {
            "provider": provider,
            "model": model,
            "instructions": self.cleaned_data["instructions"],
        }
        if self.cleaned_data.get("mcp_servers"):
            config["mcp_servers"] = self.cleaned_data["mcp_servers"]
        if self.cleaned_data["temperature"] is not None:
            config["temperature"] = self.cleaned_data["temperature"]
        return config
