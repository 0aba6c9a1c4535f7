"""The API's OpenAPI document and its docs page, with every asset served from this server."""

import re

from django.test import Client


def test_the_openapi_document_is_served():
    document = Client().get("/api/v1/openapi.json").json()
    assert document["openapi"].startswith("3.1")
    assert "/api/v1/requests/{request_id}" in document["paths"]


def test_the_docs_page_loads_its_assets_from_this_server():
    client = Client()
    page = client.get("/api/v1/docs").content.decode()
    assets = re.findall(r'(?:src|href)="([^"]+)"', page)
    assert assets and all(asset.startswith("/static/") for asset in assets)
    for asset in assets:
        assert client.get(asset).status_code == 200
