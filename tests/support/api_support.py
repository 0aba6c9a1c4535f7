"""What the API tests share: a token for a person, and a client that sends it."""

import json

from django.test import Client

from playground.api.tokens import create_token

ASK = {
    "message": "Which environment should I deploy to?",
    "requestedSchema": {
        "type": "object",
        "properties": {"env": {"type": "string", "enum": ["staging", "production"]}},
        "required": ["env"],
    },
}


class ApiClient:
    """The Django test client, sending a bearer token and JSON bodies."""

    def __init__(self, user, name: str = "test agent", **token_fields):
        self.token, self.key = create_token(user, name, **token_fields)
        self.client = Client(headers={"Authorization": f"Bearer {self.key}"})

    def get(self, path: str, **params):
        return self.client.get("/api/v1" + path, params)

    def post(self, path: str, body=None, **headers):
        data = "" if body is None else json.dumps(body)
        return self.client.post(
            "/api/v1" + path, data, content_type="application/json", headers=headers
        )

    def open_conversation(self, agent_name: str = "Deploy bot") -> int:
        response = self.post("/conversations", {"agentName": agent_name})
        assert response.status_code == 201, response.content
        return response.json()["id"]
